// The Compare figures on a hand-made result: what each draws, that unknown costs are never drawn as $0, and
// that the CSVs carry the same numbers.
import { describe, expect, it } from 'vitest';
import type { CompareResult, CompareTask } from '../../apiCompare.ts';
import type { Mark } from '../scene.ts';
import { LIGHT_THEME } from '../theme.ts';
import { COMPARE_FIGURE_IDS, COMPARE_FIGURES, compareFigureFilename } from './compareFigures.ts';
import { costDiffBins } from './compareCostDiff.ts';
import { modelBars } from './compareModelCost.ts';

const ctx = { theme: LIGHT_THEME, width: 640, modelColor: () => '#123456' };

function task(id: string, a: number | null, b: number | null, aCost: number | null, bCost: number | null): CompareTask {
  return {
    task_id: id, a_n: 1, b_n: 1, a_success: a, b_success: b, a_score: a, b_score: b, a_cost: aCost, b_cost: bCost,
    d_score: a !== null && b !== null ? b - a : null, d_cost: aCost !== null && bCost !== null ? bCost - aCost : null,
    winner: a === null || b === null ? null : a === b ? 'tie' : a > b ? 'a' : 'b', a_episode: 1, b_episode: 2,
  };
}

const side = (label: string) => ({ label, runs: [label], episodes: 3, tasks: 3, with_outcome: 3, success_rate: 0.5, mean_score: 0.5, known_cost: 1, unpriced_episodes: 0, tasks_averaged: 0 });

function result(tasks: CompareTask[], outcomes = true): CompareResult {
  return {
    a: side('run-a'), b: side('run/b'),
    pairing: { paired_tasks: tasks.length, unpaired_a: [], unpaired_b: [], notes: [] },
    outcomes_known: outcomes,
    stats: { success: null, score: null, cost: null, wins: { a: 0, tie: 0, b: 0 }, bootstrap: 0, seed: 1 },
    attribution: {
      a: [
        { model: 'm1', scope: 'main', calls: 4, tokens_in: 100, tokens_out: 10, tokens_cached: 50, tokens_cache_write: 0, cost: 0.5, unknown_calls: 0 },
        { model: 'm1', scope: 'subagent', calls: 2, tokens_in: 10, tokens_out: 1, tokens_cached: 0, tokens_cache_write: 0, cost: 0.25, unknown_calls: 1 },
      ],
      b: [{ model: 'alias', scope: 'main', calls: 19, tokens_in: 1, tokens_out: 1, tokens_cached: 0, tokens_cache_write: 0, cost: 0, unknown_calls: 19 }],
    },
    counterfactual: null, tasks, tasks_total: tasks.length,
  };
}

const flat = (marks: Mark[]): Mark[] => marks.flatMap((m) => (m.type === 'group' ? flat(m.marks) : [m]));
const role = (marks: Mark[], r: string) => flat(marks).filter((m) => m.role === r);

describe('compare figures', () => {
  const r = result([task('t1', 0, 1, 0.1, 0.05), task('t2', 1, 1, 0.2, null), task('t3', 1, 0, 0.1, 0.3), task('t4', null, 1, 0.1, 0.1)]);

  it('scatter: one point per task with an outcome on both sides; unknown cost is a ring, not a size', () => {
    const scene = COMPARE_FIGURES['paired-scatter'].layout(r, ctx);
    const points = role(scene.marks, 'point');
    expect(points).toHaveLength(3);
    const ring = points.find((p) => p.datum?.lines[0] === 'task t2');
    expect(ring?.fill).toBe(LIGHT_THEME.background);
    expect(ring?.datum?.lines.join(' ')).toContain('B —');
    expect(scene.width).toBe(640);
  });

  it('scatter: without outcomes it says only cost and behaviour are compared', () => {
    const scene = COMPARE_FIGURES['paired-scatter'].layout(result([task('t1', null, null, 1, 2)], false), ctx);
    expect(role(scene.marks, 'point')).toHaveLength(0);
    expect(role(scene.marks, 'empty')[0]).toMatchObject({ text: 'No outcomes: only cost and behaviour are compared.' });
  });

  it('cost histogram bins only known differences, and counts the rest apart', () => {
    const { diffs, bins } = costDiffBins(r);
    expect(diffs.map((d) => +d.toFixed(3))).toEqual([-0.05, 0.2, 0]);
    expect(bins.reduce((n, b) => n + b.n, 0)).toBe(3);
    const note = role(COMPARE_FIGURES['cost-diff'].layout(r, ctx).marks, 'note')[0];
    expect(note).toMatchObject({ text: expect.stringContaining('1 with an unknown cost not drawn · B cheaper on 1, A cheaper on 1 of n = 3') });
  });

  it('model bars: main and subagent stack; a model with only unknown costs gets a dash, no bar', () => {
    expect(modelBars(r.attribution.a)).toEqual([{ model: 'm1', main: 0.5, subagent: 0.25, calls: 6, unknown_calls: 1, has_subagent: true }]);
    const marks = COMPARE_FIGURES['model-cost'].layout(r, ctx).marks;
    expect(role(marks, 'bar-main')).toHaveLength(1);
    expect(role(marks, 'bar-subagent')).toHaveLength(1);
    expect(role(marks, 'unknown-cost')[0]).toMatchObject({ text: '— 19 calls of unknown cost' });
    expect(role(marks, 'bar-label')[0]).toMatchObject({ text: expect.stringContaining('+1 calls of unknown cost') });
  });

  it('CSVs: one row per task, bin or model-scope, unknown left empty', () => {
    expect(COMPARE_FIGURES['paired-scatter'].csv(r).trim().split('\r\n')).toHaveLength(5);
    expect(COMPARE_FIGURES['paired-scatter'].csv(r).split('\r\n')[2]).toBe('t2,1,1,1,1,0,0.2,,,tie,1,1');
    const models = COMPARE_FIGURES['model-cost'].csv(r).trim().split('\r\n');
    expect(models).toHaveLength(4);
    expect(models[3]).toBe('B,run/b,alias,main,19,1,1,0,0,0,19');
  });

  it('file names are safe and say which figure of which comparison', () => {
    expect(compareFigureFilename(r, 'cost-diff', 'png', '2026-11-24')).toMatch(/^compare-cost-diff_run[\w.-]*-vs-run[\w.-]*_2026-11-24\.png$/);
    for (const id of COMPARE_FIGURE_IDS) expect(COMPARE_FIGURES[id].layout(r, { ...ctx, width: 360 }).width).toBe(360);
  });
});

describe('notes and axis titles of a narrow figure', () => {
  it('keep the end of the note on a second line and cut long run names to the plot', () => {
    const long = result([task('t1', 1, 0, 0.1, 0.2), task('t2', 0, 1, null, 0.3)]);
    long.a.label = 'a-run-with-a-very-long-name, another-run-with-a-long-name, and-a-third-one';
    const scene = COMPARE_FIGURES['paired-scatter'].layout(long, { ...ctx, width: 420 });
    const texts = flat(scene.marks).filter((m): m is Extract<Mark, { type: 'text' }> => m.type === 'text');
    const notes = texts.filter((m) => m.role === 'note');
    expect(notes.length).toBe(2);
    expect(notes.map((m) => m.text).join(' ')).toContain('rings: cost unknown.');
    const xTitle = texts.find((m) => m.role === 'axis-label' && m.rotate === undefined);
    expect(xTitle?.text.endsWith('…')).toBe(true);
    // The notes sit below the x axis title, inside the figure.
    expect(Math.min(...notes.map((m) => m.y))).toBeGreaterThan(xTitle!.y);
    expect(Math.max(...notes.map((m) => m.y))).toBeLessThanOrEqual(scene.height);
  });
});
