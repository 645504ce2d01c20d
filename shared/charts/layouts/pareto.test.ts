// Pareto with many runs and costs across orders of magnitude: the selection's drawn runs, the others named, mixed task types said, and a log cost axis.
import { describe, expect, it } from 'vitest';
import type { ParetoResult } from '../../analysisResults.ts';
import type { FigureContext } from '../context.ts';
import { figureScene } from '../figures.ts';
import { RUN_PALETTE } from '../palette.ts';
import type { CircleMark, Mark, Scene, TextMark } from '../scene.ts';
import { textWidth } from '../text.ts';
import { LIGHT_THEME } from '../theme.ts';
import { MAX_RUNS_DRAWN } from './common.ts';
import { logTickLabel, paretoLayout } from './pareto.ts';

const ctx: FigureContext = { theme: LIGHT_THEME, width: 720, modelColor: () => '#0072B2' };
const flat = (marks: Mark[]): Mark[] => marks.flatMap((m) => (m.type === 'group' ? flat(m.marks) : [m]));
const byRole = (s: Scene, role: string) => flat(s.marks).filter((m) => m.role === role);
const pointOf = (s: Scene, run: string) => byRole(s, 'point').find((m) => m.datum?.lines[0]?.startsWith(`run ${run}`)) as CircleMark | undefined;

/** 14 runs; costs from $0.001 to $10 per episode; run-13 is the reference, run-00 and run-01 on the frontier. */
const result: ParetoResult = {
  reference: 'run-13',
  points: Array.from({ length: 14 }, (_, i) => ({
    run: `run-${String(i).padStart(2, '0')}`,
    n: 100 + i * 10,
    mean_score: i < 2 ? 0.9 + i * 0.05 : 0.3 + (i % 5) * 0.1,
    mean_cost: 0.001 * 10 ** (i / 3.25),
    frontier: i < 2,
    savings_vs_reference: null,
    score_delta_vs_reference: null,
  })),
};

const leftOut = (s: Scene) => byRole(s, 'left-out').map((m) => (m as TextMark).text).join(' ');

describe('pareto with many runs', () => {
  const chosen = ['run-00', 'run-01', 'run-10', 'run-11', 'run-12', 'run-13'];
  const scene = paretoLayout(result, { ...ctx, drawnRuns: chosen });
  const points = byRole(scene, 'point');

  it(`draws the selection’s drawn runs (at most ${MAX_RUNS_DRAWN}) and names every other one in the figure`, () => {
    expect(points).toHaveLength(MAX_RUNS_DRAWN);
    expect(points.map((m) => m.series).sort()).toEqual(chosen);
    expect(leftOut(scene)).toMatch(/^Not drawn, 8 more runs \(a figure draws at most 6, the same in every figure; choose which in Runs drawn\): run-02, run-03, run-04, run-05, run-06, run-07, run-08, run-09$/);
  });

  it(`without a request draws the first ${MAX_RUNS_DRAWN} by name`, () => {
    expect(byRole(paretoLayout(result, ctx), 'point').map((m) => m.series)).toEqual(['run-00', 'run-01', 'run-02', 'run-03', 'run-04', 'run-05']);
  });

  it('keeps the reference’s guides when its point is not drawn', () => {
    const without = paretoLayout(result, { ...ctx, drawnRuns: ['run-00', 'run-01'] });
    expect(byRole(without, 'reference')).toHaveLength(2);
    expect(byRole(without, 'reference-ring')).toHaveLength(0);
  });

  it('gives the drawn runs six different run colours', () => {
    const fills = points.map((m) => (m as CircleMark).fill);
    expect(new Set(fills).size).toBe(MAX_RUNS_DRAWN);
    for (const f of fills) expect(RUN_PALETTE).toContain(f);
  });

  it('draws no note when every run fits', () => {
    const few = paretoLayout({ ...result, points: result.points.slice(0, 3), reference: null }, ctx);
    expect(byRole(few, 'left-out')).toHaveLength(0);
    expect(byRole(few, 'task-types')).toHaveLength(0);
    expect(byRole(few, 'point')).toHaveLength(3);
  });

  it('says in the figure when its runs are of different task types, and which', () => {
    const types = ['scienceworld', 'scienceworld', 'hle'];
    const mixed = paretoLayout({ ...result, reference: null, points: result.points.slice(0, 3).map((p, i) => ({ ...p, task_types: [types[i]!] })) }, ctx);
    const note = byRole(mixed, 'task-types').map((m) => (m as TextMark).text).join(' ');
    expect(note).toBe('Task types differ, and so do their score scales (compare runs within one task type): hle (run-02), scienceworld (run-00, run-01)');
    const same = paretoLayout({ ...result, reference: null, points: result.points.slice(0, 2).map((p) => ({ ...p, task_types: ['hle'] })) }, ctx);
    expect(byRole(same, 'task-types')).toHaveLength(0);
  });
});

describe('pareto cost axis', () => {
  const few: ParetoResult = { reference: null, points: [0.001, 0.01, 0.1, 1].map((c, i) => ({ ...result.points[i]!, run: `c${i}`, mean_cost: c, frontier: false })) };

  it('is linear by default: the cheap runs crowd at the left', () => {
    const scene = paretoLayout(few, ctx);
    const xs = ['c0', 'c1', 'c2', 'c3'].map((r) => pointOf(scene, r)!.cx);
    expect(xs[2]! - xs[0]!).toBeLessThan((xs[3]! - xs[2]!) / 5);
  });

  it('on a log axis, costs ten times apart are equally far apart, and the axis says it is logarithmic', () => {
    const scene = figureScene({ request: { id: 'pareto', costAxis: 'log' }, result: few }, ctx);
    const xs = ['c0', 'c1', 'c2', 'c3'].map((r) => pointOf(scene, r)!.cx);
    expect(xs[1]! - xs[0]!).toBeCloseTo(xs[2]! - xs[1]!, 6);
    expect(xs[2]! - xs[1]!).toBeCloseTo(xs[3]! - xs[2]!, 6);
    expect(byRole(scene, 'axis-label').map((m) => (m as TextMark).text)).toContain('mean cost per episode ($, log scale)');
  });

  it('labels log ticks sparsely enough that no two labels overlap', () => {
    const scene = paretoLayout(result, { ...ctx, costAxis: 'log' });
    const bottom = Math.max(...byRole(scene, 'tick-label').map((m) => (m as TextMark).y));
    const labels = (byRole(scene, 'tick-label') as TextMark[]).filter((m) => m.y === bottom && m.text !== '').sort((a, b) => a.x - b.x);
    expect(labels.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < labels.length; i++) {
      const gap = labels[i]!.x - labels[i - 1]!.x;
      expect(gap).toBeGreaterThan((textWidth(labels[i]!.text, 11) + textWidth(labels[i - 1]!.text, 11)) / 2);
    }
  });

  it('puts a free run at the left end of a log axis and says so', () => {
    const withZero: ParetoResult = { reference: null, points: [{ ...few.points[0]!, mean_cost: 0 }, ...few.points.slice(1)] };
    const scene = paretoLayout(withZero, { ...ctx, costAxis: 'log' });
    const p = pointOf(scene, 'c0')!;
    expect(Number.isFinite(p.cx)).toBe(true);
    expect(p.datum?.lines.join(' ')).toContain('left end of the log axis');
  });

  it('labels 1, 2 and 5 of each decade, only powers of ten past three decades', () => {
    const short = logTickLabel([0.01, 1]);
    expect([0.01, 0.02, 0.03, 0.05, 0.07, 0.1].map(short).map((t) => t !== '')).toEqual([true, true, false, true, false, true]);
    const long = logTickLabel([0.001, 10]);
    expect([0.001, 0.002, 0.01].map(long).map((t) => t !== '')).toEqual([true, false, true]);
  });
});
