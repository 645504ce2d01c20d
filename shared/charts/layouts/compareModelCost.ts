/**
 * The Compare view's cost per model: one panel per side (side by side when there is room), one bar per model
 * in the model's colour, its main-loop cost solid and its subagent (sidechain) cost stacked after it, lighter.
 * Both panels share the dollar axis, so bar lengths compare across sides. Calls of unknown cost are written
 * after the bar ("+19 calls of unknown cost"); a model whose every call is unknown gets no bar and a dash,
 * never a $0 bar.
 */
import { scaleBand, scaleLinear } from 'd3';
import type { CompareResult, ModelCost } from '../../apiCompare.ts';
import { distinctModelColors } from '../palette.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, legend, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { toCsv } from '../csv.ts';
import { fmtCount, fmtUsd, fmtUsdTicks } from '../format.ts';
import type { Mark, Scene } from '../scene.ts';
import { fitText, textWidth } from '../text.ts';
import { emptyNote, panelGrid, scene } from './common.ts';
import { sideName, type CompareSideKey } from './compareCommon.ts';

export interface ModelBar {
  model: string;
  main: number;
  subagent: number;
  calls: number;
  unknown_calls: number;
  /** Whether any call of this model was in a subagent. */
  has_subagent: boolean;
}

/** One bar per model of a side, costliest first (models with only unknown costs last, by calls). */
export function modelBars(rows: readonly ModelCost[]): ModelBar[] {
  const byModel = new Map<string, ModelBar>();
  for (const r of rows) {
    const bar = byModel.get(r.model) ?? { model: r.model, main: 0, subagent: 0, calls: 0, unknown_calls: 0, has_subagent: false };
    bar[r.scope] += r.cost;
    bar.calls += r.calls;
    bar.unknown_calls += r.unknown_calls;
    if (r.scope === 'subagent') bar.has_subagent = true;
    byModel.set(r.model, bar);
  }
  return [...byModel.values()].sort((a, b) => b.main + b.subagent - (a.main + a.subagent) || b.calls - a.calls || a.model.localeCompare(b.model));
}

const onlyUnknown = (b: ModelBar): boolean => b.unknown_calls === b.calls && b.main + b.subagent === 0;

/** The text after a bar: its known cost and the calls left out of it, or a dash when none is known. */
function barTail(b: ModelBar): string {
  if (onlyUnknown(b)) return `— ${fmtCount(b.unknown_calls)} calls of unknown cost`;
  return `${fmtUsd(b.main + b.subagent)}${b.unknown_calls > 0 ? ` +${fmtCount(b.unknown_calls)} calls of unknown cost` : ''}`;
}

const SUBAGENT_OPACITY = 0.45;
const ROW = 26;

export function compareModelCostLayout(result: CompareResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const title = 'Cost per model on each side: main loop and subagents';
  const sides: CompareSideKey[] = ['a', 'b'];
  const bars = { a: modelBars(result.attribution.a), b: modelBars(result.attribution.b) };
  const marks: Mark[] = [];
  const anySub = bars.a.some((b) => b.has_subagent) || bars.b.some((b) => b.has_subagent);
  // One colour per model across both panels, and no two models of the figure alike.
  const modelColor = distinctModelColors(ctx.modelColor, sides.flatMap((s) => bars[s].map((b) => b.model)));
  const leg = legend(
    [
      { label: 'main loop', color: theme.mutedText, shape: 'rect' },
      ...(anySub ? [{ label: 'subagents (lighter)', color: theme.muted, shape: 'rect' as const }] : []),
    ],
    12, 8, width - 24, theme, 'bar colour = model;',
  );
  marks.push(...leg.marks);
  let top = 8 + leg.height + 10;
  const rowsMax = Math.max(1, bars.a.length, bars.b.length);
  const { cols, panelWidth } = panelGrid(2, width - 24, 340);
  const maxCost = Math.max(...sides.flatMap((s) => bars[s].map((b) => b.main + b.subagent)), 0);
  const x0 = scaleLinear().domain([0, maxCost > 0 ? maxCost * 1.05 : 1]).nice();
  const labelW = Math.min(150, Math.max(60, ...sides.flatMap((s) => bars[s].map((b) => textWidth(b.model, fs) + 8))));
  // Room after the longest bar for its label ("$0.75 +12 calls of unknown cost"), so the unknown count is never cut.
  const tailW = Math.min(panelWidth / 2, 8 + Math.max(0, ...sides.flatMap((s) => bars[s].map((b) => textWidth(barTail(b), fs)))));
  const panelH = fs + 10 + rowsMax * ROW + bottomAxisHeight({ theme, label: 'x' });

  sides.forEach((side, i) => {
    const px = 12 + (i % cols) * (panelWidth + 24);
    const py = top + Math.floor(i / cols) * (panelH + 16);
    marks.push(panelTitle(sideName(result, side), px, py, panelWidth, theme));
    const plotTop = py + fs + 10;
    const plotBottom = plotTop + rowsMax * ROW;
    const left = px + labelW;
    const right = Math.max(left + 40, px + panelWidth - tailW);
    const x = x0.copy().range([left, right]);
    const y = scaleBand<string>().domain(bars[side].map((b) => b.model)).range([plotTop, plotTop + bars[side].length * ROW]).paddingInner(0.25);
    marks.push(...bottomAxis(x, plotBottom, { theme, label: 'cost ($, known calls)', tickFormat: fmtUsdTicks, ticks: Math.max(2, Math.floor((right - left) / 80)), grid: plotBottom - plotTop }));
    if (bars[side].length === 0) {
      marks.push(emptyNote(ctx, (left + right) / 2, (plotTop + plotBottom) / 2, 'No model calls on this side.'));
      return;
    }
    marks.push(...leftAxis(y, left, { theme, maxLabelWidth: labelW - 10 }).filter((m) => m.role !== 'axis-label'));
    for (const b of bars[side]) {
      const by = y(b.model) as number;
      const h = y.bandwidth();
      const color = modelColor(b.model);
      const lines = [
        `${sideName(result, side)} · ${b.model}`,
        `main loop ${fmtUsd(b.main)}${b.has_subagent ? `, subagents ${fmtUsd(b.subagent)}` : ''}`,
        `n = ${fmtCount(b.calls)} calls${b.unknown_calls > 0 ? `, ${fmtCount(b.unknown_calls)} of unknown cost (not in the bar)` : ''}`,
      ];
      const allUnknown = onlyUnknown(b);
      if (!allUnknown) {
        marks.push({ type: 'rect', x: x(0), y: by, width: Math.max(1, x(b.main) - x(0)), height: h, fill: color, role: 'bar-main', datum: { lines }, series: b.model });
        if (b.subagent > 0) {
          marks.push({ type: 'rect', x: x(b.main), y: by, width: Math.max(1, x(b.main + b.subagent) - x(b.main)), height: h, fill: color, opacity: SUBAGENT_OPACITY, stroke: color, strokeWidth: 1, role: 'bar-subagent', datum: { lines }, series: b.model });
        }
      }
      const end = allUnknown ? x(0) : x(b.main + b.subagent);
      const tail = barTail(b);
      marks.push({
        type: 'text', x: end + 4, y: by + h / 2, text: fitText(tail, fs, px + panelWidth - end - 4), fontSize: fs, baseline: 'middle',
        fill: allUnknown ? theme.mutedText : theme.text, role: allUnknown ? 'unknown-cost' : 'bar-label', datum: { lines },
      });
    }
  });
  const rows = Math.ceil(2 / cols);
  top += rows * (panelH + 16);
  return scene(ctx, top, title, marks);
}

export function compareModelCostCsv(result: CompareResult): string {
  const sides: CompareSideKey[] = ['a', 'b'];
  return toCsv(
    ['side', 'side_label', 'model', 'scope', 'calls', 'tokens_in', 'tokens_out', 'tokens_cached', 'tokens_cache_write', 'cost_usd_known', 'unknown_cost_calls'],
    sides.flatMap((s) => result.attribution[s].map((m) => [s.toUpperCase(), result[s].label, m.model, m.scope, m.calls, m.tokens_in, m.tokens_out, m.tokens_cached, m.tokens_cache_write, m.cost, m.unknown_calls])),
  );
}
