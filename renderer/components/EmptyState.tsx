import type { ReactNode } from 'react';

/** A calm, centred message that says what to do next, optionally with the command that does it. */
export function EmptyState({
  title,
  children,
  command,
  testId = 'empty-state',
}: {
  title: string;
  children?: ReactNode;
  command?: string;
  testId?: string;
}) {
  return (
    <div className="empty-state" data-testid={testId}>
      <h2>{title}</h2>
      {children && <div className="empty-state-body">{children}</div>}
      {command && <pre className="empty-state-command">{command}</pre>}
    </div>
  );
}

export function ErrorNotice({ title, message }: { title: string; message: string }) {
  return (
    <div className="error-notice" role="alert" data-testid="error-notice">
      <strong>{title}</strong>
      <span>{message}</span>
    </div>
  );
}
