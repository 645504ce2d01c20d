/**
 * `usage-by-turn` (MTRouter Fig. 5): for each run, the share of each model at each turn index as stacked
 * bars in the models' colours (small multiples, one panel per run, same axes unless run lengths differ a lot). Late turn indices reached by
 * few episodes are cut (fewer than 5% of the episodes, at least 3) and the figure says so. The panels are the
 * selection's drawn runs (common.ts drawnSplit), as in every figure; a note names the others.
 */
import { max, scaleBand, scaleLinear } from 'd3';
import type { UsageByTurnResult } from '../../analysisResults.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, legend, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { distinctModelColors } from '../palette.ts';
import { fmtCount, fmtPct } from '../format.ts';
import type { Mark, Scene } from '../scene.ts';
import { drawnSplit, emptyNote, leftOutNote, panelGrid, scene } from './common.ts';
import { ownValue } from '../../nameKeyed.ts';

/** Height of the strip under each panel that counts the episodes reaching each turn index, and its gap above. */
const COUNT_STRIP = 28;
const COUNT_GAP = 10;
export const COUNT_NOTE = 'Under each panel: n, the episodes that reach each turn index (the number at its left is the most)';

/** Turn indices kept for a run: while at least max(3, 5% of the episodes at t = 0) episodes reach them. */
export function keptTurns(turns: UsageByTurnResult['runs'][number]['turns']) {
  const n0 = turns[0]?.n ?? 0;
  const min = Math.max(3, Math.ceil(n0 * 0.05));
  return turns.filter((t) => t.n >= min || t.t === 0);
}

export function usageByTurnLayout(result: UsageByTurnResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const marks: Mark[] = [];
  // The demo's 54 runs made a figure 6,700 px tall with 2,000 hover marks: the drawn runs only.
  const { shown, omitted } = drawnSplit(ctx, result.runs, (r) => r.run);
  const models = [...new Set(shown.flatMap((r) => r.turns.flatMap((t) => Object.keys(t.shares))))].sort((a, b) => a.localeCompare(b));
  const modelColor = distinctModelColors(ctx.modelColor, models);
  const leg = legend(models.map((m) => ({ label: m, color: modelColor(m), series: m })), 12, 8, width - 24, theme, 'model');
  marks.push(...leg.marks);
  let top = 8 + leg.height + 10;
  const title = 'Share of each model at each turn index';
  if (result.runs.length === 0) {
    marks.push(emptyNote(ctx, width / 2, top + 60, 'No turns in the selected runs.'));
    return scene(ctx, top + 120, title, marks);
  }
  const notDrawn = leftOutNote(ctx, omitted.map((r) => r.run), 12, top, width - 24);
  marks.push(...notDrawn.marks);
  top += notDrawn.height + (notDrawn.height ? 4 : 0);
  const kept = shown.map((r) => ({ run: r.run, all: r.turns.length, turns: keptTurns(r.turns) }));
  if (kept.some((k) => k.turns.length < k.all)) {
    marks.push({ type: 'text', x: 12, y: top, text: 'late turn indices reached by fewer than 5% of episodes (min 3) are not shown', fontSize: fs, fill: theme.mutedText, baseline: 'hanging', role: 'note' });
    top += fs + 8;
  }
  // A share at a late turn index rests on the few episodes that got there: each panel counts them under its bars.
  marks.push({ type: 'text', x: 12, y: top, text: COUNT_NOTE, fontSize: fs, fill: theme.mutedText, baseline: 'hanging', role: 'note' });
  top += fs + 8;
  // Panels share the turn axis so they compare index for index, unless one run's episodes are less than half
  // as long as the longest's: then each panel spans its own turns (a 3-turn run squeezed into a 45-turn axis
  // was three slivers).
  const maxOf = (k: (typeof kept)[number]): number => max(k.turns, (t) => t.t) ?? 0;
  const longest = max(kept, maxOf) ?? 0;
  const shared = kept.every((k) => maxOf(k) * 2 >= longest);
  const { cols, panelWidth } = panelGrid(kept.length, width - 24, 320);
  const panelH = 230 + COUNT_STRIP + COUNT_GAP;
  const y0 = scaleLinear().domain([0, 1]);
  const yOpts = { theme, label: 'share of turns', format: (v: number) => `${Math.round(v * 100)}%` };
  const axisW = leftAxisWidth(y0, yOpts);
  kept.forEach((k, i) => {
    const px = 12 + (i % cols) * (panelWidth + 24);
    const py = top + Math.floor(i / cols) * (panelH + 16);
    marks.push(panelTitle(`run: ${k.run}`, px + axisW, py, panelWidth - axisW, theme));
    const plotTop = py + fs + 10;
    const bottom = py + panelH - bottomAxisHeight({ theme, label: 'x' });
    const barsBottom = bottom - COUNT_STRIP - COUNT_GAP;
    const y = y0.copy().range([barsBottom, plotTop]);
    const maxT = shared ? longest : Math.max(maxOf(k), 4);
    const x = scaleBand<string>().domain(Array.from({ length: maxT + 1 }, (_, t) => String(t))).range([px + axisW, px + panelWidth]).paddingInner(0.1);
    marks.push(...leftAxis(y, px + axisW, { ...yOpts, ticks: 4 }));
    const every = Math.max(1, Math.ceil((maxT + 1) / Math.max(2, Math.floor((x.range()[1] - x.range()[0]) / 28))));
    const xAxis = bottomAxis(x, bottom, { theme, label: 'turn index t' });
    // Thin the tick labels so they do not collide on long episodes.
    marks.push(...xAxis.filter((m) => !(m.type === 'text' && m.role === 'tick-label' && Number(m.text) % every !== 0)));
    for (const t of k.turns) {
      let acc = 0;
      const bx = x(String(t.t)) as number;
      for (const model of models) {
        const share = ownValue(t.shares, model) ?? 0;
        if (share <= 0) continue;
        marks.push({
          type: 'rect', x: bx, y: y(acc + share), width: x.bandwidth(), height: y(acc) - y(acc + share), fill: modelColor(model), role: 'segment', series: model,
          datum: {
            lines: [`run ${k.run}, turn ${t.t}`, `${model}: ${fmtPct(share)} of turns`, `${fmtCount(Math.round(share * t.n))} of n = ${fmtCount(t.n)} episodes reaching turn ${t.t}`],
            link: { kind: 'episodes', runs: [k.run], models: [model], label: `${k.run} episodes using ${model}` },
          },
        });
        acc += share;
      }
    }
    // The count strip: episodes reaching each turn index, on the panel's turn axis.
    const most = max(k.turns, (t) => t.n) ?? 0;
    const n0 = k.turns[0]?.n ?? 0;
    marks.push({ type: 'text', x: px + axisW - 6, y: bottom - COUNT_STRIP, text: fmtCount(most), fontSize: fs - 1, anchor: 'end', baseline: 'hanging', fill: theme.mutedText, role: 'count-max' });
    marks.push({ type: 'text', x: px + axisW - 6, y: bottom, text: 'n', fontSize: fs - 1, anchor: 'end', baseline: 'alphabetic', fill: theme.mutedText, role: 'count-label' });
    for (const t of k.turns) {
      const h = most > 0 ? Math.max(1, (COUNT_STRIP * t.n) / most) : 0;
      marks.push({
        type: 'rect', x: x(String(t.t)) as number, y: bottom - h, width: x.bandwidth(), height: h, fill: theme.sequential(0.55), role: 'count',
        datum: {
          lines: [`run ${k.run}, turn ${t.t}`, `n = ${fmtCount(t.n)} episodes reach turn ${t.t}`, `${fmtPct(n0 > 0 ? t.n / n0 : null)} of the ${fmtCount(n0)} at turn 0`],
          link: { kind: 'episodes', runs: [k.run], label: `episodes of ${k.run}` },
        },
      });
    }
  });
  const rows = Math.ceil(kept.length / cols);
  return scene(ctx, top + rows * (panelH + 16), `${title}${kept.length > 1 ? `, ${kept.length} runs side by side` : ''}`, marks);
}
