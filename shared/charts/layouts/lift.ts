/**
 * `lift` heatmap (MTRouter Fig. 6): rows = models, columns = tool / action categories, colour = lift on a
 * log scale around 1 (blue: the model is used less than its share on that tool, orange: more), the value
 * written in the cell. Cells below the minimum count are drawn muted ("too few turns"). Several runs: one
 * heatmap per run, stacked, all with the same rows and columns so they compare cell for cell; a run on one
 * model gets a line instead (its lift is 1 everywhere).
 */
import { scaleBand } from 'd3';
import type { LiftCell, LiftResult } from '../../analysisResults.ts';
import { colorBar, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { distinctModelColors } from '../palette.ts';
import { fmtCount, fmtNum } from '../format.ts';
import { textOn } from '../marks.ts';
import type { Mark, Scene } from '../scene.ts';
import { fitText, textWidth } from '../text.ts';
import { leftOutNote } from './common.ts';

/** Colour position of a lift: log2 clamped to ±2 (a quarter to four times the base rate). */
export function liftColorT(lift: number): number {
  if (!(lift > 0)) return 0;
  return Math.min(1, Math.max(0, (Math.log2(lift) + 2) / 4));
}

/** Models and categories across every panel: models by name, categories by turns (most used first). */
export function liftAxes(result: LiftResult): { models: string[]; categories: string[] } {
  const all = [...result.cells, ...(result.by_run ?? []).flatMap((r) => r.cells)];
  const models = [...new Set(all.map((c) => c.model))].sort((a, b) => a.localeCompare(b));
  const perCat = new Map<string, number>();
  for (const c of result.cells) perCat.set(c.category, (perCat.get(c.category) ?? 0) + c.n);
  for (const c of all) if (!perCat.has(c.category)) perCat.set(c.category, 0);
  const categories = [...perCat].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c]) => c);
  return { models, categories };
}

export function liftLayout(result: LiftResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const panels = result.by_run && result.by_run.length > 0 ? result.by_run.map((r) => ({ title: r.run, run: r.run as string | null, cells: r.cells })) : [{ title: null as string | null, run: null as string | null, cells: result.cells }];
  const { models, categories } = liftAxes(result);
  const modelColor = distinctModelColors(ctx.modelColor, models);
  const marks: Mark[] = [];
  const bar = colorBar(theme.diverging, 12, 8, Math.min(220, width - 24), ['≤ ¼×', '1× (base rate)', '≥ 4×'], 'lift = P(model | tool) / P(model)', theme);
  marks.push(...bar.marks);
  marks.push({ type: 'rect', x: Math.min(220, width - 24) + 36, y: 8 + fs + 5, width: 18, height: 10, fill: theme.background, stroke: theme.muted, strokeWidth: 1 });
  marks.push({ type: 'text', x: Math.min(220, width - 24) + 60, y: 8 + fs + 10, text: '– too few turns (below the minimum n)', fontSize: fs, baseline: 'middle', fill: theme.mutedText });
  let y = 8 + bar.height + 10;
  const notDrawn = leftOutNote(ctx, result.by_run_omitted ?? [], 12, y, width - 24);
  marks.push(...notDrawn.marks);
  y += notDrawn.height + (notDrawn.height ? 6 : 0);
  for (const r of result.by_run_single_model ?? []) {
    marks.push({
      type: 'text', x: 12, y, text: fitText(`run ${r.run}: every turn on ${r.model}, so its lift is 1 for every tool (no panel)`, fs, width - 24),
      fontSize: fs, baseline: 'hanging', fill: theme.mutedText, role: 'note',
    });
    y += fs + 8;
  }

  if (models.length === 0 || categories.length === 0) {
    marks.push({ type: 'text', x: width / 2, y: y + 30, text: 'No cell has enough turns. Lower the minimum n or select more runs.', fontSize: fs + 1, anchor: 'middle', fill: theme.mutedText, role: 'empty' });
    return { width, height: ctx.height ?? y + 60, background: theme.background, fontFamily: theme.fontFamily, title: 'Lift of each model per tool', marks };
  }

  const rowLabelW = Math.min(170, Math.max(...models.map((m) => textWidth(m, fs))) + 4);
  const left = 12 + 14 + rowLabelW + 6;
  const plotW = Math.max(60, width - left - 12);
  const x = scaleBand<string>().domain(categories).range([left, left + plotW]).paddingInner(0.06);
  const cellW = x.bandwidth();
  const catW = Math.max(...categories.map((c) => textWidth(c, fs)));
  const rotate = catW > x.step() - 4;
  const colLabelH = rotate ? Math.min(120, catW) * Math.SQRT1_2 + fs + 6 : fs + 8;
  const cellH = Math.max(18, Math.min(34, cellW));
  const byKey = (cells: LiftCell[]) => new Map(cells.map((c) => [`${c.model}\u0000${c.category}`, c]));

  for (const panel of panels) {
    if (panel.title !== null) {
      marks.push(panelTitle(`run: ${panel.title}`, 12, y, width - 24, theme));
      y += fs + 8;
    }
    const yb = scaleBand<string>().domain(models).range([y, y + cellH * models.length]).paddingInner(0.06);
    const cells = byKey(panel.cells);
    for (const model of models) {
      const ry = yb(model) as number;
      marks.push({ type: 'rect', x: 12, y: ry + yb.bandwidth() / 2 - 5, width: 10, height: 10, fill: modelColor(model), role: 'model-swatch', series: model });
      marks.push({ type: 'text', x: 12 + 14, y: ry + yb.bandwidth() / 2, text: fitText(model, fs, rowLabelW), fontSize: fs, baseline: 'middle', fill: theme.text, role: 'row-label' });
      for (const category of categories) {
        const cx = x(category) as number;
        const c = cells.get(`${model}\u0000${category}`);
        if (!c) {
          // Hidden cells read as "no value", not as a lift near 1: no fill, an outline and a dash.
          marks.push({
            type: 'rect', x: cx + 0.5, y: ry + 0.5, width: cellW - 1, height: yb.bandwidth() - 1, fill: theme.background, stroke: theme.muted, strokeWidth: 1, role: 'cell-hidden',
            datum: { lines: [`${model} · ${category}${panel.run ? ` · run ${panel.run}` : ''}`, 'hidden: fewer turns than the minimum n'] },
          });
          marks.push({ type: 'text', x: cx + cellW / 2, y: ry + yb.bandwidth() / 2, text: '–', fontSize: fs, anchor: 'middle', baseline: 'middle', fill: theme.mutedText });
          continue;
        }
        const fill = theme.diverging(liftColorT(c.lift));
        const lines = [
          `${c.model} · ${c.category}${panel.run ? ` · run ${panel.run}` : ''}`,
          `lift ${c.lift.toFixed(2)}× (95% CI ${fmtNum(c.ci[0])}–${fmtNum(c.ci[1])})`,
          `n = ${fmtCount(c.n)} turns`,
        ];
        marks.push({
          type: 'rect', x: cx, y: ry, width: cellW, height: yb.bandwidth(), fill, role: 'cell',
          datum: {
            lines,
            link: { kind: 'episodes', models: [c.model], runs: panel.run ? [panel.run] : undefined, label: `${c.model} on ${c.category} turns${panel.run ? ` in ${panel.run}` : ''}` },
          },
        });
        if (cellW >= textWidth('0.00', fs - 1) + 4) {
          marks.push({ type: 'text', x: cx + cellW / 2, y: ry + yb.bandwidth() / 2, text: c.lift.toFixed(2), fontSize: fs - 1, anchor: 'middle', baseline: 'middle', fill: textOn(fill), role: 'cell-value' });
        }
      }
    }
    y += cellH * models.length + 4;
    for (const category of categories) {
      const cx = (x(category) as number) + cellW / 2;
      const label = fitText(category, fs, rotate ? 120 : x.step() - 2);
      marks.push(
        rotate
          ? { type: 'text', x: cx, y: y + 2, text: label, fontSize: fs, anchor: 'end', baseline: 'hanging', rotate: -45, fill: theme.mutedText, role: 'col-label' }
          : { type: 'text', x: cx, y: y + 2, text: label, fontSize: fs, anchor: 'middle', baseline: 'hanging', fill: theme.mutedText, role: 'col-label' },
      );
    }
    y += colLabelH + 12;
  }
  return {
    width,
    height: ctx.height ?? Math.ceil(y),
    background: theme.background,
    fontFamily: theme.fontFamily,
    title: `Lift of each model per tool${panels.length > 1 ? `, ${panels.length} runs side by side` : ''}`,
    marks,
  };
}
