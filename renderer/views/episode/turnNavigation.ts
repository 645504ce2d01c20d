/** Where the inspector's keys go: the next/previous turn with an error, the next/previous model switch. */
import type { TurnDetail } from '../../../shared/api.ts';

type TurnFlags = Pick<TurnDetail, 'errors' | 'switched'>;

function hasError(turn: TurnFlags): boolean {
  return turn.errors.length > 0;
}

function seek(turns: readonly TurnFlags[], from: number, step: 1 | -1, test: (t: TurnFlags) => boolean): number | null {
  for (let i = from + step; i >= 0 && i < turns.length; i += step) {
    const turn = turns[i];
    if (turn && test(turn)) return i;
  }
  return null;
}

export const nextError = (turns: readonly TurnFlags[], from: number) => seek(turns, from, 1, hasError);
export const prevError = (turns: readonly TurnFlags[], from: number) => seek(turns, from, -1, hasError);
export const nextSwitch = (turns: readonly TurnFlags[], from: number) => seek(turns, from, 1, (t) => t.switched);
export const prevSwitch = (turns: readonly TurnFlags[], from: number) => seek(turns, from, -1, (t) => t.switched);

export function clampTurn(turn: number | null, count: number): number {
  if (count === 0) return 0;
  return Math.max(0, Math.min(count - 1, turn ?? 0));
}
