/**
 * `switch-cost` (MTRouter Fig. 3), two panels over successful episodes, runs overlaid in run colours:
 * left, each episode at (switches, episode cost) with a little horizontal jitter so equal switch counts do
 * not pile up, and the run's mean cost per switch count as a line; right, the mean cumulative cost by turn.
 * Past 1,500 episodes per run the scatter shows an even sample and says so (the means use every episode).
 */
import { line, max, scaleLinear } from 'd3';
import type { SwitchCostResult } from '../../analysisResults.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, legend, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { fmtCount, fmtUsd } from '../format.ts';
import type { Mark, Scene } from '../scene.ts';
import { textWidth } from '../text.ts';
import { runColor } from '../theme.ts';
import { emptyNote, evenSample, jitter, scene } from './common.ts';

export const SWITCH_COST_MAX_POINTS = 1500;

export function switchCostLayout(result: SwitchCostResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const marks: Mark[] = [];
  const runs = result.runs;
  const leg = legend(runs.map((r, i) => ({ label: r.run, color: runColor(i), shape: 'circle' as const })), 12, 8, width - 24, theme, 'run');
  marks.push(...leg.marks);
  const title = 'Switches per successful episode against its cost, and mean cumulative cost by turn';
  const total = runs.reduce((a, r) => a + r.episodes.length, 0);
  const shown = runs.reduce((a, r) => a + Math.min(r.episodes.length, SWITCH_COST_MAX_POINTS), 0);
  let top = 8 + leg.height + 8;
  if (shown < total) {
    marks.push({ type: 'text', x: 12, y: top, text: `scatter shows ${fmtCount(shown)} of ${fmtCount(total)} episodes (an even sample per run); means use all`, fontSize: fs, fill: theme.mutedText, baseline: 'hanging', role: 'note' });
    top += fs + 8;
  }
  const height = ctx.height ?? Math.max(320, top + Math.min(380, width * 0.42));
  if (total === 0) {
    marks.push(emptyNote(ctx, width / 2, top + 60, 'No successful episode in the selected runs.'));
    return scene(ctx, top + 120, title, marks);
  }

  const gap = 36;
  const panelW = (width - 24 - gap) / 2;
  const titleH = fs + 10;
  const bottom = height - bottomAxisHeight({ theme, label: 'x' });
  const plotTop = top + titleH;

  // Left: switches vs cost.
  const maxSwitch = max(runs, (r) => max(r.episodes, (e) => e.switches)) ?? 0;
  const maxCost = max(runs, (r) => max(r.episodes, (e) => e.cost)) ?? 0;
  const yCost = scaleLinear().domain([0, maxCost || 1]).nice().range([bottom - 6, plotTop + 6]);
  const yAxisOpts = { theme, label: 'episode cost ($)', format: fmtUsd };
  const left = 12 + leftAxisWidth(yCost, yAxisOpts);
  const xSw = scaleLinear().domain([-0.5, Math.max(1, maxSwitch) + 0.5]).range([left, 12 + panelW]);
  const xTicks = Math.min(maxSwitch + 1, 8);
  marks.push(panelTitle('Cost vs model switches', left, top, panelW - (left - 12), theme));
  marks.push(...leftAxis(yCost, left, { ...yAxisOpts, grid: 12 + panelW - left }));
  marks.push(...bottomAxis(xSw, bottom, { theme, label: 'model switches in the episode', ticks: xTicks, format: (v) => (Number.isInteger(v) ? String(v) : '') }));
  runs.forEach((r, ri) => {
    const color = runColor(ri);
    evenSample(r.episodes, SWITCH_COST_MAX_POINTS).forEach((e, i) => {
      marks.push({
        type: 'circle', cx: xSw(e.switches + jitter(i) * 0.5), cy: yCost(e.cost), r: 3, fill: color, opacity: 0.7, role: 'point',
        datum: {
          lines: [`episode ${e.episode} · run ${r.run}`, `${e.switches} model switches in ${e.turns} turns`, `cost ${fmtUsd(e.cost)}`],
          link: { kind: 'episode-ref', ext_id: e.episode, run: r.run },
        },
      });
    });
    // Mean cost per switch count (every episode, not the sample).
    const byK = new Map<number, { sum: number; n: number }>();
    for (const e of r.episodes) {
      const a = byK.get(e.switches) ?? { sum: 0, n: 0 };
      a.sum += e.cost;
      a.n++;
      byK.set(e.switches, a);
    }
    const means = [...byK].sort((a, b) => a[0] - b[0]);
    const d = line<[number, { sum: number; n: number }]>()
      .x(([k]) => xSw(k))
      .y(([, a]) => yCost(a.sum / a.n))(means);
    if (d && means.length > 1) marks.push({ type: 'path', d, stroke: color, strokeWidth: 2, role: 'mean-line' });
    for (const [k, a] of means) {
      marks.push({
        type: 'rect', x: xSw(k) - 4, y: yCost(a.sum / a.n) - 1.5, width: 8, height: 3, fill: color, stroke: theme.outline, strokeWidth: 0.5, role: 'mean',
        datum: { lines: [`run ${r.run}: ${k} switches`, `mean cost ${fmtUsd(a.sum / a.n)}`, `n = ${fmtCount(a.n)} episodes`] },
      });
    }
  });

  // Right: mean cumulative cost by turn.
  const x0 = 12 + panelW + gap;
  const maxT = max(runs, (r) => max(r.mean_cumulative_cost, (p) => p.t)) ?? 0;
  const maxCum = max(runs, (r) => max(r.mean_cumulative_cost, (p) => p.mean)) ?? 0;
  const yCum = scaleLinear().domain([0, maxCum || 1]).nice().range([bottom - 6, plotTop + 6]);
  const yCumOpts = { theme, label: 'mean cumulative cost ($)', format: fmtUsd };
  const left2 = x0 + leftAxisWidth(yCum, yCumOpts);
  const lastTick = fmtCount(maxT);
  const xT = scaleLinear().domain([0, Math.max(1, maxT)]).range([left2, width - 12 - textWidth(lastTick, fs) / 2]);
  marks.push(panelTitle('Mean cumulative cost by turn', left2, top, width - 12 - left2, theme));
  marks.push(...leftAxis(yCum, left2, { ...yCumOpts, grid: width - 12 - left2 }));
  marks.push(...bottomAxis(xT, bottom, { theme, label: 'turn index t', ticks: 6, format: (v) => (Number.isInteger(v) ? String(v) : '') }));
  runs.forEach((r, ri) => {
    const color = runColor(ri);
    const d = line<{ t: number; mean: number }>()
      .x((p) => xT(p.t))
      .y((p) => yCum(p.mean))(r.mean_cumulative_cost);
    if (d) marks.push({ type: 'path', d, stroke: color, strokeWidth: 2, role: 'curve' });
    for (const p of r.mean_cumulative_cost) {
      marks.push({
        type: 'circle', cx: xT(p.t), cy: yCum(p.mean), r: 2.5, fill: color, role: 'curve-point',
        datum: { lines: [`run ${r.run}, turn ${p.t}`, `mean cumulative cost ${fmtUsd(p.mean)}`, `n = ${fmtCount(p.n)} episodes still running`] },
      });
    }
  });
  return scene(ctx, height, title, marks);
}
