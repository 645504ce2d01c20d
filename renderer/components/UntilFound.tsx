/**
 * The hidden part of a collapsed text. It stays in the page with `hidden="until-found"`, so the browser's find
 * (Ctrl+F) sees it: Chromium reveals the element on a match and fires `beforematch`, where the owner flips to
 * expanded. React 19 writes `hidden` as a boolean, so the attribute is set here by hand.
 */
import { useCallback, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

export function UntilFound({
  open,
  onFound,
  as: Tag = 'div',
  className,
  testId,
  children,
}: {
  open: boolean;
  onFound(): void;
  as?: 'div' | 'span';
  className?: string;
  testId?: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLElement>(null);
  // The children wait for the attribute: in the first commit they would be laid out in full by any layout read
  // before this effect runs (a sibling measuring itself), which for a 10 MB line took seconds.
  const [armed, setArmed] = useState(open);
  const found = useRef(onFound);
  useLayoutEffect(() => {
    found.current = onFound;
  });
  const attach = useCallback((el: HTMLElement | null) => {
    ref.current = el;
  }, []);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open) el.removeAttribute('hidden');
    else el.setAttribute('hidden', 'until-found');
    setArmed(true);
  }, [open]);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const handler = () => found.current();
    el.addEventListener('beforematch', handler);
    return () => el.removeEventListener('beforematch', handler);
  }, []);
  return (
    <Tag ref={attach} className={className} data-testid={testId}>
      {armed ? children : null}
    </Tag>
  );
}
