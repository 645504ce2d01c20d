/**
 * `usage-ratio` (critique-and-route controller): per run, each model's share of all calls as a horizontal
 * bar in the model's colour, with the target ρ_k as a vertical tick (bars over target are outlined); the
 * share of episodes that used their whole turn budget under the run name; and below, accuracy by the
 * episode's turn limit, one line per run (its legend above the chart, never on the lines). The runs drawn are
 * the selection's (common.ts drawnSplit), in the colours they have in every figure; a note names the others.
 */
import { line, max, scaleLinear } from 'd3';
import type { UsageRatioResult } from '../../analysisResults.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, legend, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { fmtCount, fmtPct } from '../format.ts';
import type { Mark, Scene } from '../scene.ts';
import { fitText, textWidth } from '../text.ts';
import { distinctModelColors } from '../palette.ts';
import { drawnSplit, emptyNote, leftOutNote, scene } from './common.ts';

export function usageRatioLayout(result: UsageRatioResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const marks: Mark[] = [];
  const title = 'Model usage ratio against its target ρ, and accuracy by turn limit';
  let y = 8;
  if (result.runs.length === 0) {
    marks.push(emptyNote(ctx, width / 2, 60, 'No calls in the selected runs.'));
    return scene(ctx, 120, title, marks);
  }
  const { shown: runs, omitted, colorOf: colorOfRun } = drawnSplit(ctx, result.runs, (r) => r.run);
  const hasRho = runs.some((r) => r.usage.some((u) => u.rho !== null));
  if (hasRho) {
    const leg = legend([{ label: 'target ρ', color: theme.reference, shape: 'line' }], 12, y, width - 24, theme);
    marks.push(...leg.marks);
    y += leg.height + 6;
  }
  const notDrawn = leftOutNote(ctx, omitted.map((r) => r.run), 12, y, width - 24);
  marks.push(...notDrawn.marks);
  y += notDrawn.height + (notDrawn.height ? 6 : 0);
  const models = runs.flatMap((r) => r.usage.map((u) => u.model));
  const modelColor = distinctModelColors(ctx.modelColor, models);
  const labelW = Math.min(170, Math.max(...models.map((m) => textWidth(m, fs))) + 20);
  const left = 12 + labelW;
  // Room right of the longest bar for its value ("100.0%").
  const x = scaleLinear().domain([0, 1]).range([left, width - 12 - 4 - textWidth('100.0%', fs - 1)]);
  const rowH = 20;
  runs.forEach((r) => {
    const exhausted = r.exhausted_turn_budget === null ? '' : ` · ${fmtPct(r.exhausted_turn_budget)} of episodes used their whole turn budget`;
    marks.push(panelTitle(`run: ${r.run}`, 12, y, width - 24, theme));
    marks.push({ type: 'text', x: 12, y: y + fs + 6, text: fitText(`${fmtCount(r.calls)} calls${exhausted}`, fs, width - 24), fontSize: fs, baseline: 'hanging', fill: theme.mutedText, role: 'note' });
    y += 2 * fs + 14;
    for (const u of r.usage) {
      const cy = y + rowH / 2;
      marks.push({ type: 'text', x: left - 6, y: cy, text: fitText(u.model, fs, labelW - 6), fontSize: fs, anchor: 'end', baseline: 'middle', fill: theme.text, role: 'row-label' });
      const lines = [`${u.model} in ${r.run}`, `usage ratio ${fmtPct(u.ratio)} (${fmtCount(u.calls)} of n = ${fmtCount(r.calls)} calls)`];
      if (u.rho !== null) {
        const from = u.rho_from === 'log' ? ' (as the run’s log states it)' : u.rho_from === 'request' ? ' (set on this page)' : '';
        lines.push(`target ρ = ${fmtPct(u.rho)}${from} — ${u.over_target ? 'over target' : 'within target'}`);
      }
      marks.push({
        type: 'rect', x: x(0), y: y + 3, width: x(u.ratio) - x(0), height: rowH - 6, fill: modelColor(u.model), series: u.model,
        stroke: u.over_target ? theme.text : undefined, strokeWidth: u.over_target ? 1.5 : undefined, role: 'bar',
        datum: { lines, link: { kind: 'episodes', runs: [r.run], models: [u.model], label: `${r.run} episodes using ${u.model}` } },
      });
      // The value sits after the bar, or after the ρ tick when the tick would cross it.
      let valueX = x(u.ratio) + 4;
      if (u.rho !== null && x(u.rho) >= valueX - 2 && x(u.rho) <= valueX + textWidth(fmtPct(u.ratio), fs - 1) + 2) valueX = x(u.rho) + 5;
      marks.push({ type: 'text', x: valueX, y: cy, text: fmtPct(u.ratio), fontSize: fs - 1, baseline: 'middle', fill: theme.mutedText, role: 'bar-value' });
      if (u.rho !== null) marks.push({ type: 'line', x1: x(u.rho), x2: x(u.rho), y1: y, y2: y + rowH, stroke: theme.reference, strokeWidth: 2, role: 'target' });
      y += rowH;
    }
    y += 10;
  });
  marks.push(...bottomAxis(x, y, { theme, label: 'share of calls (%)', format: (v) => `${Math.round(v * 100)}%` }));
  y += bottomAxisHeight({ theme, label: 'x' }) + 14;

  const acc = runs.filter((r) => r.accuracy_by_max_turns.some((a) => a.accuracy !== null));
  if (acc.length > 0) {
    const colorOf = (r: (typeof runs)[number]) => colorOfRun(r.run);
    marks.push(panelTitle('Accuracy by turn limit (max turns)', 12, y, width - 24, theme));
    y += fs + 8;
    const leg = legend(acc.map((r) => ({ label: r.run, color: colorOf(r), shape: 'line' as const, series: r.run })), 12, y, width - 24, theme, 'run');
    marks.push(...leg.marks);
    y += leg.height + 4;
    const chartH = 200;
    const maxTurns = max(acc, (r) => max(r.accuracy_by_max_turns, (a) => a.max_turns)) ?? 1;
    const yScale = scaleLinear().domain([0, 1]).range([y + chartH - bottomAxisHeight({ theme, label: 'x' }), y + 8]);
    const yOpts = { theme, label: 'accuracy (%)', format: (v: number) => `${Math.round(v * 100)}%`, ticks: 4 };
    const l2 = 12 + leftAxisWidth(yScale, yOpts);
    const xs = scaleLinear().domain([0, maxTurns * 1.04]).nice().range([l2, width - 24]);
    marks.push(...leftAxis(yScale, l2, { ...yOpts, grid: width - 24 - l2 }));
    marks.push(...bottomAxis(xs, yScale.range()[0] as number, { theme, label: 'turn limit of the episode (turns)', ticks: 6 }));
    acc.forEach((r) => {
      const color = colorOf(r);
      const points = r.accuracy_by_max_turns.filter((a) => a.accuracy !== null) as { max_turns: number; n: number; accuracy: number }[];
      const d = line<(typeof points)[number]>().x((a) => xs(a.max_turns)).y((a) => yScale(a.accuracy))(points);
      if (d && points.length > 1) marks.push({ type: 'path', d, stroke: color, strokeWidth: 2, role: 'curve', series: r.run });
      for (const a of points) {
        marks.push({
          type: 'circle', cx: xs(a.max_turns), cy: yScale(a.accuracy), r: 4, fill: color, stroke: theme.outline, strokeWidth: 1, role: 'point', series: r.run,
          datum: { lines: [`run ${r.run}, turn limit ${a.max_turns}`, `accuracy ${fmtPct(a.accuracy)}`, `n = ${fmtCount(a.n)} episodes with an outcome`] },
        });
      }
    });
    y += chartH + 8;
  }
  return scene(ctx, y, title, marks);
}
