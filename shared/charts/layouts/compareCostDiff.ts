/**
 * The Compare view's cost-difference histogram: per paired task, B's mean cost per episode minus A's, in bins,
 * with the zero line (left of it B was cheaper) and the mean difference. Tasks whose cost is unknown on a side
 * have no difference: they are counted in a note, never binned as $0.
 */
import { bin, max, mean, scaleLinear } from 'd3';
import type { CompareResult } from '../../apiCompare.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, legend } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { toCsv } from '../csv.ts';
import { fmtUsd } from '../format.ts';
import type { Mark, Scene } from '../scene.ts';
import { emptyNote, scene } from './common.ts';
import { noteLines, sideColors, sideName, signed } from './compareCommon.ts';

/** Bins of the per-task differences, the same in the figure and its CSV. */
export function costDiffBins(result: CompareResult) {
  const diffs = result.tasks.flatMap((t) => (t.d_cost === null ? [] : [t.d_cost]));
  const lo = Math.min(0, ...diffs);
  const hi = Math.max(0, ...diffs);
  const scale = scaleLinear().domain(lo === hi ? [-1e-6, 1e-6] : [lo, hi]).nice();
  const bins = bin().domain(scale.domain() as [number, number]).thresholds(scale.ticks(Math.min(40, Math.max(8, Math.round(Math.sqrt(diffs.length) * 2)))))(diffs);
  return { diffs, domain: scale.domain() as [number, number], bins: bins.map((b) => ({ x0: b.x0 as number, x1: b.x1 as number, n: b.length })) };
}

const signedUsd = (v: number) => signed(v, fmtUsd);

export function compareCostDiffLayout(result: CompareResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const title = 'Per-task cost difference, B − A (mean cost per episode)';
  const height = ctx.height ?? Math.round(Math.min(420, Math.max(260, width * 0.45)));
  const { diffs, domain, bins } = costDiffBins(result);
  const avg = mean(diffs);
  const marks: Mark[] = [];
  const sideColor = sideColors(result);
  const leg = legend(
    [
      { label: 'B cheaper', color: sideColor.b, shape: 'rect', series: sideName(result, 'b') },
      { label: 'A cheaper', color: sideColor.a, shape: 'rect', series: sideName(result, 'a') },
      { label: 'no difference', color: theme.reference, shape: 'line' },
      ...(avg !== undefined ? [{ label: `mean ${signedUsd(avg)}`, color: theme.text, shape: 'line' as const, dash: '4 3' }] : []),
    ],
    12, 8, width - 24, theme,
  );
  marks.push(...leg.marks);
  const top = 8 + leg.height + 12;
  const bottom = height - bottomAxisHeight({ theme, label: 'x' }) - 2 * (fs + 4) - 8;
  const y = scaleLinear().domain([0, max(bins, (b) => b.n) || 1]).nice().range([bottom, top]);
  const yOpts = { theme, label: 'paired tasks', format: (v: number) => (Number.isInteger(v) ? String(v) : '') };
  const left = 12 + leftAxisWidth(y, yOpts);
  const right = width - 28; // room for the last tick label, which is centred on the axis end
  const x = scaleLinear().domain(domain).range([left, right]);
  marks.push(...leftAxis(y, left, { ...yOpts, grid: right - left, ticks: Math.min(4, max(bins, (b) => b.n) || 1) }));
  marks.push(...bottomAxis(x, bottom, { theme, label: 'B − A cost per episode ($)', format: signedUsd, ticks: Math.max(3, Math.floor((right - left) / 90)) }));

  if (diffs.length === 0) {
    marks.push(emptyNote(ctx, (left + right) / 2, (top + bottom) / 2, 'No paired task has a known cost on both sides.'));
  }
  for (const b of bins) {
    if (b.n === 0) continue;
    const mid = (b.x0 + b.x1) / 2;
    const cheaper = mid < 0 ? 'b' : mid > 0 ? 'a' : null;
    const fill = cheaper ? sideColor[cheaper] : theme.muted;
    marks.push({
      type: 'rect', x: x(b.x0) + 0.5, y: y(b.n), width: Math.max(1, x(b.x1) - x(b.x0) - 1), height: bottom - y(b.n), fill, role: 'bar',
      ...(cheaper ? { series: sideName(result, cheaper) } : {}),
      datum: { lines: [`B − A from ${signedUsd(b.x0)} to ${signedUsd(b.x1)} per episode`, `${b.n} of n = ${diffs.length} paired tasks`] },
    });
  }
  if (diffs.length > 0) {
    marks.push({ type: 'line', x1: x(0), x2: x(0), y1: top, y2: bottom, stroke: theme.reference, strokeWidth: 1.5, role: 'zero' });
  }
  if (avg !== undefined) {
    marks.push({ type: 'line', x1: x(avg), x2: x(avg), y1: top, y2: bottom, stroke: theme.text, strokeWidth: 1.5, dash: '4 3', role: 'mean' });
  }
  const unknown = result.tasks.length - diffs.length;
  const cheaper = diffs.filter((d) => d < 0).length;
  // The unknown count first: it is the part a narrow figure must not cut.
  const note = `${unknown > 0 ? `${unknown} with an unknown cost not drawn · ` : ''}B cheaper on ${cheaper}, A cheaper on ${diffs.filter((d) => d > 0).length} of n = ${diffs.length} paired tasks with known costs`;
  marks.push(...noteLines(note, 12, height - 6, width - 24, ctx));
  return scene(ctx, height, title, marks);
}

export function compareCostDiffCsv(result: CompareResult): string {
  return toCsv(['bin_from_usd', 'bin_to_usd', 'tasks'], costDiffBins(result).bins.map((b) => [b.x0, b.x1, b.n]));
}
