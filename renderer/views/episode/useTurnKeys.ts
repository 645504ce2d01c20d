/**
 * The inspector's keyboard: j/k or arrows step turns, n/N jump between errors, s/S between model switches,
 * ]/[ between episodes. The keys themselves are listed once, in shortcuts.ts (TURN_KEYS), which `?` shows.
 */
import { keyAction, TURN_KEYS, type KeyPress, type TurnKeyActions } from '../../shortcuts.ts';
import { useKeyTable } from '../../useKeyTable.ts';

export { typingInto } from '../../useKeyTable.ts';

/** The action a key press asks for, if any. */
export function turnActionOf(e: KeyPress): keyof TurnKeyActions | null {
  return keyAction(TURN_KEYS, e);
}

export function useTurnKeys(actions: TurnKeyActions): void {
  useKeyTable(TURN_KEYS, actions);
}
