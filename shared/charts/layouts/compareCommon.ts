/** What the three Compare figures share: the colour of each side, how a side is named, and what "unknown" reads as. */
import type { CompareResult } from '../../apiCompare.ts';
import type { FigureContext } from '../context.ts';
import { fmtUsd } from '../format.ts';
import type { Mark } from '../scene.ts';
import { wrapText } from '../text.ts';
import { runColor } from '../theme.ts';

export type CompareSideKey = 'a' | 'b';

/** A is the first run colour, B the second, in every Compare figure and in the view around them. */
export function sideColor(side: CompareSideKey): string {
  return runColor(side === 'a' ? 0 : 1);
}

/** "A: sw-mtrouter" — the letter first, because differences are always read as B − A. */
export function sideName(result: Pick<CompareResult, 'a' | 'b'>, side: CompareSideKey): string {
  return `${side.toUpperCase()}: ${result[side].label}`;
}

/** A known cost, or the dash every view uses for an unknown one (never $0). */
export function usdOrDash(x: number | null | undefined): string {
  return x === null || x === undefined ? '—' : fmtUsd(x);
}

/** A difference with its sign always written: "+0.120", "−$0.0123". */
export function signed(x: number, format: (v: number) => string): string {
  const text = format(Math.abs(x));
  return x > 0 ? `+${text}` : x < 0 ? `−${text}` : text;
}

/** A figure's note in up to two lines ending at `bottom` (the last line's baseline), muted, never cut mid-sentence when two lines hold it. */
export function noteLines(text: string, x: number, bottom: number, maxWidth: number, ctx: FigureContext): Mark[] {
  const fs = ctx.theme.fontSize;
  const lines = wrapText(text, fs, maxWidth, 2);
  return lines.map((line, i) => ({
    type: 'text' as const, x, y: bottom - (lines.length - 1 - i) * (fs + 4), text: line, fontSize: fs, fill: ctx.theme.mutedText, role: 'note',
  }));
}
