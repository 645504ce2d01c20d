// Off-policy estimates on three episodes small enough to compute by hand (the numbers in the comments).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { episodeOpeTerms, opeEstimates } from './ope.ts';
import { replayPolicies } from './replayRun.ts';
import type { PolicyReplay } from '../../shared/apiReplay.ts';

const A = 'gpt-5';
const B = 'deepseek-v3.2';

/**
 * Two models A and B, terminal scores R, logged propensities μ of the chosen model, and ŝ per turn:
 *   ep1: A (μ .5, ŝ A .6 B .4), A (μ .8, ŝ A .7 B .5), R = 1
 *   ep2: A (μ .5, ŝ A .5 B .3), B (μ .2, ŝ A .4 B .2), R = 0
 *   ep3: B (μ .5, ŝ A .2 B .7),                        R = 0.6
 */
const EPISODES = [
  { id: 'ep1', score: 1, turns: [[A, 0.5, 1000, 100, 0, { [A]: 0.6, [B]: 0.4 }], [A, 0.8, 1500, 100, 1000, { [A]: 0.7, [B]: 0.5 }]] },
  { id: 'ep2', score: 0, turns: [[A, 0.5, 1000, 100, 0, { [A]: 0.5, [B]: 0.3 }], [B, 0.2, 1500, 400, 0, { [A]: 0.4, [B]: 0.2 }]] },
  { id: 'ep3', score: 0.6, turns: [[B, 0.5, 1000, 400, 0, { [A]: 0.2, [B]: 0.7 }]] },
] as const;

function line(ep: (typeof EPISODES)[number]): string {
  return JSON.stringify({
    schema: 'routelens/v1',
    run: 'hand',
    episode_id: ep.id,
    task: { id: ep.id, type: 'qa', category: 'q', split: 'test', difficulty: null, text: 'a question' },
    outcome: { score: ep.score, score_range: [0, 1], success: ep.score === 1, exit: 'Submitted' },
    budget: { mode: null, usd: null, max_turns: 10 },
    policy: { name: 'stochastic router', kind: 'learned', train_step: null },
    turns: ep.turns.map(([model, p, tin, tout, cached], t) => ({
      t,
      model,
      action: { type: 'tool', tool: 'python', text: 'print(1)' },
      observation: 'ok',
      tokens: { in: tin, out: tout, cached },
      propensity: p,
    })),
  });
}

const tempDir = useSuiteTempDir();
let db: Db;

beforeAll(async () => {
  const dir = tempDir();
  const file = join(dir, 'hand.jsonl');
  writeFileSync(file, EPISODES.map(line).join('\n') + '\n');
  db = openDatabase(join(dir, 'hand.db'));
  await importPaths(db, [file]);
  const est = Number(db.prepare(`INSERT INTO estimators (name, created_at, encoder, config_json) VALUES ('hand', '2025-01-01', 'none', '{}')`).run().lastInsertRowid);
  const turnId = db.prepare('SELECT t.id FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.ext_id = ? AND t.t = ?').pluck();
  const modelId = db.prepare('SELECT id FROM models WHERE name = ?').pluck();
  const insert = db.prepare('INSERT INTO estimates (estimator_id, turn_id, model_id, s_hat) VALUES (?, ?, ?, ?)');
  for (const ep of EPISODES) {
    ep.turns.forEach(([, , , , , s], t) => {
      for (const [m, v] of Object.entries(s)) insert.run(est, turnId.get(ep.id, t), modelId.get(m), v);
    });
  }
});

function replay(...policies: string[]): PolicyReplay[] {
  return replayPolicies(db, { policies, bootstrap: 0 }).policies;
}

describe('OPE formulas by hand', () => {
  it('per-episode terms: weight and DR of "always A"', () => {
    // ep1: ρ = 1/.5, 1/.8 → W = 2.5; DR = .6 + 2(.7 − .6) + 2.5(1 − .7) = 1.55
    const e1 = episodeOpeTerms([2, 1.25], [0.6, 0.7], [0.6, 0.7], 1);
    expect(e1.weight).toBeCloseTo(2.5, 12);
    expect(e1.dr).toBeCloseTo(1.55, 12);
    // ep2: ρ = 2, 0 → W = 0; DR = .5 + 2(.4 − .5) = .3 (the term after the divergence vanishes)
    const e2 = episodeOpeTerms([2, 0], [0.5, 0.2], [0.5, 0.4], 0);
    expect(e2).toEqual({ weight: 0, dr: expect.closeTo(0.3, 12) });
    const est = opeEstimates([2.5, 0, 0], [1, 0, 0.6], [1.55, 0.3, 0.2]);
    expect(est.ips).toBeCloseTo(2.5 / 3, 12);
    expect(est.wis).toBeCloseTo(1, 12);
    expect(est.dr).toBeCloseTo(2.05 / 3, 12);
    expect(est.ess).toBeCloseTo(1, 12);
  });
});

describe('replay of the hand-worked episodes', () => {
  it('fixed:A — IPS 0.8333, WIS 1, DR 0.6833, ESS 1, DM 0.4333', () => {
    const [p] = replay(`fixed:${A}`);
    expect(p!.ope).toMatchObject({ n: 3 });
    expect(p!.ope!.ips).toBeCloseTo(2.5 / 3, 12);
    expect(p!.ope!.wis).toBeCloseTo(1, 12);
    expect(p!.ope!.dr).toBeCloseTo(2.05 / 3, 12);
    expect(p!.ope!.ess).toBeCloseTo(1, 12);
    // DM: mean of ŝ(h_0, A) = (.6 + .5 + .2) / 3
    expect(p!.est_score).toBeCloseTo(1.3 / 3, 12);
    // 3 of 5 turns are A; ep1 never diverges, ep2 at t = 1, ep3 at t = 0
    expect(p!.agreement).toBeCloseTo(3 / 5, 12);
    expect(p!.episode_agreement).toBeCloseTo(1 / 3, 12);
    expect(p!.first_divergence).toEqual({ histogram: [{ t: 0, n: 1 }, { t: 1, n: 1 }], never: 1, median: 0.5 });
    expect(p!.switches).toBe(0);
  });

  it('random — π = 1/2 each: IPS 0.40833, WIS 0.29697, DR 0.24583, ESS 2.22699', () => {
    // W = (.5/.5)(.5/.8) = .625, (.5/.5)(.5/.2) = 2.5, .5/.5 = 1
    // IPS = (.625·1 + 2.5·0 + 1·.6)/3; WIS = 1.225/4.125; ESS = 4.125²/(.625² + 2.5² + 1)
    // DR: ep1 .5 + 1(.6 − .6) + .625(1 − .7) = .6875; ep2 .4 + (.3 − .5) + 2.5(0 − .2) = −.3; ep3 .45 + (.6 − .7) = .35
    const [p] = replay('random:7');
    expect(p!.ope!.ips).toBeCloseTo(1.225 / 3, 12);
    expect(p!.ope!.wis).toBeCloseTo(1.225 / 4.125, 12);
    expect(p!.ope!.ess).toBeCloseTo(4.125 ** 2 / (0.625 ** 2 + 2.5 ** 2 + 1), 12);
    expect(p!.ope!.dr).toBeCloseTo(0.7375 / 3, 12);
    // Three episodes are far from enough: the values are kept for the record, flagged, and not the policy's score.
    expect(p!.ope!.support.ips).toMatch(/^insufficient support: an effective sample size of 2.2 of 3/);
    expect(p!.ope!.support.dr).toBe(p!.ope!.support.ips);
    expect(p!.est_score).toBeCloseTo((0.5 + 0.4 + 0.45) / 3, 12);
    // expected agreement 1/2 per turn; expected switches: 1/2 per second turn (ep1, ep2)
    expect(p!.agreement).toBeCloseTo(0.5, 12);
    expect(p!.switches).toBeCloseTo(1 / 3, 12);
  });

  it('logged — the behaviour policy: IPS = WIS = DR = mean score, ESS = n', () => {
    const [p] = replay('logged');
    expect(p!.agreement).toBe(1);
    expect(p!.ope!.ips).toBeCloseTo(1.6 / 3, 12);
    expect(p!.ope!.wis).toBeCloseTo(1.6 / 3, 12);
    expect(p!.ope!.dr).toBeCloseTo(1.6 / 3, 12);
    expect(p!.ope!.ess).toBeCloseTo(3, 12);
  });

  it('prices other models from tokens with the learned output-length ratio', () => {
    // One tool, A writes 100 tokens and B 400: ratios A 0.5, B 2 (geometric mean 1).
    const r = replayPolicies(db, { policies: ['logged', `fixed:${A}`], bootstrap: 0 });
    expect(r.output_ratio[A]).toBeCloseTo(0.5, 9);
    expect(r.output_ratio[B]).toBeCloseTo(2, 9);
    const price = db.prepare('SELECT price_in_per_m AS pin, price_out_per_m AS pout FROM models WHERE name = ?').get(A) as { pin: number; pout: number };
    const logged = db.prepare('SELECT t.cost FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.ext_id = ? AND t.t = ?').pluck();
    const c = (ext: string, t: number): number => logged.get(ext, t) as number;
    // B turns re-priced as A: 400 output tokens × 0.5 / 2 = 100; no cached tokens on them.
    const asA = (tin: number): number => (tin * price.pin + 100 * price.pout) / 1e6;
    const expected = (c('ep1', 0) + c('ep1', 1) + c('ep2', 0) + asA(1500) + asA(1000)) / 3;
    expect(r.policies[1]!.est_cost).toBeCloseTo(expected, 12);
    expect(r.policies[0]!.est_cost).toBeCloseTo((c('ep1', 0) + c('ep1', 1) + c('ep2', 0) + c('ep2', 1) + c('ep3', 0)) / 3, 12);
    expect(r.logged.cost).toBeCloseTo(r.policies[0]!.est_cost as number, 12);
  });

  it('argmax follows ŝ: A, A | A, A | B', () => {
    const [p] = replay('argmax');
    // ep2 t1: ŝ A .4 > B .2, so argmax keeps A where the log chose B; ep3 t0: B .7 > A .2
    expect(p!.agreement).toBeCloseTo(4 / 5, 12);
    expect(p!.first_divergence.histogram).toEqual([{ t: 1, n: 1 }]);
  });
});
