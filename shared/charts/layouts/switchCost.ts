/**
 * `switch-cost` (MTRouter Fig. 3), two panels over successful episodes, runs in run colours: left, episodes
 * at (switches, episode cost) and the run's mean cost per switch count as a line; right, the mean cumulative
 * cost by turn.
 *
 * Up to SWITCH_COST_MAX_POINTS episodes the left panel draws one dot per episode (a little horizontal jitter
 * so equal switch counts do not pile up). Past that it bins: each run gets a narrow column beside the other
 * runs at every switch count, cut into cost bins, and each non-empty bin is one rect whose darkness is its
 * share of the run's episodes, with its exact n on hover. Every episode is counted (an outlier is a pale
 * cell of n = 1, linked to its episode), the figure keeps under ~2,000 interactive marks (12k dots froze
 * the window for 200–400 ms at 470k turns), and the means are computed from every episode either way.
 * The runs drawn are the selection's (common.ts drawnSplit), in the colours they have in every figure; a note
 * names the others.
 */
import { line, max, scaleLinear } from 'd3';
import type { SwitchCostResult, SwitchCostRun } from '../../analysisResults.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, legend, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { fmtCount, fmtPct, fmtUsd, fmtUsdTicks } from '../format.ts';
import type { Mark, Scene } from '../scene.ts';
import { textWidth } from '../text.ts';
import { drawnSplit, emptyNote, jitter, leftOutNote, scene } from './common.ts';

/** Past this many episodes (over the runs drawn) the scatter is binned. */
export const SWITCH_COST_MAX_POINTS = 1500;
/** Most bins the binned scatter draws (cost bins are halved until the non-empty ones fit). */
export const SWITCH_COST_MAX_CELLS = 1200;
/** Most hover points per cumulative-cost curve; the curve itself uses every turn index. */
const CURVE_MAX_POINTS = 60;

interface Bin {
  run: number;
  col: number;
  bin: number;
  n: number;
  /** The episode, when the bin holds exactly one. */
  only: SwitchCostRun['episodes'][number] | null;
}

function binEpisodes(runs: SwitchCostRun[], colOf: (switches: number) => number, binOf: (cost: number) => number): Map<string, Bin> {
  const bins = new Map<string, Bin>();
  runs.forEach((r, run) => {
    for (const e of r.episodes) {
      const col = colOf(e.switches);
      const bin = binOf(e.cost);
      const key = `${run}:${col}:${bin}`;
      const b = bins.get(key);
      if (b) {
        b.n++;
        b.only = null;
      } else bins.set(key, { run, col, bin, n: 1, only: e });
    }
  });
  return bins;
}

export function switchCostLayout(result: SwitchCostResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const marks: Mark[] = [];
  const { shown: runs, omitted, colorOf: colorOfRun } = drawnSplit(ctx, result.runs, (r) => r.run);
  const runColor = (i: number) => colorOfRun(runs[i]!.run);
  const leg = legend(
    runs.map((r, i) => ({ label: `${r.run} (${fmtCount(r.episodes.length)})`, color: runColor(i), shape: 'circle' as const, series: r.run })), 12, 8, width - 24, theme, 'run (successful episodes)',
  );
  marks.push(...leg.marks);
  const title = 'Switches per successful episode against its cost, and mean cumulative cost by turn';
  const total = runs.reduce((a, r) => a + r.episodes.length, 0);
  const binned = total > SWITCH_COST_MAX_POINTS;
  let top = 8 + leg.height + 6;
  const notDrawn = leftOutNote(ctx, omitted.map((r) => r.run), 12, top, width - 24);
  marks.push(...notDrawn.marks);
  top += notDrawn.height + (notDrawn.height ? 4 : 0);
  if (binned) {
    marks.push({
      type: 'text', x: 12, y: top, role: 'note', fontSize: fs, fill: theme.mutedText, baseline: 'hanging',
      text: `${fmtCount(total)} episodes binned: a cell's darkness is its share of the run's episodes (hover for n); means use every episode`,
    });
    top += fs + 6;
  }
  top += 4;
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
  const yAxisOpts = { theme, label: 'episode cost ($)', tickFormat: fmtUsdTicks };
  const left = 12 + leftAxisWidth(yCost, yAxisOpts);
  const xSw = scaleLinear().domain([-0.5, Math.max(1, maxSwitch) + 0.5]).range([left, 12 + panelW]);
  const xTicks = Math.min(maxSwitch + 1, 8);
  marks.push(panelTitle('Cost vs model switches', left, top, panelW - (left - 12), theme));
  marks.push(...leftAxis(yCost, left, { ...yAxisOpts, grid: 12 + panelW - left }));
  marks.push(...bottomAxis(xSw, bottom, { theme, label: 'model switches in the episode', ticks: xTicks, format: (v) => (Number.isInteger(v) ? String(v) : '') }));

  // Binned: a column per `kStep` switch counts, each run a sub-column at least 3 px wide.
  const plotW = 12 + panelW - left;
  const kStep = Math.max(1, Math.ceil((maxSwitch + 1) / Math.max(1, Math.floor(plotW / (3 * runs.length + 2)))));
  const colW = xSw(kStep - 0.5) - xSw(-0.5);
  const subW = (colW - 2) / runs.length;
  /** Where run `ri`'s mean at k sits: k itself (dots), or shifted as far as the run's sub-column is from its column's middle (bins). */
  const runX = (k: number, ri: number): number => (binned ? xSw(k) + 1 + (ri + 0.5) * subW - colW / 2 : xSw(k));
  if (binned) {
    const [c0, c1] = yCost.domain() as [number, number];
    let nBins = Math.max(4, Math.floor((yCost.range()[0] as number) - (yCost.range()[1] as number)) >> 3);
    const binAt = (n: number): Map<string, Bin> =>
      binEpisodes(runs, (k) => Math.floor(k / kStep), (cost) => Math.min(n - 1, Math.max(0, Math.floor(((cost - c0) / (c1 - c0)) * n))));
    let bins = binAt(nBins);
    while (bins.size > SWITCH_COST_MAX_CELLS && nBins > 4) {
      nBins = Math.max(4, nBins >> 1);
      bins = binAt(nBins);
    }
    const size = (c1 - c0) / nBins;
    const most = runs.map(() => 0);
    for (const b of bins.values()) most[b.run] = Math.max(most[b.run] as number, b.n);
    for (const b of bins.values()) {
      const r = runs[b.run] as SwitchCostRun;
      const lo = c0 + b.bin * size;
      const hi = lo + size;
      const k0 = b.col * kStep;
      const k1 = Math.min(maxSwitch, k0 + kStep - 1);
      const ks = k0 === k1 ? `${k0} model switches` : `${k0}–${k1} model switches`;
      const x0 = xSw(k0 - 0.5) + 1 + b.run * subW;
      marks.push({
        type: 'rect', x: x0, y: yCost(hi), width: Math.max(1, subW - (subW > 4 ? 1 : 0)), height: Math.max(1, yCost(lo) - yCost(hi)),
        fill: runColor(b.run), opacity: 0.3 + 0.7 * Math.sqrt(b.n / (most[b.run] as number)), role: 'cell', series: r.run,
        datum: {
          lines: [
            `run ${r.run}: ${ks}`,
            `episode cost ${fmtUsd(lo)}–${fmtUsd(hi)}`,
            `n = ${fmtCount(b.n)} episodes (${fmtPct(b.n / r.episodes.length)} of the run's ${fmtCount(r.episodes.length)})`,
            ...(b.only ? [`episode ${b.only.episode}: ${b.only.switches} switches in ${b.only.turns} turns, ${fmtUsd(b.only.cost)}`] : []),
          ],
          link: b.only
            ? { kind: 'episode-ref', ext_id: b.only.episode, run: r.run }
            : { kind: 'episodes', runs: [r.run], outcome: 'success', label: `successful episodes of ${r.run}` },
        },
      });
    }
  } else {
    runs.forEach((r, ri) => {
      r.episodes.forEach((e, i) => {
        marks.push({
          type: 'circle', cx: xSw(e.switches + jitter(i) * 0.5), cy: yCost(e.cost), r: 3, fill: runColor(ri), opacity: 0.7, role: 'point', series: r.run,
          datum: {
            lines: [`episode ${e.episode} · run ${r.run}`, `${e.switches} model switches in ${e.turns} turns`, `cost ${fmtUsd(e.cost)}`],
            link: { kind: 'episode-ref', ext_id: e.episode, run: r.run },
          },
        });
      });
    });
  }
  runs.forEach((r, ri) => {
    const color = runColor(ri);
    // Mean cost per switch count, over every episode.
    const byK = new Map<number, { sum: number; n: number }>();
    for (const e of r.episodes) {
      const a = byK.get(e.switches) ?? { sum: 0, n: 0 };
      a.sum += e.cost;
      a.n++;
      byK.set(e.switches, a);
    }
    const means = [...byK].sort((a, b) => a[0] - b[0]);
    const d = line<[number, { sum: number; n: number }]>()
      .x(([k]) => runX(k, ri))
      .y(([, a]) => yCost(a.sum / a.n))(means);
    if (d && means.length > 1) marks.push({ type: 'path', d, stroke: color, strokeWidth: 2, role: 'mean-line', series: r.run });
    for (const [k, a] of means) {
      marks.push({
        type: 'rect', x: runX(k, ri) - 4, y: yCost(a.sum / a.n) - 1.5, width: 8, height: 3, fill: color, stroke: theme.outline, strokeWidth: 0.5, role: 'mean', series: r.run,
        datum: { lines: [`run ${r.run}: ${k} switches`, `mean cost ${fmtUsd(a.sum / a.n)}`, `n = ${fmtCount(a.n)} episodes`] },
      });
    }
  });

  // Right: mean cumulative cost by turn.
  const x0 = 12 + panelW + gap;
  const maxT = max(runs, (r) => max(r.mean_cumulative_cost, (p) => p.t)) ?? 0;
  const maxCum = max(runs, (r) => max(r.mean_cumulative_cost, (p) => p.mean)) ?? 0;
  const yCum = scaleLinear().domain([0, maxCum || 1]).nice().range([bottom - 6, plotTop + 6]);
  const yCumOpts = { theme, label: 'mean cumulative cost ($)', tickFormat: fmtUsdTicks };
  const left2 = x0 + leftAxisWidth(yCum, yCumOpts);
  const lastTick = fmtCount(maxT);
  const xT = scaleLinear().domain([0, Math.max(1, maxT)]).range([left2, width - 12 - textWidth(lastTick, fs) / 2]);
  marks.push(panelTitle('Mean cumulative cost by turn', left2, top, width - 12 - left2, theme));
  marks.push(...leftAxis(yCum, left2, { ...yCumOpts, grid: width - 12 - left2 }));
  marks.push(...bottomAxis(xT, bottom, { theme, label: 'turn index t', ticks: 6, format: (v) => (Number.isInteger(v) ? String(v) : '') }));
  const every = Math.max(1, Math.ceil((maxT + 1) / CURVE_MAX_POINTS));
  runs.forEach((r, ri) => {
    const color = runColor(ri);
    const d = line<{ t: number; mean: number }>()
      .x((p) => xT(p.t))
      .y((p) => yCum(p.mean))(r.mean_cumulative_cost);
    if (d) marks.push({ type: 'path', d, stroke: color, strokeWidth: 2, role: 'curve', series: r.run });
    const last = r.mean_cumulative_cost.length - 1;
    r.mean_cumulative_cost.forEach((p, i) => {
      if (i % every !== 0 && i !== last) return;
      marks.push({
        type: 'circle', cx: xT(p.t), cy: yCum(p.mean), r: 2.5, fill: color, role: 'curve-point', series: r.run,
        datum: { lines: [`run ${r.run}, turn ${p.t}`, `mean cumulative cost ${fmtUsd(p.mean)}`, `n = ${fmtCount(p.n)} episodes still running`] },
      });
    });
  });
  return scene(ctx, height, title, marks);
}
