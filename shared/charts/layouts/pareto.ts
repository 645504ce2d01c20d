/**
 * `pareto`: one point per run at (mean cost per episode, mean normalised score), labelled with the run's
 * name; the frontier joins the non-dominated runs as a staircase; the reference run (when chosen) gets a
 * ring and dashed guides, and every tooltip gives the savings against it. Labels go where they cross no
 * point, label or frontier step; a run without room keeps its name in the tooltip. The runs drawn are the
 * selection's (common.ts drawnSplit: at most MAX_RUNS_DRAWN, in the colours they have in every figure); the
 * figure names the others, and says when its runs are of different task types (scores on scales of their
 * own). The cost axis can be logarithmic for runs whose costs differ by orders of magnitude.
 */
import { max, min, scaleLinear, scaleLog } from 'd3';
import type { ParetoResult } from '../../analysisResults.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, legend } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { fmtCount, fmtPct, fmtUsd, fmtUsdTicks } from '../format.ts';
import { placeLabel, type Box } from '../marks.ts';
import type { Mark, Scene } from '../scene.ts';
import { drawnSplit, leftOutNote, namesNote } from './common.ts';

type Point = ParetoResult['points'][number];

/** "scienceworld (sw-a, sw-b); hle (hle-a)": the task types of the points, when they are more than one. */
export function mixedTaskTypes(points: readonly Point[]): string[] {
  const runsOf = new Map<string, string[]>();
  for (const p of points) for (const t of p.task_types ?? []) runsOf.set(t, [...(runsOf.get(t) ?? []), p.run]);
  if (runsOf.size < 2) return [];
  return [...runsOf].sort(([a], [b]) => a.localeCompare(b)).map(([t, runs]) => `${t} (${runs.join(', ')})`);
}

/** The cost axis: linear from 0, or logarithmic over the positive costs (a zero cost sits at its left end). */
function costScale(points: readonly Point[], log: boolean) {
  if (log) {
    const positive = points.map((p) => p.mean_cost).filter((c) => c > 0);
    const lo = min(positive) ?? 0.001;
    const hi = max(positive) ?? 1;
    return scaleLog().domain([lo / 1.5, Math.max(hi * 1.5, lo * 10)]).nice().clamp(true);
  }
  const xMax = (max(points, (p) => p.mean_cost) ?? 1) * 1.12 || 1;
  return scaleLinear().domain([0, xMax]).nice();
}

/**
 * Labels of a log axis: a log scale ticks every 1–9 × 10^k; only 1, 2 and 5 are labelled (only 1 past three
 * decades), the rest stay as unlabelled ticks, so labels never run into each other.
 */
export function logTickLabel([lo, hi]: [number, number]): (v: number) => string {
  const keep = Math.log10(hi / lo) > 3 ? [1] : [1, 2, 5];
  return (v) => {
    const mantissa = v / 10 ** Math.floor(Math.log10(v) + 1e-9);
    return keep.some((k) => Math.abs(mantissa - k) < 1e-6) ? fmtUsd(v) : '';
  };
}

export function paretoLayout(result: ParetoResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const height = ctx.height ?? Math.round(Math.min(520, Math.max(300, width * 0.62)));
  const marks: Mark[] = [];
  const log = ctx.costAxis === 'log';
  const { shown: points, omitted, colorOf } = drawnSplit(ctx, result.points, (p) => p.run);
  const items = [
    { label: 'run (one point each)', color: theme.mutedText, shape: 'circle' as const },
    { label: 'frontier', color: theme.text, shape: 'line' as const },
    ...(result.reference ? [{ label: `reference: ${result.reference}`, color: theme.reference, shape: 'line' as const, dash: '4 3' }] : []),
  ];
  const leg = legend(items, 12, 8, width - 24, theme);
  marks.push(...leg.marks);
  let top = 8 + leg.height + 8;
  // Said in the figure (and so in its export): runs not drawn, and runs of different task types side by side.
  const mixed = namesNote(ctx, 'Task types differ, and so do their score scales (compare runs within one task type)', mixedTaskTypes(points), 12, top, width - 24, 'task-types');
  const notDrawn = leftOutNote(ctx, omitted.map((p) => p.run), 12, top + mixed.height + (mixed.height ? 2 : 0), width - 24);
  marks.push(...mixed.marks, ...notDrawn.marks);
  // Room under the notes for the top tick label, which is centred on the plot's top edge.
  top += mixed.height + notDrawn.height + (mixed.height || notDrawn.height ? 14 : 4);

  const yAxis = { theme, label: 'mean normalised score', format: (v: number) => v.toFixed(1) };
  // The reference's guides are drawn even when its point is not (the savings in every tooltip are against it).
  const ref = result.points.find((p) => p.run === result.reference);
  const x0 = costScale(ref && !points.includes(ref) ? [...points, ref] : points, log);
  const y = scaleLinear().domain([0, 1]).range([height - bottomAxisHeight({ theme, label: 'x' }) - 4, top]);
  const plotLeft = 12 + leftAxisWidth(y, yAxis);
  const x = x0.range([plotLeft, width - 16]);
  const plotH = (y.range()[0] as number) - top;
  const plotW = width - 16 - plotLeft;
  const xAxis = { theme, label: `mean cost per episode ($${log ? ', log scale' : ''})`, format: log ? logTickLabel(x.domain() as [number, number]) : fmtUsd, tickFormat: log ? undefined : fmtUsdTicks, grid: plotH };
  marks.push(...leftAxis(y, plotLeft, { ...yAxis, grid: plotW }));
  marks.push(...bottomAxis(x, y.range()[0] as number, xAxis));

  if (points.length === 0) {
    marks.push({ type: 'text', x: plotLeft + plotW / 2, y: top + plotH / 2, text: 'No episode with a known outcome in the selected runs.', fontSize: theme.fontSize + 1, anchor: 'middle', fill: theme.mutedText, role: 'empty' });
  }

  if (ref) {
    marks.push({ type: 'line', x1: x(ref.mean_cost), x2: x(ref.mean_cost), y1: top, y2: y(0), stroke: theme.reference, strokeWidth: 1, dash: '4 3', role: 'reference' });
    marks.push({ type: 'line', x1: plotLeft, x2: plotLeft + plotW, y1: y(ref.mean_score), y2: y(ref.mean_score), stroke: theme.reference, strokeWidth: 1, dash: '4 3', role: 'reference' });
  }

  // Frontier as a staircase: from each frontier run (by cost) across to the next, then up to it.
  const frontier = points.filter((p) => p.frontier).sort((a, b) => a.mean_cost - b.mean_cost);
  if (frontier.length > 1) {
    let d = `M${x(frontier[0]!.mean_cost)},${y(frontier[0]!.mean_score)}`;
    for (const p of frontier.slice(1)) d += `H${x(p.mean_cost)}V${y(p.mean_score)}`;
    marks.push({ type: 'path', d, stroke: theme.text, strokeWidth: 1.5, role: 'frontier' });
  }

  // Labels keep clear of every point and of the frontier's steps, not only of each other.
  const placed: Box[] = points.map((p) => ({ x: x(p.mean_cost) - 7, y: y(p.mean_score) - 7, width: 14, height: 14 }));
  for (let i = 1; i < frontier.length; i++) {
    const a = frontier[i - 1]!;
    const b = frontier[i]!;
    const [xa, xb, ya, yb] = [x(a.mean_cost), x(b.mean_cost), y(a.mean_score), y(b.mean_score)];
    placed.push({ x: Math.min(xa, xb), y: ya - 2, width: Math.abs(xb - xa), height: 4 });
    placed.push({ x: xb - 2, y: Math.min(ya, yb), width: 4, height: Math.abs(yb - ya) });
  }
  const bounds: Box = { x: plotLeft, y: top, width: plotW, height: plotH };
  for (const p of points) {
    const cx = x(p.mean_cost);
    const cy = y(p.mean_score);
    const lines = [
      `run ${p.run}${p.run === result.reference ? ' (reference)' : ''}`,
      `mean score ${p.mean_score.toFixed(3)} (normalised 0–1)`,
      `mean cost ${fmtUsd(p.mean_cost)} per episode${log && p.mean_cost <= 0 ? ' (drawn at the left end of the log axis)' : ''}`,
      `n = ${fmtCount(p.n)} episodes with an outcome`,
      ...(p.task_types?.length ? [`task type ${p.task_types.join(', ')}`] : []),
      p.frontier ? 'on the frontier' : 'dominated by another run',
    ];
    if (p.savings_vs_reference !== null && p.run !== result.reference) {
      lines.push(`vs ${result.reference}: ${fmtPct(p.savings_vs_reference)} cheaper, score ${p.score_delta_vs_reference! >= 0 ? '+' : ''}${p.score_delta_vs_reference!.toFixed(3)}`);
    }
    if (p.run === result.reference) marks.push({ type: 'circle', cx, cy, r: 9, stroke: theme.reference, strokeWidth: 1.5, role: 'reference-ring' });
    marks.push({
      type: 'circle', cx, cy, r: 6, fill: colorOf(p.run), stroke: theme.outline, strokeWidth: 1.5, role: 'point', series: p.run,
      datum: { lines, link: { kind: 'episodes', runs: [p.run], label: `episodes of ${p.run}` } },
    });
  }
  for (const p of [...points].sort((a, b) => b.mean_score - a.mean_score)) {
    const at = placeLabel(p.run, x(p.mean_cost), y(p.mean_score), 7, theme.fontSize, placed, bounds);
    if (at) marks.push({ type: 'text', x: at.x, y: at.y, text: p.run, fontSize: theme.fontSize, anchor: at.anchor, baseline: 'middle', fill: theme.text, role: 'point-label' });
  }
  return { width, height, background: theme.background, fontFamily: theme.fontFamily, title: 'Score against cost per run, with the frontier', marks };
}
