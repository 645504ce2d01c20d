/**
 * A modal dialog: a backdrop over the window, `role="dialog"` named by its title, Escape to close, Tab and
 * Shift+Tab kept inside, and focus handed back to whatever had it when the dialog closes. The app behind it
 * is made `inert` by App.tsx while one is open, so a click or a screen reader cannot wander there either.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { GLOBAL_KEYS, matches } from '../shortcuts.ts';
import { CloseIcon } from './icons.tsx';

const FOCUSABLE = [
  'a[href]',
  'button:not([disabled])',
  'input:not([disabled]):not([type="hidden"])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  '[tabindex]:not([tabindex="-1"])',
].join(',');

function focusables(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => !el.hidden && el.getClientRects().length > 0);
}

/** Focus what the content marks with data-autofocus, else its first control, else the first control at all. */
function focusInitial(root: HTMLElement): void {
  const body = root.querySelector<HTMLElement>('.modal-body');
  const marked = root.querySelector<HTMLElement>('[data-autofocus]');
  (marked ?? (body && focusables(body)[0]) ?? focusables(root)[0] ?? root).focus();
}

export function Modal({
  title,
  onClose,
  children,
  footer,
  testId,
  className,
  focusKey,
}: {
  title: ReactNode;
  onClose(): void;
  children: ReactNode;
  footer?: ReactNode;
  testId?: string;
  className?: string;
  /** When this changes (the content switched steps) and focus fell out of the dialog, it is placed again. */
  focusKey?: string;
}) {
  const panel = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const closeRef = useRef(onClose);
  useEffect(() => {
    closeRef.current = onClose;
  }, [onClose]);

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const root = panel.current;
    if (root && !root.contains(document.activeElement)) focusInitial(root);
    const onKey = (e: KeyboardEvent) => {
      if (!root) return;
      if (matches(GLOBAL_KEYS.close, e)) {
        e.preventDefault();
        closeRef.current();
        return;
      }
      if (!matches(GLOBAL_KEYS.focus, e)) return;
      const items = focusables(root);
      const first = items[0];
      const last = items[items.length - 1];
      if (!first || !last) {
        e.preventDefault();
        root.focus();
        return;
      }
      const active = document.activeElement;
      if (e.shiftKey && (active === first || !root.contains(active))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (active === last || !root.contains(active))) {
        e.preventDefault();
        first.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      // A dialog opened from inside an area that turns inert found focus already gone; its host restores it.
      if (opener?.isConnected && opener !== document.body) opener.focus();
    };
  }, []);

  useEffect(() => {
    const root = panel.current;
    if (root && !root.contains(document.activeElement)) focusInitial(root);
  }, [focusKey]);

  return (
    <div className="modal-backdrop" data-testid={testId ? `${testId}-backdrop` : undefined}>
      <div
        ref={panel}
        className={className ? `modal ${className}` : 'modal'}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        data-testid={testId}
      >
        <header className="modal-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="btn btn-ghost btn-icon" onClick={onClose} aria-label="Close" title="Close (Esc)">
            <CloseIcon />
          </button>
        </header>
        <div className="modal-body">{children}</div>
        {footer && <footer className="modal-footer">{footer}</footer>}
      </div>
    </div>
  );
}
