/** A button that opens a panel below it; closes on Escape, on a click outside, or when asked by its content. */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { GLOBAL_KEYS, matches } from '../shortcuts.ts';
import { ChevronDownIcon } from './icons.tsx';

export function Popover({
  button,
  buttonTitle,
  children,
  testId,
  align = 'start',
  active = false,
}: {
  button: ReactNode;
  buttonTitle?: string;
  children: (close: () => void) => ReactNode;
  testId: string;
  align?: 'start' | 'end';
  /** Shown as a filter that is in effect. */
  active?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (root.current && e.target instanceof Node && !root.current.contains(e.target)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (matches(GLOBAL_KEYS.close, e)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  return (
    <div className="popover" ref={root}>
      <button
        type="button"
        className={active ? 'btn popover-button is-active' : 'btn popover-button'}
        aria-expanded={open}
        aria-haspopup="dialog"
        title={buttonTitle}
        data-testid={testId}
        onClick={() => setOpen((o) => !o)}
      >
        {button}
        <ChevronDownIcon />
      </button>
      {open && (
        <div className={`popover-panel popover-${align}`} role="dialog" data-testid={`${testId}-panel`}>
          {children(() => setOpen(false))}
        </div>
      )}
    </div>
  );
}
