/**
 * `error-recovery` (MTRouter Fig. 4): after a turn with an error, how often the next turn switches model and
 * how often it is error-free — overall, after staying on the model and after switching. Grouped bars (one
 * bar per run, run colours) with Wilson 95% intervals as whiskers. Runs without a turn with an error are
 * left out (a note names them): they have nothing to show but four "n/a"s. The runs drawn are the selection's
 * (common.ts drawnSplit), in the colours they have in every figure; a note names the others.
 */
import { scaleBand, scaleLinear } from 'd3';
import type { ErrorRecoveryResult, RecoveryGroup } from '../../analysisResults.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, legend } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { fmtCount, fmtPct } from '../format.ts';
import type { Mark, Scene } from '../scene.ts';
import { drawnSplit, emptyNote, leftOutNote, namesNote, scene } from './common.ts';
import { textWidth } from '../text.ts';
import { padLinear } from '../plotPadding.ts';

type Metric = 'p_switch' | 'p_recover' | 'p_recover_stay' | 'p_recover_switch';

export const RECOVERY_METRICS: { key: Metric; label: string; what: string; n: (g: RecoveryGroup) => number }[] = [
  { key: 'p_switch', label: 'switch at t+1', what: 'P(switch model at t+1 | error at t)', n: (g) => g.n },
  { key: 'p_recover', label: 'no error at t+1', what: 'P(no error at t+1 | error at t)', n: (g) => g.n },
  { key: 'p_recover_stay', label: 'no error | stayed', what: 'P(no error at t+1 | error at t, same model)', n: (g) => g.n_stay },
  { key: 'p_recover_switch', label: 'no error | switched', what: 'P(no error at t+1 | error at t, switched)', n: (g) => g.n_switch },
];

export function errorRecoveryLayout(result: ErrorRecoveryResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const marks: Mark[] = [];
  const { shown, omitted, colorOf } = drawnSplit(ctx, result.groups, (g) => g.run);
  const groups = shown.filter((g) => g.n > 0);
  const noErrors = shown.filter((g) => g.n === 0).map((g) => g.run);
  const leg = legend(groups.map((g) => ({ label: `${g.run} (${fmtCount(g.n)} error turns)`, color: colorOf(g.run), series: g.run })), 12, 8, width - 24, theme, 'run');
  marks.push(...leg.marks);
  let top = 8 + leg.height + 6;
  const notDrawn = leftOutNote(ctx, omitted.map((g) => g.run), 12, top, width - 24);
  marks.push(...notDrawn.marks);
  top += notDrawn.height + (notDrawn.height ? 2 : 0);
  const clean = namesNote(ctx, 'Not drawn, no turn with an error', noErrors, 12, top, width - 24);
  marks.push(...clean.marks);
  top += clean.height + 10;
  const height = ctx.height ?? top + Math.max(260, Math.min(380, width * 0.45));
  const title = 'What follows a turn with an error: switching and recovery, with 95% intervals';
  if (groups.length === 0) {
    marks.push(emptyNote(ctx, width / 2, top + 60, 'No turn with an error in the selected runs.'));
    return scene(ctx, top + 120, title, marks);
  }
  const bottom = height - bottomAxisHeight({ theme, label: 'x' });
  // Headroom: a bar at exactly 100% and its interval's cap stay below the top of the plot.
  const y = padLinear(scaleLinear().domain([0, 1]).range([bottom, top]), 0, 12);
  const yOpts = { theme, label: 'share of turn pairs (%)', format: (v: number) => `${Math.round(v * 100)}%` };
  const left = 12 + leftAxisWidth(y, yOpts);
  const x = scaleBand<string>().domain(RECOVERY_METRICS.map((m) => m.label)).range([left, width - 12]).paddingInner(0.2).paddingOuter(0.1);
  const inner = scaleBand<string>().domain(groups.map((g) => g.run)).range([0, x.bandwidth()]).paddingInner(0.08);
  marks.push(...leftAxis(y, left, { ...yOpts, grid: width - 12 - left }));
  marks.push(...bottomAxis(x, bottom, { theme, label: 'after a turn with an error (t), the next turn (t+1)…', maxLabelWidth: x.step() - 6 }));
  groups.forEach((g) => {
    for (const m of RECOVERY_METRICS) {
      const v = g[m.key];
      const n = m.n(g);
      const bx = (x(m.label) as number) + (inner(g.run) as number);
      const bw = inner.bandwidth();
      if (v === null) {
        // No pair in this split (e.g. never switched after an error). Written upright when the bar is too narrow.
        const upright = bw < textWidth('n/a', theme.fontSize - 1) + 2;
        marks.push({
          type: 'text', x: bx + bw / 2, y: bottom - 4, text: 'n/a', fontSize: theme.fontSize - 1, anchor: upright ? 'start' : 'middle',
          baseline: upright ? 'middle' : 'alphabetic', rotate: upright ? -90 : undefined, fill: theme.mutedText, role: 'na', series: g.run,
          datum: { lines: [`run ${g.run}`, `${m.what}: no turn pair in this split`, `n = 0 turn pairs`] },
        });
        continue;
      }
      const [lo, hi] = g.ci[m.key];
      marks.push({
        type: 'rect', x: bx, y: y(v), width: bw, height: bottom - y(v), fill: colorOf(g.run), role: 'bar', series: g.run,
        datum: {
          lines: [`run ${g.run}`, `${m.what} = ${fmtPct(v)}`, `95% CI ${fmtPct(lo)}–${fmtPct(hi)} (Wilson)`, `k = ${fmtCount(Math.round(v * n))} of n = ${fmtCount(n)} turn pairs`],
          link: { kind: 'episodes', runs: [g.run], label: `episodes of ${g.run}` },
        },
      });
      const cx = bx + bw / 2;
      marks.push({ type: 'line', x1: cx, x2: cx, y1: y(lo), y2: y(hi), stroke: theme.text, strokeWidth: 1.2, role: 'ci' });
      for (const yy of [lo, hi]) marks.push({ type: 'line', x1: cx - Math.min(5, bw / 3), x2: cx + Math.min(5, bw / 3), y1: y(yy), y2: y(yy), stroke: theme.text, strokeWidth: 1.2 });
    }
  });
  return scene(ctx, height, title, marks);
}
