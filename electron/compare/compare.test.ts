// Compare's engine against the hand-worked database of compareFixture.testSupport.ts (every figure there).
import { beforeAll, describe, expect, it } from 'vitest';
import { CompareResult } from '../../shared/apiCompare.ts';
import { join } from 'node:path';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { compare, CompareError } from './compare.ts';
import { selectSide, sqliteReads } from './compareSides.ts';
import { attributeCost } from './costAttribution.ts';
import { buildCompareDb, RB_CALL_ON_GPT5 } from './compareFixture.testSupport.ts';

const tempDir = useSuiteTempDir();

describe('compare', () => {
  let db: Db;
  let dir: string;
  let run: (name: string) => number;
  beforeAll(async () => {
    dir = tempDir();
    db = (await buildCompareDb(dir)).db;
    run = (name) => db.prepare('SELECT id FROM runs WHERE name = ?').pluck().get(name) as number;
  });
  const ab = (extra: Record<string, unknown> = {}) => compare(db, { a: { runIds: [run('ra')] }, b: { runIds: [run('rb')] }, bootstrap: 200, ...extra });

  it('pairs by task: epochs averaged, children folded, unpaired tasks and task-less episodes listed apart', () => {
    const r = ab();
    expect(CompareResult.parse(r)).toEqual(r);
    expect(r.pairing.paired_tasks).toBe(4);
    expect(r.pairing.unpaired_a).toEqual(['T5', 'a6']);
    expect(r.pairing.unpaired_b).toEqual(['T6']);
    expect(r.pairing.notes).toEqual(expect.arrayContaining([
      '1 task had several episodes on A: averaged first',
      '1 episode on A without a task id: unpaired',
      '1 child episode (subagents, compactions) folded into their parent sessions',
    ]));
    const aEp = (ext: string) => db.prepare('SELECT id FROM episodes WHERE ext_id = ?').pluck().get(ext) as number;
    // T1 on A: a1 (success, .30) and a2 (failure, .10) → .5 and .20; a4-sub, which also claims T1, is not an attempt.
    expect(r.tasks.map((t) => t.task_id)).toEqual(['T1', 'T2', 'T3', 'T4']);
    expect(r.tasks[0]).toMatchObject({ a_n: 2, b_n: 1, a_success: 0.5, b_success: 1, a_score: 0.5, b_score: 1, winner: 'b', a_episode: aEp('a1'), b_episode: aEp('b1') });
    expect(r.tasks[0]!.a_cost).toBeCloseTo(0.2, 12);
    expect(r.tasks[0]!.d_cost).toBeCloseTo(-0.15, 12);
    // T3 on A costs its own .40 and its subagent's .05; T4's A cost is unknown, never 0.
    expect(r.tasks[2]!.a_cost).toBeCloseTo(0.45, 12);
    expect(r.tasks[3]).toMatchObject({ a_cost: null, d_cost: null, winner: 'a' });
    expect(r.tasks[1]).toMatchObject({ winner: 'tie', d_score: 0 });
  });

  it('summarises each side over sessions, with unknown costs counted apart', () => {
    const { a, b } = ab();
    // A: sessions a1 a2 a3 a4 a5 a6 a7; successes a1 a3 a5 a6; known cost .30 + .10 + .10 + .45 + 0 + .01 + .10.
    expect(a).toMatchObject({ label: 'ra', runs: ['ra'], episodes: 7, tasks: 5, with_outcome: 7, unpriced_episodes: 1, tasks_averaged: 1 });
    expect(a.success_rate).toBeCloseTo(4 / 7, 12);
    expect(a.mean_score).toBeCloseTo(4 / 7, 12);
    expect(a.known_cost).toBeCloseTo(1.06, 12);
    expect(b).toMatchObject({ episodes: 5, tasks: 5, success_rate: 0.8, unpriced_episodes: 0, tasks_averaged: 0 });
    expect(b.known_cost).toBeCloseTo(0.15, 12);
  });

  it('gives the paired statistics of the hand-worked pairs', () => {
    const { stats, outcomes_known } = ab();
    expect(outcomes_known).toBe(true);
    // T1 fails on A (.5 is not more than half) and succeeds on B; T2 both; T3 B only; T4 A only.
    expect(stats.success).toMatchObject({ n: 4, both: 1, a_only: 1, b_only: 2, neither: 0, diff: 0.25 });
    // Exact McNemar on (1, 2): 2 · P(X ≤ 1), X ~ Bin(3, ½) = 2 · 4/8 → 1.
    expect(stats.success!.p_value).toBeCloseTo(1, 12);
    // Score differences .5, 0, 1, −1; cost differences −.15, −.08, −.42 (T4 unknown).
    expect(stats.score!.n).toBe(4);
    expect(stats.score!.mean_diff).toBeCloseTo(0.125, 12);
    expect(stats.cost).toMatchObject({ n: 3, n_unknown: 1 });
    expect(stats.cost!.mean_diff).toBeCloseTo(-0.65 / 3, 12);
    const [lo, hi] = stats.cost!.ci!;
    expect(lo).toBeGreaterThanOrEqual(-0.42 - 1e-12);
    expect(hi).toBeLessThanOrEqual(-0.08 + 1e-12);
    expect(stats.wins).toEqual({ a: 1, tie: 1, b: 2 });
    expect(ab({ seed: 7 }).stats.cost!.ci).toEqual(ab({ seed: 7 }).stats.cost!.ci);
  });

  it('attributes cost per model and scope, unknown calls apart', () => {
    const { attribution } = ab();
    const row = (side: 'a' | 'b', model: string, scope: string) => attribution[side].find((m) => m.model === model && m.scope === scope);
    expect(row('a', 'gpt-5', 'main')).toMatchObject({ calls: 8, unknown_calls: 1 });
    expect(row('a', 'gpt-5', 'main')!.cost).toBeCloseTo(0.96, 12);
    expect(row('a', 'kimi-k2', 'main')).toMatchObject({ calls: 1 });
    expect(row('a', 'kimi-k2', 'main')!.cost).toBeCloseTo(0.05, 12);
    expect(row('a', 'kimi-k2', 'subagent')).toMatchObject({ calls: 2, unknown_calls: 0 });
    expect(row('a', 'kimi-k2', 'subagent')!.cost).toBeCloseTo(0.05, 12);
    expect(attribution.b).toEqual([
      { model: 'kimi-k2', scope: 'main', calls: 5, tokens_in: 5000, tokens_out: 500, tokens_cached: 1000, tokens_cache_write: 0, cost: expect.closeTo(0.15, 12), unknown_calls: 0 },
    ]);
  });

  it('sums a whole run\'s cost by model in SQL exactly as from the kept per-episode rows', async () => {
    const real = openDatabase(join(dir, 'real.db'));
    await importPaths(real, ['fixtures/samples/claude-code', 'fixtures/samples/uno', 'fixtures/samples/swe-agent', 'fixtures/samples/aider']);
    const runs = [...(real.prepare('SELECT id FROM runs').pluck().all() as number[]), ...[run('ra'), run('rb')].map((id) => -id)];
    let multiModelTotals = 0;
    for (const id of runs) {
      const on = sqliteReads(id < 0 ? db : real);
      const parts = selectSide(on, { runIds: [Math.abs(id)] }, 'A');
      expect(parts.every((p) => p.whole && p.data.plainChildren)).toBe(true);
      const bySql = attributeCost(on, parts);
      const byRows = attributeCost(on, parts.map((p) => ({ ...p, whole: false })));
      expect(bySql.rows.map((r) => [r.model, r.scope, r.calls, r.tokens_in, r.tokens_out, r.tokens_cached, r.tokens_cache_write, r.unknown_calls])).toEqual(
        byRows.rows.map((r) => [r.model, r.scope, r.calls, r.tokens_in, r.tokens_out, r.tokens_cached, r.tokens_cache_write, r.unknown_calls]),
      );
      bySql.rows.forEach((r, i) => expect(r.cost).toBeCloseTo(byRows.rows[i]!.cost, 12));
      expect(bySql.unattributedEpisodes).toBe(byRows.unattributedEpisodes);
      expect(bySql.unattributedCost).toBeCloseTo(byRows.unattributedCost, 12);
      multiModelTotals += bySql.unattributedEpisodes;
    }
    real.close();
    // The samples include logs that give only a total for several models (Uno's orchestrator and workers).
    expect(multiModelTotals).toBeGreaterThan(0);
  });

  it('prices every call on a counterfactual model, leaving out sessions it cannot price', () => {
    const r = ab({ counterfactual_model: 'GPT-5' });
    const cf = r.counterfactual!;
    expect(cf.model).toBe('gpt-5');
    // A's gpt-5 calls keep their cost: a1 .30 + a2 .10 + a6 .01 + a7 .10; a3, a4 (its child) and a5 have K or
    // unknown calls without tokens. B: five calls at gpt-5's list price.
    expect(cf.a_cost).toBeCloseTo(0.51, 12);
    expect(cf.b_cost).toBeCloseTo(5 * RB_CALL_ON_GPT5, 12);
    expect(cf.n_unknown).toBe(3);
    expect(cf.assumption).toMatch(/output-length ratio/);
    expect(r.tasks[0]!.a_counterfactual_cost).toBeCloseTo(0.2, 12);
    expect(r.tasks[0]!.b_counterfactual_cost).toBeCloseTo(RB_CALL_ON_GPT5, 12);
    expect(r.tasks[1]!.a_counterfactual_cost).toBeNull();
  });

  it('splits one run by its main model (ties: the first to appear), any spelling of the model', () => {
    const r = compare(db, {
      a: { runIds: [run('ra')], where: { field: 'model', value: 'openai/gpt-5' } },
      b: { runIds: [run('ra')], where: { field: 'model', value: 'Kimi-K2' } },
      bootstrap: 0,
    });
    expect(r.a).toMatchObject({ label: 'ra (model = openai/gpt-5)', episodes: 6 });
    expect(r.b).toMatchObject({ episodes: 1, tasks: 1 });
    expect(r.pairing.paired_tasks).toBe(0);
    expect(r.pairing.notes).toContain('no task id is on both sides: nothing to pair');
    expect(r.stats).toMatchObject({ success: null, score: null, cost: null, wins: { a: 0, tie: 0, b: 0 } });
  });

  it('splits one run by policy, the episode\'s own name', () => {
    const r = compare(db, {
      a: { runIds: [run('na')] },
      b: { runIds: [run('nb')], where: { field: 'policy', value: 'p-two' } },
      bootstrap: 0,
    });
    expect(r.b).toMatchObject({ episodes: 1, tasks: 1 });
    expect(r.pairing.paired_tasks).toBe(1);
    expect(() => compare(db, { a: { runIds: [run('na')] }, b: { runIds: [run('nb')], where: { field: 'policy', value: 'p-three' } } })).toThrow(
      /values there: "p-one", "p-two"/,
    );
  });

  it('compares runs without outcomes on cost alone, and says so', () => {
    const r = compare(db, { a: { runIds: [run('na')], label: 'before' }, b: { runIds: [run('nb')] }, bootstrap: 100 });
    expect(r.outcomes_known).toBe(false);
    expect(r.a.label).toBe('before');
    expect(r.stats.success).toBeNull();
    expect(r.stats.score).toBeNull();
    expect(r.stats.cost!.mean_diff).toBeCloseTo(0, 12);
    expect(r.tasks.every((t) => t.winner === null)).toBe(true);
  });

  it('answers a request that names what is not there with one line', () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(CompareError);
        return (e as Error).message;
      }
      throw new Error('expected an error');
    };
    expect(err(() => compare(db, { a: { runIds: [999] }, b: { runIds: [run('rb')] } }))).toBe('no run with id 999');
    expect(err(() => compare(db, { a: { runIds: [run('ra')], where: { field: 'model', value: 'nope\n' } }, b: { runIds: [run('rb')] } }))).toBe(
      'side A: no episode of "ra" has model = "nope\\n" (values there: "gpt-5", "kimi-k2")',
    );
    expect(err(() => ab({ counterfactual_model: 'nope' }))).toMatch(/^no model named "nope"/);
    expect(err(() => ab({ bootstrap: -1 }))).toMatch(/^bootstrap: /);
  });
});
