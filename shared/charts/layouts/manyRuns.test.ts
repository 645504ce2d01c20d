// Figures of big and many-run results: the window stays responsive (a bounded number of hover marks), every
// run or episode left out is said in the figure, and nothing is drawn past the edge or over the plot.
import { describe, expect, it } from 'vitest';
import type { ErrorRecoveryResult, LiftResult, SwitchCostResult, UsageByTurnResult, UsageRatioResult } from '../../analysisResults.ts';
import type { FigureContext } from '../context.ts';
import type { Mark, RectMark, Scene, TextMark } from '../scene.ts';
import { textWidth } from '../text.ts';
import { runColors } from '../palette.ts';
import { LIGHT_THEME } from '../theme.ts';
import { MAX_RUNS_DRAWN } from './common.ts';
import { errorRecoveryLayout } from './errorRecovery.ts';
import { liftLayout } from './lift.ts';
import { SWITCH_COST_MAX_POINTS, switchCostLayout } from './switchCost.ts';
import { usageByTurnLayout } from './usageByTurn.ts';
import { usageRatioLayout } from './usageRatio.ts';

const ctx: FigureContext = { theme: LIGHT_THEME, width: 720, modelColor: () => '#0072B2' };
const flat = (marks: Mark[]): Mark[] => marks.flatMap((m) => (m.type === 'group' ? flat(m.marks) : [m]));
const byRole = (s: Scene, role: string) => flat(s.marks).filter((m) => m.role === role);
const interactive = (s: Scene) => flat(s.marks).filter((m) => m.datum).length;
const notes = (s: Scene) => byRole(s, 'note').map((m) => (m as TextMark).text);
/** The figure's note on runs it does not draw, its lines joined. */
const leftOut = (s: Scene) => byRole(s, 'left-out').map((m) => (m as TextMark).text).join(' ');
const nOf = (m: Mark): number => Number(/n = ([\d,]+)/.exec(m.datum?.lines.join(' ') ?? '')?.[1]?.replaceAll(',', '') ?? Number.NaN);

/** A deterministic stand-in for a run's successful episodes: switches 0–40, cost growing with them. */
function episodes(run: number, count: number): SwitchCostResult['runs'][number]['episodes'] {
  return Array.from({ length: count }, (_, i) => {
    const switches = (i * 7 + run) % 41;
    return { episode: `r${run}-e${i}`, switches, cost: 0.002 * switches + ((i * 13) % 17) / 400, turns: switches + 5 };
  });
}

describe('switch-cost on a big result', () => {
  const runs = Array.from({ length: 9 }, (_, r) => ({
    run: `run-${r}`,
    episodes: episodes(r, 1000 + 500 * r),
    mean_cumulative_cost: Array.from({ length: 90 }, (_, t) => ({ t, mean: 0.001 * t, n: 100 })),
  }));
  // One outlier: far costlier than any other episode.
  runs[8]!.episodes.push({ episode: 'outlier', switches: 40, cost: 0.6, turns: 50 });
  const result: SwitchCostResult = { runs };
  const drawn = runs.slice(3); // the selection's drawn runs (runAnalysis's default: the most scored episodes)
  const scene = switchCostLayout(result, { ...ctx, drawnRuns: drawn.map((r) => r.run) });
  const colorOf = runColors(drawn.map((r) => r.run));

  it('bins the scatter into at most ~2,000 hover marks, counting every episode of the runs it draws', () => {
    expect(byRole(scene, 'point')).toHaveLength(0);
    const cells = byRole(scene, 'cell') as RectMark[];
    expect(cells.length).toBeGreaterThan(50);
    expect(interactive(scene)).toBeLessThanOrEqual(2000);
    for (const r of drawn) {
      const mine = cells.filter((c) => c.fill === colorOf(r.run));
      expect(mine.reduce((a, c) => a + nOf(c), 0)).toBe(r.episodes.length);
    }
    expect(notes(scene).some((t) => t.startsWith(`${(drawn.reduce((a, r) => a + r.episodes.length, 0)).toLocaleString('en-US')} episodes binned`))).toBe(true);
  });

  it('keeps each run’s mean cost per switch count exact (every episode, not the bins)', () => {
    const r = drawn[0]!;
    const at3 = r.episodes.filter((e) => e.switches === 3);
    const mean = at3.reduce((a, e) => a + e.cost, 0) / at3.length;
    const mark = byRole(scene, 'mean').find((m) => m.datum?.lines[0] === `run ${r.run}: 3 switches`);
    expect(mark?.datum?.lines.slice(1)).toEqual([`mean cost $${mean.toPrecision(3).replace(/\.?0+$/, '')}`, `n = ${at3.length} episodes`]);
  });

  it('draws the selection’s drawn runs and names the others in the figure', () => {
    expect(MAX_RUNS_DRAWN).toBe(6);
    expect(byRole(scene, 'legend-label').map((m) => (m as TextMark).text)).toEqual(drawn.map((r) => `${r.run} (${r.episodes.length.toLocaleString('en-US')})`));
    expect(leftOut(scene)).toMatch(/^Not drawn, 3 more runs .*: run-0, run-1, run-2$/);
  });

  it('keeps an outlier visible as a cell of one episode, linked to it', () => {
    const lone = byRole(scene, 'cell').filter((m) => nOf(m) === 1);
    expect(lone.map((m) => m.datum?.link)).toEqual([{ kind: 'episode-ref', ext_id: 'outlier', run: 'run-8' }]);
    expect((lone[0] as RectMark).opacity).toBeGreaterThanOrEqual(0.3);
  });

  it('draws one dot per episode below the threshold', () => {
    const small = switchCostLayout({ runs: [{ ...runs[0]!, episodes: episodes(0, SWITCH_COST_MAX_POINTS) }] }, ctx);
    expect(byRole(small, 'point')).toHaveLength(SWITCH_COST_MAX_POINTS);
    expect(byRole(small, 'cell')).toHaveLength(0);
  });
});

describe('error-recovery with runs that had no error', () => {
  const ci = { p_switch: [0, 1], p_recover: [0, 1], p_recover_stay: [0, 1], p_recover_switch: [0, 1] } as ErrorRecoveryResult['groups'][number]['ci'];
  const group = (run: string, n: number) => ({
    run, n, p_switch: n ? 0.5 : null, p_recover: n ? 0.5 : null, p_recover_stay: n ? 0.5 : null, p_recover_switch: n ? null : null, n_stay: n, n_switch: 0, ci,
  });
  const scene = errorRecoveryLayout({ groups: [group('a', 10), group('quiet-1', 0), group('b', 4), group('quiet-2', 0)] }, ctx);

  it('leaves them out of the bars and the legend, and says which they are', () => {
    expect(byRole(scene, 'legend-label').map((m) => (m as TextMark).text)).toEqual(['a (10 error turns)', 'b (4 error turns)']);
    expect(byRole(scene, 'bar').every((m) => !m.datum?.lines[0]?.includes('quiet'))).toBe(true);
    expect(notes(scene)).toContain('Not drawn, no turn with an error: quiet-1, quiet-2');
  });

  it('writes n/a where a split is empty without overlapping another label', () => {
    const na = byRole(scene, 'na') as TextMark[];
    expect(na).toHaveLength(2);
    const boxes = na.map((m) => ({ x: m.x - textWidth(m.text, m.fontSize) / 2, w: textWidth(m.text, m.fontSize) }));
    expect(boxes[0]!.x + boxes[0]!.w).toBeLessThanOrEqual(boxes[1]!.x);
  });
});

describe('usage-ratio layout', () => {
  const result: UsageRatioResult = {
    runs: [
      { run: 'solo', calls: 50, usage: [{ model: 'gpt-5', calls: 50, ratio: 1, rho: 0.2, over_target: true }], accuracy_by_max_turns: [{ max_turns: 3, n: 10, accuracy: 1 }, { max_turns: 5, n: 10, accuracy: 0.8 }], exhausted_turn_budget: 0 },
      { run: 'mixed', calls: 40, usage: [{ model: 'gpt-5', calls: 30, ratio: 0.75, rho: 0.2, over_target: true }, { model: 'kimi-k2', calls: 10, ratio: 0.25, rho: null, over_target: null }], accuracy_by_max_turns: [{ max_turns: 3, n: 8, accuracy: 0.5 }], exhausted_turn_budget: 0.1 },
    ],
  };
  const scene = usageRatioLayout(result, ctx);

  it('keeps a 100% bar’s value inside the figure', () => {
    const value = byRole(scene, 'bar-value').find((m) => (m as TextMark).text === '100.0%') as TextMark;
    expect(value.x + textWidth(value.text, value.fontSize)).toBeLessThanOrEqual(ctx.width - 8);
  });

  it('puts the accuracy legend above the chart, not on its lines', () => {
    const swatches = byRole(scene, 'legend-swatch').filter((m) => m.type === 'line' && m.stroke !== LIGHT_THEME.reference);
    const points = byRole(scene, 'point') as { cy: number }[];
    expect(swatches).toHaveLength(2);
    for (const s of swatches) expect(s.type === 'line' && Math.max(s.y1, s.y2)).toBeLessThan(Math.min(...points.map((p) => p.cy)) - 4);
  });
});

describe('usage-by-turn with many runs', () => {
  const result: UsageByTurnResult = {
    runs: Array.from({ length: 20 }, (_, r) => ({ run: `run-${String(r).padStart(2, '0')}`, turns: [{ t: 0, n: 10 + r, shares: { 'gpt-5': 1 } }] })),
  };
  it('draws a panel for each of the selection’s drawn runs, and names every other one in the figure', () => {
    const drawn = ['run-03', 'run-07', 'run-19'];
    const scene = usageByTurnLayout(result, { ...ctx, drawnRuns: drawn });
    expect(byRole(scene, 'panel-title').map((m) => (m as TextMark).text)).toEqual(drawn.map((r) => `run: ${r}`));
    const others = result.runs.map((r) => r.run).filter((r) => !drawn.includes(r));
    expect(leftOut(scene)).toBe(`Not drawn, 17 more runs (a figure draws at most 6, the same in every figure; choose which in Runs drawn): ${others.join(', ')}`);
  });

  it(`without a request draws the first ${MAX_RUNS_DRAWN} by name`, () => {
    const scene = usageByTurnLayout(result, ctx);
    expect(byRole(scene, 'panel-title').map((m) => (m as TextMark).text)).toEqual(Array.from({ length: 6 }, (_, i) => `run: run-0${i}`));
  });
});

describe('lift side by side', () => {
  const cells = [
    { model: 'gpt-5', category: 'python', lift: 1.2, ci: [1.1, 1.3] as [number, number], n: 40 },
    { model: 'kimi-k2', category: 'python', lift: 0.8, ci: [0.7, 0.9] as [number, number], n: 40 },
  ];
  const result: LiftResult = {
    cells,
    by_run: [{ run: 'a', cells }],
    by_run_omitted: ['g', 'h'],
    by_run_single_model: [{ run: 'fixed', model: 'gpt-5' }],
  };
  it('draws a panel per run with several models, and says which runs it did not draw and why', () => {
    const scene = liftLayout(result, ctx);
    expect(byRole(scene, 'panel-title').map((m) => (m as TextMark).text)).toEqual(['run: a']);
    expect(leftOut(scene)).toMatch(/^Not drawn, 2 more runs .*: g, h$/);
    expect(notes(scene)).toEqual(['run fixed: every turn on gpt-5, so its lift is 1 for every tool (no panel)']);
  });
});
