// Replay and OPE against the simulator's planted truth: a logged run of the stochastic (softmax) router with
// exactly known propensities, ŝ = the planted per-category skill, and the true value of the target policy
// obtained by simulating that policy itself.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulate } from '../../fixtures/simulator/index.ts';
import { PROFILES } from '../../fixtures/simulator/pool.ts';
import { HLE_PARAMS } from '../../fixtures/simulator/presets/hle.ts';
import type { RouterSpec } from '../../fixtures/simulator/routing.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { episodePolicyChoices } from './episodeChoices.ts';
import { compilePolicy } from './policies.ts';
import { policyDiff } from './policyDiff.ts';
import { loadReplayData } from './replayData.ts';
import { replayPolicies, runPolicy } from './replayRun.ts';
import { parsePolicySpec } from '../../shared/policySpec.ts';

const tempDir = useSuiteTempDir();
let db: Db;
let noisyEstimator = 0;
/** A sharper softmax than the preset's MTRouter run (T 0.1), so enough logged episodes follow the greedy policy. */
const BEHAVIOUR: RouterSpec = { kind: 'learned', name: 'softmax router (T 0.05)', temperature: 0.05 };
const GREEDY: RouterSpec = { kind: 'greedy', name: 'argmax planted skill' };

function meanScore(policy: RouterSpec, episodes: number, seed: number): number {
  let sum = 0;
  let n = 0;
  for (const e of simulate({ preset: 'hle', episodes, seed, policy })) {
    sum += e.outcome.score ?? 0; // hle scores are already in [0, 1]
    n++;
  }
  return sum / n;
}

beforeAll(async () => {
  const dir = tempDir();
  const file = join(dir, 'hle.jsonl');
  writeFileSync(file, [...simulate({ preset: 'hle', episodes: 2500, seed: 11, policy: BEHAVIOUR })].map((e) => JSON.stringify(e)).join('\n') + '\n');
  db = openDatabase(join(dir, 'hle.db'));
  await importPaths(db, [file]);
  // ŝ(h_t, m) = skill[m][category of turn t]: argmax over it is exactly the simulator's greedy router.
  const est = Number(db.prepare(`INSERT INTO estimators (name, created_at, encoder, config_json) VALUES ('planted skill', '2025-01-01', 'none', '{}')`).run().lastInsertRowid);
  const modelId = HLE_PARAMS.models.map((m) => db.prepare('SELECT id FROM models WHERE name = ?').pluck().get(m) as number);
  const insert = db.prepare('INSERT INTO estimates (estimator_id, turn_id, model_id, s_hat) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const [id, tool] of db.prepare('SELECT id, tool FROM turns').raw().all() as [number, string][]) {
      const c = HLE_PARAMS.categories.indexOf(tool);
      HLE_PARAMS.models.forEach((_, m) => insert.run(est, id, modelId[m], (HLE_PARAMS.skill[m] as number[])[c]));
    }
  })();
  // A second, older estimator with continuous ŝ (skill + a small per-turn perturbation), as a trained one has:
  // with ŝ constant per category a deterministic policy can only give a model whole categories of turns.
  const noisy = Number(db.prepare(`INSERT INTO estimators (name, created_at, encoder, config_json) VALUES ('noisy skill', '2024-01-01', 'none', '{}')`).run().lastInsertRowid);
  let x = 12345;
  const noise = (): number => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5) * 0.1;
  db.transaction(() => {
    for (const [id, tool] of db.prepare('SELECT id, tool FROM turns ORDER BY id').raw().all() as [number, string][]) {
      const c = HLE_PARAMS.categories.indexOf(tool);
      HLE_PARAMS.models.forEach((_, m) => insert.run(noisy, id, modelId[m], ((HLE_PARAMS.skill[m] as number[])[c] as number) + noise()));
    }
  })();
  noisyEstimator = noisy;
}, 240_000);

describe('off-policy evaluation on the simulator', () => {
  it('DR and WIS intervals of the greedy (argmax ŝ) policy cover its simulated true value', () => {
    const truth = meanScore(GREEDY, 20_000, 99); // ≈ 0.224, standard error ≈ 0.003
    const r = replayPolicies(db, { policies: ['argmax', 'logged'], bootstrap: 1000, seed: 5 });
    expect(r.s_hat_source).toBe('estimator');
    const [argmax, logged] = r.policies;
    const ope = argmax!.ope!;
    expect(ope.n).toBe(2500);
    expect(ope.ess).toBeGreaterThan(200);
    expect(ope.ci.dr![0]).toBeLessThanOrEqual(truth);
    expect(ope.ci.dr![1]).toBeGreaterThanOrEqual(truth);
    expect(ope.ci.wis![0]).toBeLessThanOrEqual(truth);
    expect(ope.ci.wis![1]).toBeGreaterThanOrEqual(truth);
    // Informative, not just wide: within ±0.06 of a value of about 0.22.
    expect(ope.ci.dr![1] - ope.ci.dr![0]).toBeLessThan(0.12);
    expect(Math.abs(ope.dr! - truth)).toBeLessThan(0.04);
    // The logged policy is the behaviour policy: every estimator is the on-policy mean, which covers the truth too.
    const behaviourTruth = meanScore(BEHAVIOUR, 20_000, 98);
    expect(logged!.ope!.ci.ips![0]).toBeLessThanOrEqual(behaviourTruth);
    expect(logged!.ope!.ci.ips![1]).toBeGreaterThanOrEqual(behaviourTruth);
  });

  it('warns when the importance weights are concentrated (a target far from the log)', () => {
    const [p] = replayPolicies(db, { policies: ['fixed:gpt-5'], bootstrap: 0 }).policies;
    expect(p!.ope!.ess).toBeLessThan(0.05 * 2500);
    expect(p!.notes.join('\n')).toMatch(/effective sample size/);
  });
});

describe('replay on the simulator', () => {
  it('learns the planted output-length ratios (medians of the model profiles)', () => {
    const r = replayPolicies(db, { policies: ['logged'], bootstrap: 0 });
    const ref = 'gpt-5';
    for (const m of HLE_PARAMS.models) {
      const expected = (PROFILES[m]!.out_median / PROFILES[ref]!.out_median);
      expect((r.output_ratio[m] as number) / (r.output_ratio[ref] as number)).toBeCloseTo(expected, 1);
      expect(Math.abs((r.output_ratio[m] as number) / (r.output_ratio[ref] as number) / expected - 1)).toBeLessThan(0.05);
    }
  });

  it('usage:MODEL=RHO fits ξ so the model gets at most ρ of the turns, and the constraint binds', () => {
    const r = replayPolicies(db, { policies: ['argmax', 'usage:gpt-5=0.1'], bootstrap: 0, estimator: noisyEstimator });
    expect(r.estimator?.name).toBe('noisy skill');
    const [unconstrained, constrained] = r.policies;
    expect(unconstrained!.usage['gpt-5']).toBeGreaterThan(0.2);
    expect(constrained!.usage['gpt-5']).toBeLessThanOrEqual(0.1);
    expect(constrained!.usage['gpt-5']).toBeGreaterThan(0.095);
    expect(constrained!.notes.join('\n')).toMatch(/ξ\(gpt-5\) = [\d.]+ \(fitted\): usage 0\.\d+ vs ρ 0\.1/);
  });

  it('cheaper modes and budgets cost less: mode:low ≤ mode:medium ≤ mode:high, budget:B ≤ B per episode', () => {
    const r = replayPolicies(db, { policies: ['mode:low', 'mode:medium', 'mode:high', 'budget:0.02', 'argmax', 'cheapest'], bootstrap: 0 }).policies;
    const cost = Object.fromEntries(r.map((p) => [p.policy, p.est_cost]));
    expect(cost['mode:low']).toBeLessThanOrEqual(cost['mode:medium']!);
    expect(cost['mode:medium']).toBeLessThanOrEqual(cost['mode:high']!);
    expect(cost['mode:high']).toBeCloseTo(cost['argmax']!, 12); // $1000 per query never binds
    expect(cost['cheapest']).toBeLessThanOrEqual(cost['mode:low']!);
    expect(cost['budget:0.02']).toBeLessThanOrEqual(0.02);
    expect(cost['budget:0.02']).toBeLessThan(cost['argmax']!);
  });

  it('the step debugger shows the same choices as the replay, and regret = max ŝ − ŝ(logged)', () => {
    const data = loadReplayData(db, {});
    const pass = runPolicy(data, compilePolicy(data, parsePolicySpec('budget:0.02')));
    for (const e of [0, 7, 123]) {
      const r = episodePolicyChoices(db, { episode: data.episodeId[e]!, policies: ['budget:0.02', 'logged'] });
      const start = data.turnStart[e]!;
      r.turns.forEach((turn, k) => {
        expect(turn.choices[0]).toBe(data.models[pass.choice[start + k]!]);
        expect(turn.choices[1]).toBe(turn.logged);
        const best = Math.max(...Object.values(turn.s_hat));
        expect(turn.regret).toBeCloseTo(best - turn.s_hat[turn.logged]!, 12);
      });
    }
  });

  it('paired diff of two policies: rows are the disagreeing turns, argmax never has lower ŝ', () => {
    const r = policyDiff(db, { kind: 'policies', a: 'logged', b: 'argmax', bootstrap: 200, limit: 50 });
    const [argmax] = replayPolicies(db, { policies: ['argmax'], bootstrap: 0 }).policies;
    expect(r.summary.disagreements).toBe(Math.round((1 - argmax!.agreement) * r.summary.turns));
    expect(r.rows).toHaveLength(50);
    expect(r.total_rows).toBe(r.summary.disagreements);
    for (const row of r.rows) expect(row.delta_s_hat).toBeGreaterThan(0);
    expect(r.summary.mean_delta_s_hat.ci![0]).toBeGreaterThan(0);
    expect(r.summary.delta_score.method).toBe('dr');
    expect(r.summary.delta_cost.estimate).not.toBeNull();
  });

  it('paired diff of two runs aligns episodes of the same task turn by turn', () => {
    const runs = db.prepare('SELECT id FROM runs ORDER BY id').pluck().all() as number[];
    const r = policyDiff(db, { kind: 'runs', runA: runs[0]!, runB: runs[1]!, bootstrap: 100 });
    expect(r.summary.pairs).toBeGreaterThan(10);
    expect(r.summary.delta_score.method).toBe('logged');
    const row = r.rows[0]!;
    const turnModel = db.prepare('SELECT m.name FROM turns t JOIN models m ON m.id = t.model_id WHERE t.episode_id = ? AND t.t = ?').pluck();
    expect(turnModel.get(row.episode, row.t) ?? null).toBe(row.a);
    expect(turnModel.get(row.episode_b, row.t) ?? null).toBe(row.b);
  });
});
