// Issue 35 item 8, the analysis figures' rough edges: what each layout must draw so that nothing touches the
// plot's frame and every share says how many it rests on.
import { describe, expect, it } from 'vitest';
import type { BudgetModesResult, ConfusionResult, ErrorRecoveryResult, UsageByTurnResult, UsageRatioResult } from '../../analysisResults.ts';
import type { FigureContext } from '../context.ts';
import { budgetModesCsv, usageByTurnCsv } from '../figureCsv.ts';
import type { LineMark, Mark, RectMark, Scene, TextMark } from '../scene.ts';
import { textWidth } from '../text.ts';
import { LIGHT_THEME } from '../theme.ts';
import { budgetModesLayout } from './budgetModes.ts';
import { confusionLayout } from './confusion.ts';
import { errorRecoveryLayout } from './errorRecovery.ts';
import { usageByTurnLayout } from './usageByTurn.ts';
import { usageRatioLayout } from './usageRatio.ts';

const ctx: FigureContext = { theme: LIGHT_THEME, width: 900, modelColor: () => '#0072B2' };
const flat = (marks: Mark[]): Mark[] => marks.flatMap((m) => (m.type === 'group' ? flat(m.marks) : [m]));
const byRole = (s: Scene, role: string) => flat(s.marks).filter((m) => m.role === role);
/** The vertical axis line's top end. */
const axisTop = (s: Scene) => Math.min(...(byRole(s, 'axis') as LineMark[]).filter((a) => a.x1 === a.x2).map((a) => Math.min(a.y1, a.y2)));

describe('error-recovery headroom', () => {
  // Two runs that always switched after an error: bars at exactly 100% with intervals reaching 100%.
  const group = (run: string) => ({
    run, n: 57, p_switch: 1, p_recover: 0.7, p_recover_stay: null, p_recover_switch: 0.7, n_stay: 0, n_switch: 57,
    ci: { p_switch: [0.937, 1], p_recover: [0.57, 0.8], p_recover_stay: [0, 1], p_recover_switch: [0.57, 0.8] },
  }) as ErrorRecoveryResult['groups'][number];
  const scene = errorRecoveryLayout({ groups: [group('always-a'), group('always-b')] }, ctx);

  it('leaves room above a bar at 100% and its interval', () => {
    const top = axisTop(scene);
    const full = (byRole(scene, 'bar') as RectMark[]).filter((b) => b.datum?.lines[1]?.includes('= 100.0%'));
    expect(full).toHaveLength(2);
    for (const b of full) expect(b.y - top).toBeGreaterThanOrEqual(8);
    const whiskers = byRole(scene, 'ci') as LineMark[];
    expect(Math.min(...whiskers.map((w) => Math.min(w.y1, w.y2))) - top).toBeGreaterThanOrEqual(8);
  });

  it('labels its axis up to 100%, not past it', () => {
    const labels = byRole(scene, 'tick-label').map((m) => (m as { text: string }).text);
    expect(labels).toContain('100%');
    expect(labels.filter((t) => /^\d+%$/.test(t) && Number(t.slice(0, -1)) > 100)).toEqual([]);
  });
});

describe('confusion rows', () => {
  const result: ConfusionResult = {
    routing: [
      { difficulty: 1, n: 3, shares: { 'gpt-5': 1 } },
      { difficulty: 2, n: 1234, shares: { 'gpt-5': 0.25, 'kimi-k2': 0.75 } },
    ],
    verification: { stop_correct: 130, stop_incorrect: 10, continue_correct: 15, continue_incorrect: 34 },
  };
  const scene = confusionLayout(result, ctx);
  const labels = byRole(scene, 'row-label') as TextMark[];

  it('say how many calls or verdicts each row rests on', () => {
    expect(labels.map((m) => m.text)).toEqual(['difficulty 1 · n = 3', 'difficulty 2 · n = 1,234', 'stop · n = 140', 'continue · n = 49']);
  });

  it('fit their labels left of their first cell', () => {
    const cells = byRole(scene, 'cell') as RectMark[];
    for (const label of labels) {
      const start = label.x - textWidth(label.text, label.fontSize);
      const row = cells.filter((c) => Math.abs(c.y + c.height / 2 - label.y) < 12 && c.x > start);
      expect(row.length).toBeGreaterThan(0);
      expect(start).toBeGreaterThanOrEqual(0);
      expect(label.x).toBeLessThanOrEqual(Math.min(...row.map((c) => c.x)));
    }
  });
});

describe('usage-by-turn counts', () => {
  // 100 episodes start; 40 reach turn 1, 5 reach turn 2: the share at turn 2 rests on 5.
  const result: UsageByTurnResult = {
    runs: [{
      run: 'r', turns: [
        { t: 0, n: 100, shares: { 'gpt-5': 0.5, 'kimi-k2': 0.5 } },
        { t: 1, n: 40, shares: { 'gpt-5': 1 } },
        { t: 2, n: 5, shares: { 'kimi-k2': 1 } },
      ],
    }],
  };
  const scene = usageByTurnLayout(result, ctx);
  const counts = byRole(scene, 'count') as RectMark[];
  const segments = byRole(scene, 'segment') as RectMark[];

  it('draws a count per turn index, as tall as the episodes that reach it', () => {
    expect(counts.map((c) => c.datum?.lines[1])).toEqual(['n = 100 episodes reach turn 0', 'n = 40 episodes reach turn 1', 'n = 5 episodes reach turn 2']);
    expect(counts[1]!.height / counts[0]!.height).toBeCloseTo(0.4, 5);
    expect(counts[2]!.datum?.lines[2]).toBe('5.0% of the 100 at turn 0');
    expect((byRole(scene, 'count-max')[0] as TextMark).text).toBe('100');
  });

  it('puts each count under its bar, below the shares', () => {
    for (const c of counts) {
      const above = segments.filter((s) => Math.abs(s.x - c.x) < 0.01);
      expect(above.length).toBeGreaterThan(0);
      expect(Math.max(...above.map((s) => s.y + s.height))).toBeLessThan(c.y);
    }
  });

  it('exports the episodes behind each share', () => {
    const lines = usageByTurnCsv(result).trim().split('\r\n');
    expect(lines[0]).toBe('run,t,n_episodes,model,share');
    expect(lines[1]).toBe('r,0,100,gpt-5,0.5');
    expect(lines.at(-1)).toBe('r,2,5,kimi-k2,1');
  });

  it('says what the strip counts', () => {
    expect(byRole(scene, 'note').map((m) => (m as TextMark).text)).toContain('Under each panel: n, the episodes that reach each turn index (the number at its left is the most)');
  });
});

describe('budget modes', () => {
  const row = (mode: string, n: number, ratio: number, ci: BudgetModesResult['modes'][number]['ci']) => ({
    mode, n, mean_score: 0.5, mean_cost: 0.002, expert_call_ratio: ratio, ci, by_train_step: [],
  });
  const result: BudgetModesResult = {
    modes: [
      row('low', 77, 0.13, { mean_score: [0.38, 0.61], mean_cost: [0.0015, 0.0031], expert_call_ratio: [0.07, 0.22] }),
      row('high', 8, 1, { mean_score: null, mean_cost: null, expert_call_ratio: [0.68, 1] }),
    ],
    runs_without_modes: ['corl-gpt-5', 'corl-random-assign'],
  };
  const scene = budgetModesLayout(result, ctx);
  const bars = byRole(scene, 'bar') as RectMark[];
  const whiskers = byRole(scene, 'ci') as LineMark[];

  it('names the selected runs it leaves out and why, and does not call the rest "all selected runs"', () => {
    const note = byRole(scene, 'note')[0] as TextMark;
    expect(note.text).toBe('Not drawn, no episode with a budget mode: corl-gpt-5, corl-random-assign');
    expect(note.datum?.lines[1]).toBe('corl-gpt-5, corl-random-assign');
    expect(byRole(scene, 'legend-label').map((m) => (m as TextMark).text)).toEqual(['the selected runs with a budget mode']);
  });

  it('draws an interval on every bar that has one, and says how it was made', () => {
    // low: score, cost, ratio; high: the ratio only (8 episodes: too few to bootstrap a mean).
    expect(bars).toHaveLength(6);
    expect(whiskers).toHaveLength(4);
    const lines = bars.map((b) => b.datum?.lines[2]);
    expect(lines).toContain('95% CI 0.38–0.61 (bootstrap over episodes)');
    expect(lines).toContain('95% CI 7.0%–22.0% (Wilson)');
    expect(lines).toContain('no interval: fewer than 10 episodes with a value');
  });

  it('exports each value with its interval, empty where there is none', () => {
    const [header, low, high] = budgetModesCsv(result).trim().split('\r\n');
    expect(header).toBe('run,mode,train_step,episodes,mean_score,mean_score_ci_low,mean_score_ci_high,mean_cost_usd,mean_cost_usd_ci_low,mean_cost_usd_ci_high,expert_call_ratio,expert_call_ratio_ci_low,expert_call_ratio_ci_high');
    expect(low).toBe('(all selected),low,,77,0.5,0.38,0.61,0.002,0.0015,0.0031,0.13,0.07,0.22');
    expect(high).toBe('(all selected),high,,8,0.5,,,0.002,,,1,0.68,1');
  });

  it('keeps a bar at 100% and its interval below the top of its panel', () => {
    const top = axisTop(scene);
    const full = bars.filter((b) => b.datum?.lines[1]?.startsWith('expert-call ratio: 100%'));
    expect(full).toHaveLength(1);
    expect(full[0]!.y - top).toBeGreaterThanOrEqual(8);
    for (const w of whiskers) expect(Math.min(w.y1, w.y2)).toBeGreaterThan(top);
  });
});

describe('usage ratio against the ρ a log states', () => {
  const result: UsageRatioResult = {
    runs: [{
      run: 'crit-controller', calls: 189, exhausted_turn_budget: 0.26, accuracy_by_max_turns: [], logged_rho: { 'gpt-5': 0.25 },
      usage: [
        { model: 'gpt-5', calls: 45, ratio: 0.238, rho: 0.25, over_target: false, rho_from: 'log' },
        { model: 'kimi-k2', calls: 144, ratio: 0.762, rho: 0.5, over_target: true, rho_from: 'request' },
      ],
    }],
  };
  const scene = usageRatioLayout(result, ctx);

  it('says where each target comes from', () => {
    const lines = (byRole(scene, 'bar') as RectMark[]).map((b) => b.datum?.lines[2]);
    expect(lines).toEqual(['target ρ = 25.0% (as the run’s log states it) — within target', 'target ρ = 50.0% (set on this page) — over target']);
  });

  it('writes a bar’s value clear of its ρ tick', () => {
    const values = byRole(scene, 'bar-value') as TextMark[];
    const ticks = byRole(scene, 'target') as LineMark[];
    values.forEach((v, i) => {
      const tick = ticks[i]!.x1;
      expect(tick < v.x - 1 || tick > v.x + textWidth(v.text, v.fontSize) + 1).toBe(true);
    });
  });
});
