/**
 * The Compare view's paired scatter: one point per paired task at (A's score, B's score), so points above the
 * diagonal are tasks B did better on. The point's area grows with the task's cost (the mean of the two sides'
 * mean cost per episode); a task whose cost is unknown on a side is drawn as a ring of the smallest size.
 * Colour says who won the task. Tasks with success but no score use the success rate as their score, as
 * `CompareTask.winner` does. Tasks that sit on the same spot (success only: four corners) are spread a little,
 * always the same way; tooltips give the exact values.
 */
import { scaleLinear, scaleSqrt } from 'd3';
import type { CompareResult, CompareTask } from '../../apiCompare.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, legend } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { toCsv } from '../csv.ts';
import type { Mark, Scene } from '../scene.ts';
import { fitText } from '../text.ts';
import { emptyNote, scene } from './common.ts';
import { noteLines, sideColors, sideName, signed, usdOrDash } from './compareCommon.ts';

const R_MIN = 3;
const R_MAX = 13;

/** The value plotted for a side: its score, else its success rate (null: no outcome). */
export function plottedScore(task: CompareTask, side: 'a' | 'b'): number | null {
  return task[`${side}_score`] ?? task[`${side}_success`];
}

/** The pair's mean cost, or null when either side's is unknown. */
function pairCost(task: CompareTask): number | null {
  return task.a_cost === null || task.b_cost === null ? null : (task.a_cost + task.b_cost) / 2;
}

export function compareScatterLayout(result: CompareResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const title = 'Per-task score of B against A, with cost as point size';
  const marks: Mark[] = [];
  const sideColor = sideColors(result);
  const leg = legend(
    [
      { label: `B wins (${sideName(result, 'b')})`, color: sideColor.b, shape: 'circle', series: sideName(result, 'b') },
      { label: `A wins (${sideName(result, 'a')})`, color: sideColor.a, shape: 'circle', series: sideName(result, 'a') },
      { label: 'tie', color: theme.mutedText, shape: 'circle' },
      { label: 'B = A', color: theme.reference, shape: 'line', dash: '4 3' },
    ],
    12, 8, width - 24, theme,
  );
  marks.push(...leg.marks);
  const top = 8 + leg.height + 12;
  const height = ctx.height ?? Math.round(Math.min(560, Math.max(320, width * 0.7)));

  const drawn = result.tasks.filter((t) => plottedScore(t, 'a') !== null && plottedScore(t, 'b') !== null);
  const yOpts = { theme, label: `B: ${result.b.label} — score`, format: (v: number) => v.toFixed(1) };
  // Two lines of note below the axis: how many tasks, and what size and rings mean.
  const bottom = height - bottomAxisHeight({ theme, label: 'x' }) - 2 * (fs + 4) - 8;
  // A little room past 0 and 1: success-only tasks sit on the corners and must not cover the tick labels.
  const y = scaleLinear().domain([-0.06, 1.06]).range([bottom, top]);
  const left = 12 + leftAxisWidth(y, yOpts);
  // Square plot: the diagonal is at 45°, so "above it" reads at a glance.
  const side = Math.min(width - 16 - left, bottom - top);
  const x = scaleLinear().domain([-0.06, 1.06]).range([left, left + side]);
  y.range([top + side, top]);
  const plotBottom = top + side;
  // Axis titles name runs, which can be long: cut to the plot's side so they never run into the legend or note.
  const axisTitle = (text: string) => fitText(text, fs + 1, side);
  marks.push(...leftAxis(y, left, { ...yOpts, label: axisTitle(yOpts.label), grid: side }));
  marks.push(...bottomAxis(x, plotBottom, { theme, label: axisTitle(`A: ${result.a.label} — score`), format: (v) => v.toFixed(1), grid: side }));
  marks.push({ type: 'line', x1: x(0), y1: y(0), x2: x(1), y2: y(1), stroke: theme.reference, strokeWidth: 1, dash: '4 3', role: 'diagonal' });

  if (drawn.length === 0) {
    const why = result.outcomes_known ? 'No paired task has an outcome on both sides.' : 'No outcomes: only cost and behaviour are compared.';
    marks.push(emptyNote(ctx, left + side / 2, top + side / 2, why));
    return scene(ctx, height, title, marks);
  }

  const costs = drawn.map(pairCost).filter((c): c is number => c !== null);
  const r = scaleSqrt().domain([0, Math.max(...costs, 0) || 1]).range([R_MIN, R_MAX]);
  // Points on the same spot are spread on a small spiral, the same way every time.
  const seen = new Map<string, number>();
  const colorOf = (t: CompareTask) => (t.winner === 'a' || t.winner === 'b' ? sideColor[t.winner] : theme.mutedText);
  // Big points first, so small ones stay on top and hoverable.
  const ordered = [...drawn].sort((p, q) => (pairCost(q) ?? 0) - (pairCost(p) ?? 0));
  for (const t of ordered) {
    const sa = plottedScore(t, 'a') as number;
    const sb = plottedScore(t, 'b') as number;
    const key = `${sa}|${sb}`;
    const k = seen.get(key) ?? 0;
    seen.set(key, k + 1);
    const spread = k === 0 ? 0 : Math.min(22, 3 + 2 * Math.sqrt(k));
    const angle = k * 2.39996; // golden angle
    const cost = pairCost(t);
    const cx = x(sa) + spread * Math.cos(angle);
    const cy = y(sb) + spread * Math.sin(angle);
    const lines = [
      `task ${t.task_id}`,
      `score A ${sa.toFixed(3)}, B ${sb.toFixed(3)}${t.a_score === null ? ' (success rate, no score)' : ''}`,
      ...(t.d_score !== null ? [`B − A: ${signed(t.d_score, (v) => v.toFixed(3))}`] : []),
      `cost per episode A ${usdOrDash(t.a_cost)}, B ${usdOrDash(t.b_cost)}`,
      `${t.winner === 'tie' ? 'tie' : t.winner === 'a' ? 'A wins' : t.winner === 'b' ? 'B wins' : 'no winner'} · episodes A ${t.a_n}, B ${t.b_n}`,
    ];
    const color = colorOf(t);
    const link = { kind: 'pair' as const, a: t.a_episode, b: t.b_episode };
    const series = t.winner === 'a' || t.winner === 'b' ? { series: sideName(result, t.winner) } : {};
    marks.push(
      cost === null
        ? { type: 'circle', cx, cy, r: R_MIN + 1, fill: theme.background, stroke: color, strokeWidth: 1.5, role: 'point', datum: { lines: [...lines, 'cost unknown on a side: drawn as a ring'], link }, ...series }
        : { type: 'circle', cx, cy, r: r(cost), fill: color, opacity: 0.8, stroke: theme.outline, strokeWidth: 1, role: 'point', datum: { lines, link }, ...series },
    );
  }
  const noted = result.tasks.length - drawn.length;
  const shownOf = result.tasks_total > result.tasks.length ? ` (the first ${result.tasks.length} of ${result.tasks_total} paired tasks)` : '';
  const note = `${drawn.length} paired tasks${shownOf}${noted > 0 ? `; ${noted} without an outcome on a side not drawn` : ''}. Point area ∝ the task's mean cost per episode; rings: cost unknown.`;
  marks.push(...noteLines(note, 12, height - 6, width - 24, ctx));
  return scene(ctx, height, title, marks);
}

export function compareScatterCsv(result: CompareResult): string {
  return toCsv(
    ['task_id', 'a_score', 'b_score', 'a_success', 'b_success', 'd_score', 'a_cost', 'b_cost', 'd_cost', 'winner', 'a_episodes', 'b_episodes'],
    result.tasks.map((t) => [t.task_id, t.a_score, t.b_score, t.a_success, t.b_success, t.d_score, t.a_cost, t.b_cost, t.d_cost, t.winner, t.a_n, t.b_n]),
  );
}
