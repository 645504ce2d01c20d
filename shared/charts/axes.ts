/**
 * Axes, grids and legends as Scene marks, from d3 scales. Layouts place a plot area, build scales over it,
 * and ask these helpers for the furniture; the sizes they report (`leftAxisWidth`, `legend().height`) let a
 * layout reserve room before placing the plot, so nothing overlaps.
 */
import type { ScaleBand, ScaleLinear, ScaleLogarithmic, ScalePoint } from 'd3';
import type { Mark, TextMark } from './scene.ts';
import { fitText, textWidth } from './text.ts';
import type { ChartTheme } from './theme.ts';

export type ContinuousScale = ScaleLinear<number, number> | ScaleLogarithmic<number, number>;
export type CategoryScale = ScaleBand<string> | ScalePoint<string>;
export type AnyScale = ContinuousScale | CategoryScale;

export interface AxisOptions {
  theme: ChartTheme;
  /** Axis title with its unit, e.g. "mean cost per episode ($)". */
  label?: string;
  /** Approximate number of ticks of a continuous scale. */
  ticks?: number;
  format?: (value: number) => string;
  /** A format chosen from all the axis's tick values (wins over `format`), e.g. one number of decimals for all. */
  tickFormat?: (values: readonly number[]) => (value: number) => string;
  /** Length of grid lines drawn across the plot from each tick (0: none). */
  grid?: number;
  /** Longest category label in px before it is cut with an ellipsis. */
  maxLabelWidth?: number;
}

const TICK = 4;
const GAP = 3;

function isBand(scale: AnyScale): scale is CategoryScale {
  return 'step' in scale;
}

interface Tick {
  pos: number;
  text: string;
}

function ticksOf(scale: AnyScale, opts: AxisOptions): Tick[] {
  if (isBand(scale)) {
    const half = 'bandwidth' in scale ? scale.bandwidth() / 2 : 0;
    return scale.domain().map((d) => ({ pos: (scale(d) ?? 0) + half, text: opts.maxLabelWidth ? fitText(d, opts.theme.fontSize, opts.maxLabelWidth) : d }));
  }
  const count = opts.ticks ?? 5;
  const values = scale.ticks(count);
  const fmt = opts.tickFormat?.(values) ?? opts.format ?? scale.tickFormat(count);
  return values.map((v) => ({ pos: scale(v), text: fmt(v) }));
}

/** Width taken left of the plot by a left axis with these tick labels and a title. */
export function leftAxisWidth(scale: AnyScale, opts: AxisOptions): number {
  const widest = Math.max(0, ...ticksOf(scale, opts).map((t) => textWidth(t.text, opts.theme.fontSize)));
  return TICK + GAP + widest + (opts.label ? opts.theme.fontSize + 1 + 10 : 0) + 4;
}

/** Height taken below the plot by a bottom axis (ticks, labels, title). */
export function bottomAxisHeight(opts: AxisOptions): number {
  return TICK + GAP + opts.theme.fontSize + (opts.label ? opts.theme.fontSize + 1 + 10 : 0) + 4;
}

const txt = (theme: ChartTheme, t: Omit<TextMark, 'type' | 'fontSize'> & { fontSize?: number }): TextMark => ({
  type: 'text',
  fontSize: theme.fontSize,
  fill: theme.mutedText,
  ...t,
});

/** A bottom axis whose line sits at `y`, spanning the scale's range. */
export function bottomAxis(scale: AnyScale, y: number, opts: AxisOptions): Mark[] {
  const { theme } = opts;
  const [r0, r1] = scale.range() as [number, number];
  const marks: Mark[] = [];
  const ticks = ticksOf(scale, opts);
  if (opts.grid) {
    for (const t of ticks) marks.push({ type: 'line', x1: t.pos, x2: t.pos, y1: y, y2: y - opts.grid, stroke: theme.grid, strokeWidth: 1, role: 'grid' });
  }
  marks.push({ type: 'line', x1: r0, x2: r1, y1: y, y2: y, stroke: theme.axis, strokeWidth: 1, role: 'axis' });
  for (const t of ticks) {
    marks.push({ type: 'line', x1: t.pos, x2: t.pos, y1: y, y2: y + TICK, stroke: theme.axis, strokeWidth: 1 });
    marks.push(txt(theme, { x: t.pos, y: y + TICK + GAP, text: t.text, anchor: 'middle', baseline: 'hanging', role: 'tick-label' }));
  }
  if (opts.label) {
    marks.push(txt(theme, {
      x: (r0 + r1) / 2, y: y + TICK + GAP + theme.fontSize + 8, text: opts.label, anchor: 'middle', baseline: 'hanging',
      fill: theme.text, fontSize: theme.fontSize + 1, role: 'axis-label',
    }));
  }
  return marks;
}

/** A left axis whose line sits at `x`, spanning the scale's range. */
export function leftAxis(scale: AnyScale, x: number, opts: AxisOptions): Mark[] {
  const { theme } = opts;
  const [r0, r1] = scale.range() as [number, number];
  const marks: Mark[] = [];
  const ticks = ticksOf(scale, opts);
  if (opts.grid) {
    for (const t of ticks) marks.push({ type: 'line', x1: x, x2: x + opts.grid, y1: t.pos, y2: t.pos, stroke: theme.grid, strokeWidth: 1, role: 'grid' });
  }
  marks.push({ type: 'line', x1: x, x2: x, y1: r0, y2: r1, stroke: theme.axis, strokeWidth: 1, role: 'axis' });
  let widest = 0;
  for (const t of ticks) {
    widest = Math.max(widest, textWidth(t.text, theme.fontSize));
    marks.push({ type: 'line', x1: x - TICK, x2: x, y1: t.pos, y2: t.pos, stroke: theme.axis, strokeWidth: 1 });
    marks.push(txt(theme, { x: x - TICK - GAP, y: t.pos, text: t.text, anchor: 'end', baseline: 'middle', role: 'tick-label' }));
  }
  if (opts.label) {
    const lx = x - TICK - GAP - widest - 8;
    marks.push(txt(theme, {
      x: lx, y: (r0 + r1) / 2, text: opts.label, anchor: 'middle', baseline: 'alphabetic', rotate: -90,
      fill: theme.text, fontSize: theme.fontSize + 1, role: 'axis-label',
    }));
  }
  return marks;
}

export interface LegendItem {
  label: string;
  color: string;
  /** How the swatch is drawn: a square (areas, bars), a dot (points) or a line (curves). */
  shape?: 'rect' | 'circle' | 'line';
  dash?: string;
  /** The run, model or policy the swatch stands for (its `data-series`); absent for keys that are no series (frontier, reference). */
  series?: string;
}

/**
 * A legend that flows left to right and wraps within `maxWidth`. Returns its marks (placed at x, y) and the
 * height it took, so the layout can put the plot below it.
 */
export function legend(items: LegendItem[], x: number, y: number, maxWidth: number, theme: ChartTheme, title?: string): { marks: Mark[]; height: number } {
  const size = theme.fontSize;
  const rowH = size + 7;
  const marks: Mark[] = [];
  let cx = x;
  let cy = y;
  if (title) {
    marks.push(txt(theme, { x: cx, y: cy + rowH / 2, text: title, baseline: 'middle', fill: theme.text, weight: 'bold', role: 'legend-title' }));
    cx += textWidth(title, size, true) + 10;
  }
  for (const item of items) {
    const label = fitText(item.label, size, Math.max(40, maxWidth - 30));
    const w = 14 + 5 + textWidth(label, size) + 14;
    if (cx + w - 14 > x + maxWidth && cx > x) {
      cx = x;
      cy += rowH;
    }
    const mid = cy + rowH / 2;
    const series = item.series === undefined ? {} : { series: item.series };
    if (item.shape === 'circle') marks.push({ type: 'circle', cx: cx + 7, cy: mid, r: 4.5, fill: item.color, role: 'legend-swatch', ...series });
    else if (item.shape === 'line') {
      marks.push({ type: 'line', x1: cx, x2: cx + 14, y1: mid, y2: mid, stroke: item.color, strokeWidth: 2.5, dash: item.dash, role: 'legend-swatch', ...series });
    } else marks.push({ type: 'rect', x: cx + 1, y: mid - 5, width: 12, height: 10, fill: item.color, role: 'legend-swatch', ...series });
    marks.push(txt(theme, { x: cx + 19, y: mid, text: label, baseline: 'middle', fill: theme.text, role: 'legend-label' }));
    cx += w;
  }
  return { marks, height: cy - y + rowH };
}

/** A panel title (run name in small multiples), cut to fit. */
export function panelTitle(text: string, x: number, y: number, maxWidth: number, theme: ChartTheme): TextMark {
  return {
    type: 'text', x, y, text: fitText(text, theme.fontSize + 1, maxWidth, true), fontSize: theme.fontSize + 1,
    weight: 'bold', fill: theme.text, baseline: 'hanging', role: 'panel-title',
  };
}

/** A colour bar for a continuous colour scale, horizontal, with end and middle labels. */
export function colorBar(
  color: (t: number) => string, x: number, y: number, width: number, labels: [string, string, string], title: string, theme: ChartTheme,
): { marks: Mark[]; height: number } {
  const steps = 32;
  const marks: Mark[] = [txt(theme, { x, y, text: title, baseline: 'hanging', fill: theme.text, role: 'legend-title' })];
  const barY = y + theme.fontSize + 5;
  for (let i = 0; i < steps; i++) {
    marks.push({ type: 'rect', x: x + (i * width) / steps, y: barY, width: width / steps + 0.5, height: 10, fill: color((i + 0.5) / steps) });
  }
  const ly = barY + 13;
  marks.push(txt(theme, { x, y: ly, text: labels[0], baseline: 'hanging', anchor: 'start' }));
  marks.push(txt(theme, { x: x + width / 2, y: ly, text: labels[1], baseline: 'hanging', anchor: 'middle' }));
  marks.push(txt(theme, { x: x + width, y: ly, text: labels[2], baseline: 'hanging', anchor: 'end' }));
  return { marks, height: ly + theme.fontSize + 4 - y };
}
