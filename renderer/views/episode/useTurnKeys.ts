/** The inspector's keyboard: j/k or arrows step turns, n/N jump between errors, s/S between model switches. */
import { useEffect, useRef } from 'react';

export interface TurnKeyActions {
  next(): void;
  prev(): void;
  first(): void;
  last(): void;
  nextError(): void;
  prevError(): void;
  nextSwitch(): void;
  prevSwitch(): void;
}

/** Keys typed into a text field or a list are the field's; a focused checkbox or radio does not take letters. */
export function typingInto(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement) return !['checkbox', 'radio', 'button'].includes(target.type);
  return target.isContentEditable || ['TEXTAREA', 'SELECT'].includes(target.tagName);
}

export function useTurnKeys(actions: TurnKeyActions): void {
  const ref = useRef(actions);
  useEffect(() => {
    ref.current = actions;
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typingInto(e.target)) return;
      const a = ref.current;
      const map: Record<string, () => void> = {
        j: a.next,
        ArrowDown: a.next,
        ArrowRight: a.next,
        k: a.prev,
        ArrowUp: a.prev,
        ArrowLeft: a.prev,
        Home: a.first,
        End: a.last,
        n: a.nextError,
        N: a.prevError,
        s: a.nextSwitch,
        S: a.prevSwitch,
      };
      const action = map[e.key];
      if (!action) return;
      e.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
