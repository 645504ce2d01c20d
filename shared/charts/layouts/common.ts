/** Scaffolding the layouts share: the Scene wrapper, the empty-state note, small-multiple grids, sampling. */
import type { FigureContext } from '../context.ts';
import type { Mark, Scene, TextMark } from '../scene.ts';

export function scene(ctx: FigureContext, height: number, title: string, marks: Mark[]): Scene {
  return { width: ctx.width, height: ctx.height ?? Math.ceil(height), background: ctx.theme.background, fontFamily: ctx.theme.fontFamily, title, marks };
}

/** What to do when there is nothing to draw, in the figure itself (it is exported too). */
export function emptyNote(ctx: FigureContext, x: number, y: number, text: string): TextMark {
  return { type: 'text', x, y, text, fontSize: ctx.theme.fontSize + 1, anchor: 'middle', baseline: 'middle', fill: ctx.theme.mutedText, role: 'empty' };
}

/** Columns and panel width for `n` small multiples at least `minWidth` wide in `width` px. */
export function panelGrid(n: number, width: number, minWidth: number, gap = 24): { cols: number; panelWidth: number } {
  const cols = Math.max(1, Math.min(n, Math.floor((width + gap) / (minWidth + gap))));
  return { cols, panelWidth: (width - gap * (cols - 1)) / cols };
}

/**
 * At most `max` items spread evenly over the list (every k-th), so a scatter of 30k episodes stays a few
 * thousand marks while keeping its shape; the figure says how many it shows.
 */
export function evenSample<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  const out: T[] = [];
  const step = items.length / max;
  for (let i = 0; i < max; i++) out.push(items[Math.floor(i * step)] as T);
  return out;
}

/** A fixed pseudo-random offset in [-0.5, 0.5) for jitter: the same point lands at the same place in every export. */
export function jitter(i: number): number {
  return ((i * 0.6180339887498949) % 1) - 0.5;
}
