/**
 * `calibration`: a reliability diagram of the estimator. Top, the mean realised target (the episode's
 * normalised final score less the penalties of errors from that turn on) against the mean ŝ per ŝ bin — all
 * selected runs together in the text colour with 95% intervals, and each run in its run colour when several
 * are compared (the selection's drawn runs, common.ts drawnSplit, in the colours they have in every figure; a
 * note names the others) — over the diagonal a perfectly calibrated estimator would follow; the legend gives each curve's MAE,
 * Spearman ρ and n. Bottom, the turns per ŝ bin. Both panels share one x axis over ŝ's range, so a bin's
 * bar sits under its point.
 */
import { line, max, scaleLinear } from 'd3';
import type { CalibrationResult } from '../../analysisResults.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, legend, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { fmtCount, fmtN } from '../format.ts';
import type { Mark, Scene } from '../scene.ts';
import { padLinear } from '../plotPadding.ts';
import { drawnSplit, emptyNote, leftOutNote, scene } from './common.ts';

type Fit = CalibrationResult['overall'];

/** The largest dot's radius and outline: the room the plot keeps between its data and its axis lines. */
const POINT_ROOM = 8;

const fx = (x: number | null, d = 3): string => (x === null ? 'n/a' : x.toFixed(d));

function fitLabel(name: string, f: Fit, inTraining?: boolean | null): string {
  return `${name}${inTraining ? ' (trained on)' : ''}: MAE ${fx(f.mae)}, ρ ${fx(f.spearman, 2)}, n = ${fmtCount(f.n)}`;
}

/**
 * The ŝ range the x axis spans: the bins' own edges (equal-width over [0, 1]) widened to any bin mean that
 * strays outside them; never the target's range, which can reach far below 0 and would squeeze the bins.
 */
export function sHatDomain(fits: readonly Fit[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const f of fits) {
    for (const b of f.bins) {
      lo = Math.min(lo, b.lo, b.mean_s_hat ?? b.lo);
      hi = Math.max(hi, b.hi, b.mean_s_hat ?? b.hi);
    }
  }
  return Number.isFinite(lo) && Number.isFinite(hi) && hi > lo ? [lo, hi] : [0, 1];
}

export function calibrationLayout(result: CalibrationResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const marks: Mark[] = [];
  const title = `Calibration of ${result.estimator ? `estimator ${result.estimator.name}` : 'the estimator'}: realised target against ŝ of the logged model`;
  if (!result.estimator || result.overall.n === 0) {
    marks.push(emptyNote(ctx, width / 2, 60, result.note ?? 'No scored turn with a known outcome in the selected runs.'));
    return scene(ctx, 120, title, marks);
  }
  const split = drawnSplit(ctx, result.runs, (r) => r.run);
  const { colorOf } = split;
  const { shown: perRun, omitted } = result.runs.length > 1 ? split : { shown: [], omitted: [] };
  const items = [
    { label: fitLabel('all selected runs', result.overall), color: theme.text, shape: 'circle' as const, series: 'all selected runs' },
    ...perRun.map((r) => ({ label: fitLabel(r.run, r, r.in_training), color: colorOf(r.run), shape: 'line' as const, series: r.run })),
    { label: 'perfect calibration (target = ŝ)', color: theme.reference, shape: 'line' as const, dash: '4 3' },
  ];
  if (perRun.length === 0 && result.runs[0]?.in_training) items[0] = { ...items[0]!, label: `${items[0]!.label} · run ${result.runs[0].run} was in the training data` };
  const leg = legend(items, 12, 8, width - 24, theme);
  marks.push(...leg.marks);
  let top = 8 + leg.height + 10;
  // "All selected runs" still counts the runs without a curve of their own.
  const notDrawn = leftOutNote(ctx, omitted.map((r) => r.run), 12, top - 2, width - 24);
  marks.push(...notDrawn.marks);
  top += notDrawn.height + (notDrawn.height ? 6 : 0);

  // The target can fall below 0 (error penalties): the y axis grows to hold every point and interval.
  const bins = result.overall.bins;
  const values = [0, 1];
  for (const g of [result.overall, ...perRun]) {
    for (const b of g.bins) {
      if (b.mean_s_tilde !== null) values.push(b.mean_s_tilde);
      if (b.ci) values.push(...b.ci);
    }
  }
  const plotH = ctx.height ? Math.max(160, ctx.height - top - 180) : Math.round(Math.min(360, Math.max(220, width * 0.42)));
  // A bin at the lowest or highest value (a first bin at target 0, a last at 1) keeps its whole dot inside the axes.
  const y = padLinear(scaleLinear().domain([Math.min(...values), Math.max(...values)]).nice().range([top + fs + 10 + plotH, top + fs + 10]), POINT_ROOM);
  const yOpts = { theme, label: 'mean realised target', format: (v: number) => v.toFixed(1) };
  const histH = 90;
  const maxN = max(bins, (b) => b.n) ?? 1;
  const yn = scaleLinear().domain([0, maxN]).nice(3);
  const nOpts = { theme, label: 'turns', format: (v: number) => fmtCount(v), ticks: 3 };
  const left = 12 + Math.max(leftAxisWidth(y, yOpts), leftAxisWidth(yn.range([0, histH]), nOpts));
  const right = width - 16;
  // One x scale for both panels: the reliability points and the turn counts line up bin by bin.
  const x = padLinear(scaleLinear().domain(sHatDomain([result.overall, ...perRun])).range([left, right]), POINT_ROOM);
  const xFormat = (v: number) => v.toFixed(1);
  const plotTop = y.range()[1] as number;
  const plotBottom = y.range()[0] as number;
  marks.push(panelTitle(`Reliability: mean realised target per ŝ bin (${bins.length} bins of ${fx(bins[0] ? bins[0].hi - bins[0].lo : null, 2)})`, left, top, right - left, theme));
  marks.push(...leftAxis(y, left, { ...yOpts, grid: right - left }));
  marks.push(...bottomAxis(x, plotBottom, { theme, label: 'mean ŝ in the bin', format: xFormat, grid: plotBottom - plotTop }));
  // The diagonal over the range both axes share.
  const [x0, x1] = x.domain() as [number, number];
  const [y0, y1] = y.domain() as [number, number];
  const d0 = Math.max(x0, y0);
  const d1 = Math.min(x1, y1);
  if (d1 > d0) marks.push({ type: 'line', x1: x(d0), y1: y(d0), x2: x(d1), y2: y(d1), stroke: theme.reference, strokeWidth: 1, dash: '4 3', role: 'diagonal' });

  const curve = (fit: Fit, color: string, name: string, main: boolean, series?: string) => {
    const pts = fit.bins.filter((b) => b.n > 0 && b.mean_s_hat !== null && b.mean_s_tilde !== null);
    const d = line<(typeof pts)[number]>().x((b) => x(b.mean_s_hat as number)).y((b) => y(b.mean_s_tilde as number))(pts);
    if (d) marks.push({ type: 'path', d, stroke: color, strokeWidth: main ? 2 : 1.5, opacity: main ? 1 : 0.85, role: 'curve', ...(series ? { series } : {}) });
    for (const b of pts) {
      const cx = x(b.mean_s_hat as number);
      const gap = (b.mean_s_tilde as number) - (b.mean_s_hat as number);
      const lines = [
        `${name}: ŝ in [${b.lo.toFixed(2)}, ${b.hi.toFixed(2)})`,
        `mean ŝ ${fx(b.mean_s_hat)} · mean realised target ${fx(b.mean_s_tilde)}`,
        b.ci ? `target 95% CI [${b.ci[0].toFixed(3)}, ${b.ci[1].toFixed(3)}]` : 'one turn: no interval',
        `target − ŝ ${gap >= 0 ? '+' : ''}${gap.toFixed(3)}`,
        fmtN(b.n, 'turns'),
      ];
      if (main && b.ci) {
        marks.push({ type: 'line', x1: cx, x2: cx, y1: y(b.ci[0]), y2: y(b.ci[1]), stroke: color, strokeWidth: 1.2, role: 'ci' });
        marks.push({ type: 'line', x1: cx - 3, x2: cx + 3, y1: y(b.ci[0]), y2: y(b.ci[0]), stroke: color, strokeWidth: 1.2 });
        marks.push({ type: 'line', x1: cx - 3, x2: cx + 3, y1: y(b.ci[1]), y2: y(b.ci[1]), stroke: color, strokeWidth: 1.2 });
      }
      const r = main ? 2.5 + 3.5 * Math.sqrt(b.n / maxN) : 3;
      marks.push({ type: 'circle', cx, cy: y(b.mean_s_tilde as number), r, fill: color, stroke: theme.outline, strokeWidth: 1, role: 'point', datum: { lines }, ...(series ? { series } : {}) });
    }
  };
  for (const r of perRun) curve(r, colorOf(r.run), `run ${r.run}`, false, r.run);
  curve(result.overall, theme.text, 'all selected runs', true, 'all selected runs');

  // Turns per bin, on the bins' own ŝ ranges and the reliability panel's x scale.
  const hTop = plotBottom + bottomAxisHeight({ theme, label: 'x' }) + fs + 14;
  yn.range([hTop + histH, hTop]);
  marks.push(panelTitle('Turns per ŝ bin (all selected runs)', left, hTop - fs - 8, right - left, theme));
  marks.push(...leftAxis(yn, left, { ...nOpts, grid: right - left }));
  for (const b of bins) {
    if (b.n === 0) continue;
    const x0b = x(b.lo) + 1;
    const w = Math.max(1, x(b.hi) - x(b.lo) - 2);
    marks.push({
      type: 'rect', x: x0b, y: yn(b.n), width: w, height: hTop + histH - yn(b.n), fill: theme.sequential(0.55), role: 'bar',
      datum: { lines: [`ŝ in [${b.lo.toFixed(2)}, ${b.hi.toFixed(2)})`, fmtN(b.n, 'turns'), `mean realised target ${fx(b.mean_s_tilde)}`] },
    });
  }
  marks.push(...bottomAxis(x, hTop + histH, { theme, label: 'ŝ of the logged model', format: xFormat }));
  return scene(ctx, hTop + histH + bottomAxisHeight({ theme, label: 'x' }) + 10, title, marks);
}
