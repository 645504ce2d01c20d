/** Scaffolding the layouts share: the Scene wrapper, notes (empty state, runs not drawn), the runs drawn and their colours, small-multiple grids, jitter. */
import type { FigureContext } from '../context.ts';
import type { Mark, Scene, TextMark } from '../scene.ts';
import { RUN_PALETTE, runColors } from '../palette.ts';
import { wrapText } from '../text.ts';

export function scene(ctx: FigureContext, height: number, title: string, marks: Mark[]): Scene {
  return { width: ctx.width, height: ctx.height ?? Math.ceil(height), background: ctx.theme.background, fontFamily: ctx.theme.fontFamily, title, marks };
}

/** What to do when there is nothing to draw, in the figure itself (it is exported too). */
export function emptyNote(ctx: FigureContext, x: number, y: number, text: string): TextMark {
  return { type: 'text', x, y, text, fontSize: ctx.theme.fontSize + 1, anchor: 'middle', baseline: 'middle', fill: ctx.theme.mutedText, role: 'empty' };
}

/**
 * Most runs one figure draws in run colours: one per colour of the run palette, so no two runs share a
 * colour (the same number as SIDE_BY_SIDE_MAX, the runs runAnalysis puts side by side). The demo database has
 * 54 runs; all of them at once were 54 legend entries and bars 1 px wide.
 */
export const MAX_RUNS_DRAWN = RUN_PALETTE.length;

/**
 * The runs this figure draws: the selection's (`ctx.drawnRuns`, shared/drawnRuns.ts), the same in every figure;
 * for a result laid out without its request, the first MAX_RUNS_DRAWN of its own runs by name.
 */
export function drawnRunNames(ctx: FigureContext, own: readonly string[]): readonly string[] {
  return ctx.drawnRuns ?? [...new Set(own)].sort((a, b) => a.localeCompare(b)).slice(0, MAX_RUNS_DRAWN);
}

/**
 * A figure's items (one or more per run) split into those of the drawn runs, in the given order, and those left
 * out; with the colour of each drawn run, given over the selection's drawn runs (palette.ts `runColors`), so a
 * run has the same colour in every figure of the selection and no two drawn runs share one.
 */
export function drawnSplit<T>(ctx: FigureContext, items: readonly T[], runOf: (item: T) => string): { shown: T[]; omitted: T[]; colorOf: (run: string) => string } {
  const drawn = drawnRunNames(ctx, items.map(runOf));
  const keep = new Set(drawn);
  return { shown: items.filter((i) => keep.has(runOf(i))), omitted: items.filter((i) => !keep.has(runOf(i))), colorOf: runColors(drawn) };
}

/** A note of at most this many lines; past it the names end in "and N more". */
const NOTE_LINES = 4;

/**
 * A muted note that names runs in the figure itself, so the export says it too: `lead` and then every name, wrapped
 * over up to NOTE_LINES lines (past them, "and N more (every run is in the CSV)"); the hover lists them all.
 * Returns its marks (role `role`) and the height it takes; none when `names` is empty.
 */
export function namesNote(
  ctx: FigureContext, lead: string, names: readonly string[], x: number, y: number, maxWidth: number, role = 'note',
): { marks: TextMark[]; height: number } {
  if (names.length === 0) return { marks: [], height: 0 };
  const fs = ctx.theme.fontSize;
  let lines: string[] = [];
  for (let k = names.length; k >= 1; k--) {
    const more = k < names.length ? `, and ${names.length - k} more (every run is in the CSV)` : '';
    const text = `${lead}: ${names.slice(0, k).join(', ')}${more}`;
    lines = wrapText(text, fs, maxWidth, NOTE_LINES + 1);
    if (lines.length <= NOTE_LINES) break;
  }
  if (lines.length > NOTE_LINES) lines = wrapText(`${lead}: ${names.length} runs (every run is in the CSV)`, fs, maxWidth, NOTE_LINES);
  const datum = { lines: [lead, ...names.slice(0, 40), ...(names.length > 40 ? [`and ${names.length - 40} more`] : [])] };
  const lineH = fs + 4;
  const marks: TextMark[] = lines.map((text, i) => ({
    type: 'text', x, y: y + i * lineH, text, fontSize: fs, baseline: 'hanging', fill: ctx.theme.mutedText, role, datum,
  }));
  return { marks, height: lines.length * lineH };
}

/**
 * The note naming the runs a figure has data for but does not draw (role `left-out`): it says why, and that the
 * same runs are drawn in every figure (the window's "Runs drawn" chooses them; the CLI's --draw).
 */
export function leftOutNote(ctx: FigureContext, omitted: readonly string[], x: number, y: number, maxWidth: number): { marks: TextMark[]; height: number } {
  const n = omitted.length;
  const lead = `Not drawn, ${n} more run${n === 1 ? '' : 's'} (a figure draws at most ${MAX_RUNS_DRAWN}, the same in every figure; choose which in Runs drawn)`;
  return namesNote(ctx, lead, [...omitted].sort((a, b) => a.localeCompare(b)), x, y, maxWidth, 'left-out');
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
