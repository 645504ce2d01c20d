/** Scaffolding the layouts share: the Scene wrapper, notes (empty state, runs not drawn), run caps, small-multiple grids, jitter. */
import { SIDE_BY_SIDE_MAX } from '../../analysisResults.ts';
import type { FigureContext } from '../context.ts';
import type { Mark, Scene, TextMark } from '../scene.ts';
import { fitText } from '../text.ts';
import { RUN_PALETTE } from '../theme.ts';

export function scene(ctx: FigureContext, height: number, title: string, marks: Mark[]): Scene {
  return { width: ctx.width, height: ctx.height ?? Math.ceil(height), background: ctx.theme.background, fontFamily: ctx.theme.fontFamily, title, marks };
}

/** What to do when there is nothing to draw, in the figure itself (it is exported too). */
export function emptyNote(ctx: FigureContext, x: number, y: number, text: string): TextMark {
  return { type: 'text', x, y, text, fontSize: ctx.theme.fontSize + 1, anchor: 'middle', baseline: 'middle', fill: ctx.theme.mutedText, role: 'empty' };
}

/** The note for runs past SIDE_BY_SIDE_MAX that `runAnalysis` left out of `by_run` (null when none were). */
export function omittedRunsNote(ctx: FigureContext, omitted: readonly string[] | undefined, x: number, y: number, maxWidth: number): TextMark | null {
  if (!omitted || omitted.length === 0) return null;
  const text = `At most ${SIDE_BY_SIDE_MAX} runs side by side: ${omitted.length} more not drawn (select fewer runs to see them): ${omitted.join(', ')}`;
  return runsNote(ctx, text, omitted, x, y, maxWidth);
}

/**
 * Most runs one figure draws in run colours: one per colour of the run palette, so no two runs share a
 * colour. The demo database has 54 runs; all of them at once were 54 legend entries and bars 1 px wide.
 */
export const MAX_RUNS_DRAWN = RUN_PALETTE.length;

/**
 * The `max` items with the largest `weight` (ties: the earlier), kept in their given order, and the rest.
 * Layouts draw `shown` and say what `omitted` holds with `runsNote`.
 */
export function capRuns<T>(items: readonly T[], weight: (item: T) => number, max = MAX_RUNS_DRAWN): { shown: T[]; omitted: T[] } {
  if (items.length <= max) return { shown: [...items], omitted: [] };
  const keep = new Set(
    items
      .map((item, i) => ({ i, w: weight(item) }))
      .sort((a, b) => b.w - a.w || a.i - b.i)
      .slice(0, max)
      .map((x) => x.i),
  );
  return { shown: items.filter((_, i) => keep.has(i)), omitted: items.filter((_, i) => !keep.has(i)) };
}

/**
 * A muted line under the legend about runs a figure does not draw: `text` says why, the tooltip names them
 * (the first 40). Null when `names` is empty.
 */
export function runsNote(ctx: FigureContext, text: string, names: readonly string[], x: number, y: number, maxWidth: number): TextMark | null {
  if (names.length === 0) return null;
  const listed = names.slice(0, 40).join(', ') + (names.length > 40 ? `, and ${names.length - 40} more` : '');
  return {
    type: 'text', x, y, text: fitText(text, ctx.theme.fontSize, maxWidth), fontSize: ctx.theme.fontSize, baseline: 'hanging', fill: ctx.theme.mutedText, role: 'note',
    datum: { lines: [text, listed] },
  };
}

/** Columns and panel width for `n` small multiples at least `minWidth` wide in `width` px. */
export function panelGrid(n: number, width: number, minWidth: number, gap = 24): { cols: number; panelWidth: number } {
  const cols = Math.max(1, Math.min(n, Math.floor((width + gap) / (minWidth + gap))));
  return { cols, panelWidth: (width - gap * (cols - 1)) / cols };
}

/** A fixed pseudo-random offset in [-0.5, 0.5) for jitter: the same point lands at the same place in every export. */
export function jitter(i: number): number {
  return ((i * 0.6180339887498949) % 1) - 0.5;
}
