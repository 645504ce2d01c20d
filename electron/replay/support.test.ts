// Estimates honest about their support (issue 35): a deterministic logger supports no policy that departs from it,
// and an estimate on a handful of effective episodes or outside the score range is no policy's score.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { noSupportReason, unsupportedTurn, weakSupportReason } from './ope.ts';
import { replayPolicies } from './replayRun.ts';
import { policyDiff } from './policyDiff.ts';

const A = 'gpt-5';
const B = 'deepseek-v3.2';

describe('the support rules', () => {
  it('a turn the log chose with certainty supports only that choice', () => {
    expect(unsupportedTurn(1, 1)).toBe(false);
    expect(unsupportedTurn(1, 0)).toBe(true);
    expect(unsupportedTurn(1, 0.5)).toBe(true);
    expect(unsupportedTurn(0.999, 0)).toBe(false);
  });

  it('says why there is no estimate at all', () => {
    expect(noSupportReason({ n: 5, unsupportedTurns: 0, unsupportedEpisodes: 0, weightSum: 3 })).toBeNull();
    expect(noSupportReason({ n: 5, unsupportedTurns: 7, unsupportedEpisodes: 2, weightSum: 3 })).toMatch(/at 7 turns of 2 episodes .* propensity 1/);
    expect(noSupportReason({ n: 5, unsupportedTurns: 0, unsupportedEpisodes: 0, weightSum: 0 })).toMatch(/all 5 episodes/);
  });

  it('an ESS under 10 or a value outside [0, 1] is insufficient support', () => {
    expect(weakSupportReason(0.5, 10, 180)).toBeNull();
    expect(weakSupportReason(0.5, 1.9, 180)).toMatch(/^insufficient support: an effective sample size of 1.9 of 180/);
    expect(weakSupportReason(1.031, 50, 180)).toMatch(/^insufficient support: 1.031 lies outside the score range \[0, 1\]/);
    expect(weakSupportReason(-0.2, 50, 180)).toMatch(/outside the score range/);
    // Equal weights over a small run: an on-policy mean, not a reweighting of a few episodes.
    expect(weakSupportReason(0.5, 6, 6)).toBeNull();
    expect(weakSupportReason(0.5, 5, 6)).toMatch(/effective sample size of 5.0 of 6/);
  });
});

/** 24 episodes of a deterministic router: always A (μ = 1); ŝ favours B on every turn. */
const EPISODES = Array.from({ length: 24 }, (_, i) => ({
  id: `d${i}`,
  score: i % 3 === 0 ? 0 : 1,
  turns: [0, 1, 2].map((t) => ({ t, model: A, propensity: 1, sHat: { [A]: 0.4, [B]: 0.6 + t * 0.01 } })),
}));

const tempDir = useSuiteTempDir();
let db: Db;

beforeAll(async () => {
  const dir = tempDir();
  const file = join(dir, 'det.jsonl');
  const line = (ep: (typeof EPISODES)[number]) =>
    JSON.stringify({
      schema: 'routelens/v1',
      run: 'deterministic',
      episode_id: ep.id,
      task: { id: ep.id, type: 'qa', text: 'a question' },
      outcome: { score: ep.score, score_range: [0, 1], success: ep.score === 1 },
      turns: ep.turns.map((t) => ({ t: t.t, model: t.model, action: { type: 'message', text: 'x' }, tokens: { in: 100, out: 10 }, propensity: t.propensity })),
    });
  writeFileSync(file, EPISODES.map(line).join('\n') + '\n');
  db = openDatabase(join(dir, 'det.db'));
  await importPaths(db, [file]);
  // B must be a known model for ŝ of it; the log itself never chose it.
  db.prepare(`INSERT OR IGNORE INTO models (name) VALUES (?)`).run(B);
  const est = Number(db.prepare(`INSERT INTO estimators (name, created_at, encoder, config_json) VALUES ('det', '2025-01-01', 'none', '{}')`).run().lastInsertRowid);
  const turnId = db.prepare('SELECT t.id FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.ext_id = ? AND t.t = ?').pluck();
  const modelId = db.prepare('SELECT id FROM models WHERE name = ?').pluck();
  const insert = db.prepare('INSERT INTO estimates (estimator_id, turn_id, model_id, s_hat) VALUES (?, ?, ?, ?)');
  for (const ep of EPISODES) for (const t of ep.turns) for (const [m, v] of Object.entries(t.sHat)) insert.run(est, turnId.get(ep.id, t.t), modelId.get(m), v);
});

describe('a deterministic logger', () => {
  it('has no IPS / WIS / DR for a policy that departs from it, says why, and the frontier takes the direct method', () => {
    const r = replayPolicies(db, { policies: ['logged', `fixed:${B}`, 'argmax'], bootstrap: 50 });
    const [logged, fixedB, argmax] = r.policies;
    // The logger itself: weights 1, every estimate stands.
    expect(logged!.ope).toMatchObject({ n: 24, ess: 24, support: { ips: null, wis: null, dr: null } });
    expect(logged!.ope!.ips).toBeCloseTo(16 / 24, 12);
    for (const p of [fixedB!, argmax!]) {
      // Before: IPS 0.000 [0, 0] — every episode weighted 0, read as a policy that always fails.
      expect(p.ope).toMatchObject({ ips: null, wis: null, dr: null, ci: { ips: null, wis: null, dr: null } });
      expect(p.ope!.support.ips).toMatch(/^no support in the log: at 72 turns of 24 episodes .*propensity 1/);
      expect(p.notes.some((n) => n.startsWith('no IPS / WIS / DR: no support'))).toBe(true);
      expect(r.frontier.find((f) => f.policy === p.policy)).toMatchObject({ score_source: 'dm' });
      expect(p.est_score).not.toBeNull();
    }
  });

  it('a paired diff of two policies falls back to the direct method', () => {
    const d = policyDiff(db, { kind: 'policies', a: 'logged', b: `fixed:${B}`, bootstrap: 50 });
    expect(d.kind === 'policies' && d.summary.delta_score.method).toBe('dm');
  });
});
