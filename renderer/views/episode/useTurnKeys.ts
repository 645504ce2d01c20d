/**
 * The inspector's keyboard: j/k or arrows step turns, n/N jump between errors, s/S between model switches,
 * ]/[ between episodes. The keys themselves are listed once, in shortcuts.ts (TURN_KEYS), which `?` shows.
 */
import { useEffect, useRef } from 'react';
import { matches, TURN_KEYS, type TurnKeyActions } from '../../shortcuts.ts';

/** Keys typed into a text field or a list are the field's; a focused checkbox or radio does not take letters. */
export function typingInto(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement) return !['checkbox', 'radio', 'button'].includes(target.type);
  return target.isContentEditable || ['TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** The action a key press asks for, if any. */
export function turnActionOf(e: { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean }): keyof TurnKeyActions | null {
  for (const [action, binding] of Object.entries(TURN_KEYS) as [keyof TurnKeyActions, (typeof TURN_KEYS)[keyof TurnKeyActions]][]) {
    if (matches(binding, e)) return action;
  }
  return null;
}

export function useTurnKeys(actions: TurnKeyActions): void {
  const ref = useRef(actions);
  useEffect(() => {
    ref.current = actions;
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || typingInto(e.target)) return;
      const action = turnActionOf(e);
      const run = action ? ref.current[action] : undefined;
      if (!run) return;
      e.preventDefault();
      run();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
