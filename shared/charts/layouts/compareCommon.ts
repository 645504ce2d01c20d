/** What the three Compare figures share: the colour of each side, how a side is named, and what "unknown" reads as. */
import type { CompareResult } from '../../apiCompare.ts';
import type { FigureContext } from '../context.ts';
import { fmtUsd } from '../format.ts';
import type { Mark } from '../scene.ts';
import { wrapText } from '../text.ts';
import { runColors } from '../palette.ts';

export type CompareSideKey = 'a' | 'b';

/**
 * The name a side is coloured by: a side that is one run as it is (its label is the run's name) is that run,
 * anything else (a group, a split, a label of the user's) goes by its label.
 */
export function sideKey(side: { label: string; runs: readonly string[] }): string {
  return side.runs.length === 1 && side.label === side.runs[0] ? side.runs[0] : side.label;
}

/**
 * Each side's colour, by the rule runs are coloured by in every figure (palette.ts `runColors` over the two
 * names): a run compared has the colour it has among the selected runs of the Analyses figures (unless the two
 * sides' own colours clash, when B takes the next one), and A and B never share one. In the figures, the view
 * around them and the export.
 */
export function sideColorsOf(keyA: string, keyB: string): Record<CompareSideKey, string> {
  const [a, b] = keyA === keyB ? [`A: ${keyA}`, `B: ${keyB}`] : [keyA, keyB];
  const color = runColors([a, b]);
  return { a: color(a), b: color(b) };
}

export function sideColors(result: Pick<CompareResult, 'a' | 'b'>): Record<CompareSideKey, string> {
  return sideColorsOf(sideKey(result.a), sideKey(result.b));
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
