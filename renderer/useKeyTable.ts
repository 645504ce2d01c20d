/**
 * Binding a table of keys from shortcuts.ts to what they do, so a view's keys and the `?` list are one fact. A
 * press typed into a text field, or already taken by a handler nearer to it, is left alone.
 */
import { useEffect, useRef } from 'react';
import { keyAction, type KeyBinding } from './shortcuts.ts';

/** Keys typed into a text field or a list are the field's; a focused checkbox or radio does not take letters. */
export function typingInto(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement) return !['checkbox', 'radio', 'button'].includes(target.type);
  return target.isContentEditable || ['TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** While mounted and `enabled`: a press of one of the table's keys runs its action (an action left out does nothing). */
export function useKeyTable<A extends string>(table: Readonly<Record<A, KeyBinding>>, actions: Partial<Record<A, () => void>>, enabled = true): void {
  const ref = useRef(actions);
  useEffect(() => {
    ref.current = actions;
  });
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || typingInto(e.target)) return;
      const action = keyAction(table, e);
      const run = action ? ref.current[action] : undefined;
      if (!run) return;
      e.preventDefault();
      run();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [table, enabled]);
}
