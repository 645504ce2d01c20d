/**
 * Progress of a single-shot call (replay, diff): the core answers once, when done, so what can honestly be
 * shown is an indeterminate bar and the time elapsed. Cancel drops the answer.
 */
import { useEffect, useState } from 'react';

export function Progress({ startedAt, onCancel, what, testId }: { startedAt: number; onCancel(): void; what: string; testId: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.max(0, (now - startedAt) / 1000);
  return (
    <span className="call-progress" role="status" data-testid={testId}>
      <span className="progress is-indeterminate" aria-hidden="true">
        <span />
      </span>
      <span className="num">
        {what}… {seconds.toFixed(1)} s
      </span>
      <button type="button" className="btn btn-ghost" onClick={onCancel} data-testid={`${testId}-cancel`}>
        Cancel
      </button>
    </span>
  );
}
