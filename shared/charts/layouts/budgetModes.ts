/**
 * `budget-modes` (CoRL): three bar panels side by side — mean score, mean cost ($) and expert-call ratio
 * per budget mode (low / medium / high) — with one bar per run when runs are compared, each with its 95% interval
 * (the means bootstrapped over episodes, the ratio Wilson's); below, when the log has training steps, the
 * expert-call ratio over training steps, one line per mode. Selected runs without a budget mode are named.
 */
import { line, max, scaleBand, scaleLinear } from 'd3';
import type { BudgetModeRow, BudgetModesResult } from '../../analysisResults.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, legend, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { fmtCount, fmtPct, fmtUsd } from '../format.ts';
import type { Mark, Scene } from '../scene.ts';
import { padLinear } from '../plotPadding.ts';
import { fitText } from '../text.ts';
import { drawnSplit, emptyNote, leftOutNote, scene } from './common.ts';

const MODE_DASH: Record<string, string | undefined> = { low: '2 3', medium: '6 3', high: undefined };

type Summary = Omit<BudgetModeRow, 'mode' | 'by_train_step'>;
type Interval = [number, number] | null;

const METRICS: { label: string; axis: string; value: (m: Summary) => number | null; ci: (m: Summary) => Interval; how: string; fmt: (v: number) => string; max?: number }[] = [
  { label: 'Mean score', axis: 'mean normalised score', value: (m) => m.mean_score, ci: (m) => m.ci.mean_score, how: 'bootstrap over episodes', fmt: (v) => v.toFixed(2), max: 1 },
  { label: 'Mean cost', axis: 'mean cost per episode ($)', value: (m) => m.mean_cost, ci: (m) => m.ci.mean_cost, how: 'bootstrap over episodes', fmt: fmtUsd },
  { label: 'Expert-call ratio', axis: 'episodes calling an expert (%)', value: (m) => m.expert_call_ratio, ci: (m) => m.ci.expert_call_ratio, how: 'Wilson', fmt: (v) => `${Math.round(v * 100)}%`, max: 1 },
];

/** The hover line of an interval, or why there is none. */
function ciLine(ci: Interval, how: string, fmt: (v: number) => string): string {
  return ci ? `95% CI ${fmt(ci[0])}–${fmt(ci[1])} (${how})` : 'no interval: fewer than 10 episodes with a value';
}

export function budgetModesLayout(result: BudgetModesResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const marks: Mark[] = [];
  const byRun = result.by_run && result.by_run.length > 1;
  const without = result.runs_without_modes ?? [];
  const pooled = without.length ? 'the selected runs with a budget mode' : 'all selected runs';
  const series = byRun ? result.by_run! : [{ run: pooled, modes: result.modes }];
  const modes = [...new Set(series.flatMap((s) => s.modes.map((m) => m.mode)))];
  // runAnalysis put the selection's drawn runs side by side: each in the colour it has in every figure.
  const { colorOf } = drawnSplit(ctx, series, (s) => s.run);
  const runColor = (i: number) => (byRun ? colorOf(series[i]!.run) : theme.mutedText);
  const leg = legend(series.map((s, i) => ({ label: s.run, color: runColor(i), series: s.run })), 12, 8, width - 24, theme, 'run');
  marks.push(...leg.marks);
  let top = 8 + leg.height + 10;
  const notDrawn = leftOutNote(ctx, result.by_run_omitted ?? [], 12, top - 4, width - 24);
  marks.push(...notDrawn.marks);
  top += notDrawn.height + (notDrawn.height ? 4 : 0);
  if (without.length) {
    // Not left out silently: which selected runs have no episode with a budget mode (all of them in the tooltip).
    const text = `Not drawn, no episode with a budget mode: ${without.join(', ')}`;
    marks.push({
      type: 'text', x: 12, y: top - 4, text: fitText(text, fs, width - 24), fontSize: fs, baseline: 'hanging', fill: theme.mutedText, role: 'note',
      datum: { lines: [`${without.length} selected ${without.length === 1 ? 'run has' : 'runs have'} no episode with a budget mode`, without.slice(0, 40).join(', ') + (without.length > 40 ? `, and ${without.length - 40} more` : '')] },
    });
    top += fs + 8;
  }
  const title = 'Score, cost and expert calls per budget mode';
  if (modes.length === 0) {
    marks.push(emptyNote(ctx, width / 2, top + 60, 'No episode with a budget mode in the selected runs.'));
    return scene(ctx, top + 120, title, marks);
  }
  const gap = 24;
  const panelW = (width - 24 - 2 * gap) / 3;
  const panelH = 240;
  METRICS.forEach((metric, i) => {
    const px = 12 + i * (panelW + gap);
    const values = series.flatMap((s) => s.modes.flatMap((m) => [metric.value(m) ?? 0, metric.ci(m)?.[1] ?? 0]));
    // Headroom above a bar (or interval) at the top of the scale, as at 100%.
    const y = padLinear(scaleLinear().domain([0, metric.max ?? ((max(values) ?? 1) || 1)]).nice().range([top + panelH - bottomAxisHeight({ theme, label: 'x' }), top + fs + 12]), 0, 10);
    const yOpts = { theme, label: metric.axis, format: metric.fmt, ticks: 4 };
    const left = px + leftAxisWidth(y, yOpts);
    const bottom = y.range()[0] as number;
    const x = scaleBand<string>().domain(modes).range([left, px + panelW]).paddingInner(0.25).paddingOuter(0.1);
    const inner = scaleBand<string>().domain(series.map((s) => s.run)).range([0, x.bandwidth()]).paddingInner(0.08);
    marks.push(panelTitle(metric.label, left, top, px + panelW - left, theme));
    marks.push(...leftAxis(y, left, { ...yOpts, grid: px + panelW - left }));
    marks.push(...bottomAxis(x, bottom, { theme, label: 'budget mode' }));
    series.forEach((s, si) => {
      for (const m of s.modes) {
        const v = metric.value(m);
        if (v === null) continue;
        marks.push({
          type: 'rect', x: (x(m.mode) as number) + (inner(s.run) as number), y: y(v), width: inner.bandwidth(), height: bottom - y(v), fill: runColor(si), role: 'bar',
          series: s.run,
          datum: {
            lines: [
              `${s.run} · mode ${m.mode}`, `${metric.label.toLowerCase()}: ${metric.fmt(v)}${metric.label === 'Expert-call ratio' ? ` (${fmtPct(v)})` : ''}`,
              ciLine(metric.ci(m), metric.how, metric.label === 'Expert-call ratio' ? (p) => fmtPct(p) : metric.fmt), `n = ${fmtCount(m.n)} episodes`,
            ],
            link: { kind: 'episodes', runs: s.run === pooled ? undefined : [s.run], label: `episodes in budget mode ${m.mode}` },
          },
        });
        const ci = metric.ci(m);
        if (ci) {
          const cx = (x(m.mode) as number) + (inner(s.run) as number) + inner.bandwidth() / 2;
          const cap = Math.min(5, inner.bandwidth() / 3);
          marks.push({ type: 'line', x1: cx, x2: cx, y1: y(ci[0]), y2: y(ci[1]), stroke: theme.text, strokeWidth: 1.2, role: 'ci' });
          for (const end of ci) marks.push({ type: 'line', x1: cx - cap, x2: cx + cap, y1: y(end), y2: y(end), stroke: theme.text, strokeWidth: 1.2 });
        }
      }
    });
  });
  let y0 = top + panelH + 16;
  const steps = series[0]?.modes.some((m) => m.by_train_step.length > 1) ? series[0] : undefined;
  if (steps) {
    // Training curve of the first series (the usual case is one controller run).
    const all = steps.modes.flatMap((m) => m.by_train_step);
    // The line legend sits above the chart, never on the lines.
    const leg2 = legend(steps.modes.map((m) => ({ label: `mode ${m.mode}`, color: theme.text, shape: 'line' as const, dash: MODE_DASH[m.mode] })), 12, y0 + fs + 8, width - 24, theme);
    marks.push(...leg2.marks);
    y0 += leg2.height + 6;
    const chartH = 230;
    const x = scaleLinear().domain([0, max(all, (p) => p.train_step) ?? 1]).range([0, 1]);
    const y = scaleLinear().domain([0, 1]).range([y0 + chartH - bottomAxisHeight({ theme, label: 'x' }), y0 + fs + 12]);
    const yOpts = { theme, label: 'expert-call ratio', format: (v: number) => `${Math.round(v * 100)}%`, ticks: 4 };
    const left = 12 + leftAxisWidth(y, yOpts);
    x.range([left, width - 28]);
    const bottom = y.range()[0] as number;
    marks.push(panelTitle(`Expert-call ratio over training steps (${steps.run})`, 12, y0 - leg2.height - 6, width - 24, theme));
    marks.push(...leftAxis(y, left, { ...yOpts, grid: width - 28 - left }));
    marks.push(...bottomAxis(x, bottom, { theme, label: 'training step', ticks: 6 }));
    for (const m of steps.modes) {
      const d = line<BudgetModeRow['by_train_step'][number]>().x((p) => x(p.train_step)).y((p) => y(p.expert_call_ratio))(m.by_train_step);
      if (d) marks.push({ type: 'path', d, stroke: theme.text, strokeWidth: 1.8, dash: MODE_DASH[m.mode], role: 'curve' });
      for (const p of m.by_train_step) {
        marks.push({
          type: 'circle', cx: x(p.train_step), cy: y(p.expert_call_ratio), r: 3, fill: theme.text, role: 'curve-point',
          datum: {
            lines: [
              `mode ${m.mode}, training step ${p.train_step}`, `expert-call ratio ${fmtPct(p.expert_call_ratio)}`, ciLine(p.ci.expert_call_ratio, 'Wilson', (r) => fmtPct(r)),
              `mean cost ${p.mean_cost === null ? '— (unknown)' : fmtUsd(p.mean_cost)}`, `n = ${fmtCount(p.n)} episodes`,
            ],
          },
        });
      }
    }
    y0 += chartH + 8;
  }
  return scene(ctx, y0, title, marks);
}
