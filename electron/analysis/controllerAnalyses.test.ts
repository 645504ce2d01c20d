// budget-modes, usage-ratio and confusion: hand-worked numbers, and the CoRL simulator's planted expert-call ratio.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulateToFile } from '../../fixtures/simulator/index.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { wilsonInterval } from '../../shared/formulas.ts';
import { budgetModesAnalysis, confusionAnalysis, usageRatioAnalysis } from './controllerAnalyses.ts';

const tempDir = useSuiteTempDir();

describe('hand-worked', () => {
  let db: Db;
  beforeAll(async () => {
    const dir = tempDir();
    const file = join(dir, 'c.jsonl');
    const turn = (t: number, model: string, cost: number, verify?: { verdict: string; correct: boolean }) => ({
      t, model, action: { type: 'message' }, cost_usd: cost, errors: [], verify: verify ?? null,
    });
    const ep = (id: string, mode: string | null, step: number | null, difficulty: number, maxTurns: number, success: boolean, turns: unknown[]) =>
      JSON.stringify({
        schema: 'routelens/v1', run: 'r', episode_id: id, task: { difficulty }, outcome: { success },
        budget: { mode, usd: null, max_turns: maxTurns }, policy: { train_step: step }, turns,
      });
    writeFileSync(file, [
      // low: e1 controller only (no expert), e2 calls gpt-5; medium: e3 calls kimi
      ep('e1', 'low', 10, 1, 2, true, [turn(0, 'gpt-oss-120b', 0.01, { verdict: 'stop', correct: true })]),
      ep('e2', 'low', 20, 2, 2, false, [turn(0, 'gpt-oss-120b', 0.01, { verdict: 'continue', correct: false }), turn(1, 'gpt-5', 0.09, { verdict: 'stop', correct: false })]),
      ep('e3', 'medium', 10, 2, 3, true, [turn(0, 'gpt-oss-120b', 0.01), turn(1, 'kimi-k2', 0.03)]),
      // A run with no budget mode: budget-modes names it rather than leaving it out silently.
      JSON.stringify({ schema: 'routelens/v1', run: 'z-no-modes', episode_id: 'z1', task: {}, outcome: { success: true }, turns: [turn(0, 'gpt-5', 0.02)] }),
    ].join('\n'));
    db = openDatabase(join(dir, 'c.db'));
    await importPaths(db, [file]);
  });

  it('budget modes: score, cost and expert-call ratio per mode and training step', () => {
    const { modes } = budgetModesAnalysis(db);
    expect(modes.map((m) => m.mode)).toEqual(['low', 'medium']);
    expect(modes[0]).toMatchObject({ n: 2, mean_score: 0.5, mean_cost: expect.closeTo(0.055, 12), expert_call_ratio: 0.5 });
    expect(modes[0]?.by_train_step.map((s) => [s.train_step, s.expert_call_ratio])).toEqual([[10, 0], [20, 1]]);
    expect(modes[1]).toMatchObject({ n: 1, expert_call_ratio: 1 });
  });

  it('budget modes: Wilson intervals for the expert-call ratio, none for means of fewer than 10 sessions; runs without a mode named', () => {
    const result = budgetModesAnalysis(db);
    const [low, medium] = result.modes;
    expect(low?.ci).toEqual({ mean_score: null, mean_cost: null, expert_call_ratio: wilsonInterval(1, 2) });
    expect(medium?.ci.expert_call_ratio).toEqual(wilsonInterval(1, 1));
    expect(low?.by_train_step[0]?.ci.expert_call_ratio).toEqual(wilsonInterval(0, 1));
    expect(result.runs_without_modes).toEqual(['z-no-modes']);
    expect(budgetModesAnalysis(db, { runs: ['r'] }).runs_without_modes).toBeUndefined();
  });

  it('usage ratio against ρ, accuracy by turn limit, exhausted budgets', () => {
    const [r] = usageRatioAnalysis(db, { rho: { 'gpt-5': 0.1 } }).runs;
    // 5 calls: gpt-oss 3, gpt-5 1, kimi 1
    expect(r?.usage[0]).toMatchObject({ model: 'gpt-oss-120b', calls: 3, ratio: 0.6, rho: null });
    expect(r?.usage.find((u) => u.model === 'gpt-5')).toMatchObject({ ratio: 0.2, rho: 0.1, over_target: true });
    expect(r?.accuracy_by_max_turns).toEqual([{ max_turns: 2, n: 2, accuracy: 0.5 }, { max_turns: 3, n: 1, accuracy: 1 }]);
    expect(r?.exhausted_turn_budget).toBeCloseTo(1 / 3, 12); // only e2 used all its turns
  });

  it('routing and verification confusion', () => {
    const { routing, verification } = confusionAnalysis(db);
    expect(routing).toEqual([
      { difficulty: 1, n: 1, shares: { 'gpt-oss-120b': 1 } },
      { difficulty: 2, n: 4, shares: expect.objectContaining({ 'gpt-oss-120b': 0.5, 'gpt-5': 0.25, 'kimi-k2': 0.25 }) },
    ]);
    expect(verification).toEqual({ stop_correct: 1, stop_incorrect: 1, continue_correct: 0, continue_incorrect: 1 });
  });
});

describe('CoRL simulator', () => {
  it('recovers the planted expert-call ratio per mode', async () => {
    const dir = tempDir();
    const out = join(dir, 'corl.jsonl');
    const { truthPath } = await simulateToFile({ preset: 'corl', episodes: 3000, seed: 11, out });
    const truth = JSON.parse(readFileSync(truthPath, 'utf8'));
    const db = openDatabase(join(dir, 'corl.db'));
    await importPaths(db, [out]);
    const { modes } = budgetModesAnalysis(db, { runs: ['corl-controller'] });
    const ratio = Object.fromEntries(modes.map((m) => [m.mode, m.expert_call_ratio]));
    expect(ratio.low).toBeLessThan(ratio.medium as number);
    expect(ratio.medium).toBeLessThan(ratio.high as number);
    for (const m of modes) {
      const planted = Object.values(truth.corl.expert_call_ratio[m.mode] as Record<string, number>);
      const mean = planted.reduce((a, b) => a + b, 0) / planted.length; // steps are drawn uniformly
      expect(Math.abs(m.expert_call_ratio - mean)).toBeLessThan(0.06);
      // The intervals hold their estimate and, for the ratio, the planted value.
      const [lo, hi] = m.ci.expert_call_ratio!;
      expect(lo).toBeLessThan(mean);
      expect(hi).toBeGreaterThan(mean);
      const [slo, shi] = m.ci.mean_score!;
      expect(slo).toBeLessThan(m.mean_score!);
      expect(shi).toBeGreaterThan(m.mean_score!);
      const [clo, chi] = m.ci.mean_cost!;
      expect(clo).toBeLessThan(m.mean_cost!);
      expect(chi).toBeGreaterThan(m.mean_cost!);
    }
  }, 120_000);
});
