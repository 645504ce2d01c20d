/**
 * `calibration` (DESIGN §8): a reliability diagram of the estimator. Top, mean realised S̃ against mean ŝ per
 * ŝ bin — all selected runs together in the text colour with 95% intervals, each run in its run colour when
 * several are compared — over the y = x diagonal a perfectly calibrated estimator would follow; the legend
 * gives each curve's MAE, Spearman ρ and n. Bottom, the turns per ŝ bin, so a point's weight is visible.
 */
import { line, max, scaleLinear } from 'd3';
import type { CalibrationResult } from '../../analysisResults.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, legend, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { fmtCount, fmtN } from '../format.ts';
import type { Mark, Scene } from '../scene.ts';
import { runColor } from '../theme.ts';
import { emptyNote, scene } from './common.ts';

type Fit = CalibrationResult['overall'];

const fx = (x: number | null, d = 3): string => (x === null ? 'n/a' : x.toFixed(d));

function fitLabel(name: string, f: Fit, inTraining?: boolean | null): string {
  return `${name}${inTraining ? ' (trained on)' : ''}: MAE ${fx(f.mae)}, ρ ${fx(f.spearman, 2)}, n = ${fmtCount(f.n)}`;
}

export function calibrationLayout(result: CalibrationResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const marks: Mark[] = [];
  const title = `Calibration of ${result.estimator ? `estimator ${result.estimator.name}` : 'the estimator'}: realised S̃ against ŝ of the logged model`;
  if (!result.estimator || result.overall.n === 0) {
    marks.push(emptyNote(ctx, width / 2, 60, result.note ?? 'No scored turn with a known outcome in the selected runs.'));
    return scene(ctx, 120, title, marks);
  }
  const perRun = result.runs.length > 1 ? result.runs : [];
  const items = [
    { label: fitLabel('all selected runs', result.overall), color: theme.text, shape: 'circle' as const },
    ...perRun.map((r, i) => ({ label: fitLabel(r.run, r, r.in_training), color: runColor(i), shape: 'line' as const })),
    { label: 'perfect calibration (S̃ = ŝ)', color: theme.reference, shape: 'line' as const, dash: '4 3' },
  ];
  if (perRun.length === 0 && result.runs[0]?.in_training) items[0] = { ...items[0]!, label: `${items[0]!.label} · run ${result.runs[0].run} was in the training data` };
  const leg = legend(items, 12, 8, width - 24, theme);
  marks.push(...leg.marks);
  const top = 8 + leg.height + 10;

  // S̃ can fall below 0 (penalties) and ŝ can stray outside [0, 1]: the axes grow to hold every point and interval.
  const bins = result.overall.bins;
  const values = [0, 1];
  for (const g of [result.overall, ...perRun]) {
    for (const b of g.bins) {
      if (b.mean_s_hat !== null) values.push(b.mean_s_hat);
      if (b.mean_s_tilde !== null) values.push(b.mean_s_tilde);
      if (b.ci) values.push(...b.ci);
    }
  }
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const plotH = ctx.height ? Math.max(160, ctx.height - top - 180) : Math.round(Math.min(360, Math.max(220, width * 0.42)));
  const y = scaleLinear().domain([lo, hi]).nice().range([top + fs + 10 + plotH, top + fs + 10]);
  const yOpts = { theme, label: 'mean realised S̃', format: (v: number) => v.toFixed(1) };
  const histH = 90;
  const maxN = max(bins, (b) => b.n) ?? 1;
  const yn = scaleLinear().domain([0, maxN]).nice(3);
  const nOpts = { theme, label: 'turns', format: (v: number) => fmtCount(v), ticks: 3 };
  const left = 12 + Math.max(leftAxisWidth(y, yOpts), leftAxisWidth(yn.range([0, histH]), nOpts));
  const right = width - 16;
  const x = scaleLinear().domain(y.domain() as [number, number]).range([left, right]);
  const plotTop = y.range()[1] as number;
  const plotBottom = y.range()[0] as number;
  marks.push(panelTitle(`Reliability: mean S̃ per ŝ bin (${bins.length} bins of ${fx(bins[0] ? bins[0].hi - bins[0].lo : null, 2)})`, left, top, right - left, theme));
  marks.push(...leftAxis(y, left, { ...yOpts, grid: right - left }));
  marks.push(...bottomAxis(x, plotBottom, { theme, label: 'mean ŝ(h_t, a_t) in the bin', format: (v) => v.toFixed(1), grid: plotBottom - plotTop }));
  const [d0, d1] = y.domain() as [number, number];
  marks.push({ type: 'line', x1: x(d0), y1: y(d0), x2: x(d1), y2: y(d1), stroke: theme.reference, strokeWidth: 1, dash: '4 3', role: 'diagonal' });

  const curve = (fit: Fit, color: string, name: string, main: boolean) => {
    const pts = fit.bins.filter((b) => b.n > 0 && b.mean_s_hat !== null && b.mean_s_tilde !== null);
    const d = line<(typeof pts)[number]>().x((b) => x(b.mean_s_hat as number)).y((b) => y(b.mean_s_tilde as number))(pts);
    if (d) marks.push({ type: 'path', d, stroke: color, strokeWidth: main ? 2 : 1.5, opacity: main ? 1 : 0.85, role: 'curve' });
    for (const b of pts) {
      const cx = x(b.mean_s_hat as number);
      const lines = [
        `${name}: ŝ in [${b.lo.toFixed(2)}, ${b.hi.toFixed(2)})`,
        `mean ŝ ${fx(b.mean_s_hat)} · mean S̃ ${fx(b.mean_s_tilde)}`,
        b.ci ? `S̃ 95% CI [${b.ci[0].toFixed(3)}, ${b.ci[1].toFixed(3)}]` : 'one turn: no interval',
        `gap S̃ − ŝ ${((b.mean_s_tilde as number) - (b.mean_s_hat as number) >= 0 ? '+' : '')}${((b.mean_s_tilde as number) - (b.mean_s_hat as number)).toFixed(3)}`,
        fmtN(b.n, 'turns'),
      ];
      if (main && b.ci) {
        marks.push({ type: 'line', x1: cx, x2: cx, y1: y(b.ci[0]), y2: y(b.ci[1]), stroke: color, strokeWidth: 1.2, role: 'ci' });
        marks.push({ type: 'line', x1: cx - 3, x2: cx + 3, y1: y(b.ci[0]), y2: y(b.ci[0]), stroke: color, strokeWidth: 1.2 });
        marks.push({ type: 'line', x1: cx - 3, x2: cx + 3, y1: y(b.ci[1]), y2: y(b.ci[1]), stroke: color, strokeWidth: 1.2 });
      }
      const r = main ? 2.5 + 3.5 * Math.sqrt(b.n / maxN) : 3;
      marks.push({ type: 'circle', cx, cy: y(b.mean_s_tilde as number), r, fill: color, stroke: theme.outline, strokeWidth: 1, role: 'point', datum: { lines } });
    }
  };
  perRun.forEach((r, i) => curve(r, runColor(i), `run ${r.run}`, false));
  curve(result.overall, theme.text, 'all selected runs', true);

  // Turns per bin, on the bins' own ŝ ranges.
  const hTop = plotBottom + bottomAxisHeight({ theme, label: 'x' }) + fs + 14;
  yn.range([hTop + histH, hTop]);
  const xb = scaleLinear().domain([0, 1]).range([left, right]);
  marks.push(panelTitle('Turns per ŝ bin (all selected runs)', left, hTop - fs - 8, right - left, theme));
  marks.push(...leftAxis(yn, left, { ...nOpts, grid: right - left }));
  for (const b of bins) {
    if (b.n === 0) continue;
    const x0 = xb(b.lo) + 1;
    const w = Math.max(1, xb(b.hi) - xb(b.lo) - 2);
    marks.push({
      type: 'rect', x: x0, y: yn(b.n), width: w, height: hTop + histH - yn(b.n), fill: theme.sequential(0.55), role: 'bar',
      datum: { lines: [`ŝ in [${b.lo.toFixed(2)}, ${b.hi.toFixed(2)})`, fmtN(b.n, 'turns'), `mean S̃ ${fx(b.mean_s_tilde)}`] },
    });
  }
  marks.push(...bottomAxis(xb, hTop + histH, { theme, label: 'ŝ of the logged model', format: (v) => v.toFixed(1) }));
  return scene(ctx, hTop + histH + bottomAxisHeight({ theme, label: 'x' }) + 10, title, marks);
}
