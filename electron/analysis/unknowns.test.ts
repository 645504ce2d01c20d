// Issue 15: unknown outcomes and costs stay unknown in the columnar cache, the analyses, the run KPIs and the
// policy lab, and child episodes (subagents) count once. Every expected number is worked out in the comments.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { episodeRowById, listRuns } from '../db/episodeQueries.ts';
import { importPaths } from '../importers/pipeline.ts';
import { policyDiff } from '../replay/policyDiff.ts';
import { replayPolicies } from '../replay/replayRun.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { columnar } from './columnar.ts';
import { budgetModesAnalysis, usageRatioAnalysis } from './controllerAnalyses.ts';
import { paretoAnalysis } from './pareto.ts';
import { switchCostAnalysis } from './switchCost.ts';

const tempDir = useSuiteTempDir();

const A = 'gpt-5';
const K = 'kimi-k2';

/** [model, logged cost or null = unknown (no cost, no tokens)] per turn. */
type Turn = [string, number | null];

function episode(run: string, id: string, turns: Turn[], extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    schema: 'routelens/v1',
    run,
    episode_id: id,
    ...extra,
    turns: turns.map(([model, cost], t) => ({
      t, model, action: { type: 'tool', tool: 'bash', text: 'ls' }, observation: 'ok', ...(cost === null ? {} : { cost_usd: cost }),
    })),
  });
}

const win = { outcome: { success: true, score: 1 } };
const loss = { outcome: { success: false, score: 0 } };
const low = { budget: { mode: 'low', max_turns: 2 } };

/**
 * Run r: seven sessions, two children.
 *   e1  success    T1  A .10, A .20                 cost .30
 *   e2  failure    T2  A .05, K ?                   cost unknown
 *   e3  no outcome T3  A .40                        cost .40
 *   e4  success    T4  A .10, K .10 (switch)        own .20 + child e4-sub (K .05, K .05) = .30
 *   e5  success    T5  A .10                        own .10 + child e5-sub (K .02, K ?) = unknown
 *   e6  failure    T6  A .60                        cost .60
 *   orphan (a child of a parent not in the run: it stands alone), no outcome, A .01
 * e1–e6 have budget mode low and max_turns 2; e4-sub claims task T1 (it must not be paired as an attempt at it).
 * Run b: b1 success T1 A .20; b2 no outcome T2 A .10; b3 success T3 A ? (unknown).
 */
const LINES = [
  episode('r', 'e1', [[A, 0.1], [A, 0.2]], { ...win, ...low, task: { id: 'T1' } }),
  episode('r', 'e2', [[A, 0.05], [K, null]], { ...loss, ...low, task: { id: 'T2' } }),
  episode('r', 'e3', [[A, 0.4]], { ...low, task: { id: 'T3' } }),
  episode('r', 'e4', [[A, 0.1], [K, 0.1]], { ...win, ...low, task: { id: 'T4' } }),
  episode('r', 'e4-sub', [[K, 0.05], [K, 0.05]], { kind: 'subagent', parent: { episode_id: 'e4', t: 1 }, task: { id: 'T1' } }),
  episode('r', 'e5', [[A, 0.1]], { ...win, ...low, task: { id: 'T5' } }),
  episode('r', 'e5-sub', [[K, 0.02], [K, null]], { kind: 'subagent', parent: { episode_id: 'e5' } }),
  episode('r', 'e6', [[A, 0.6]], { ...loss, ...low, task: { id: 'T6' } }),
  episode('r', 'orphan', [[A, 0.01]], { kind: 'subagent', parent: { episode_id: 'missing' } }),
  episode('b', 'b1', [[A, 0.2]], { ...win, task: { id: 'T1' } }),
  episode('b', 'b2', [[A, 0.1]], { task: { id: 'T2' } }),
  episode('b', 'b3', [[A, null]], { ...win, task: { id: 'T3' } }),
];

describe('unknown outcomes, unknown costs and child episodes', () => {
  let db: Db;
  beforeAll(async () => {
    const dir = tempDir();
    const file = join(dir, 'unknowns.jsonl');
    writeFileSync(file, `${LINES.join('\n')}\n`);
    db = openDatabase(join(dir, 'unknowns.db'));
    await importPaths(db, [file]);
  });

  const index = (ext: string): number => {
    const id = db.prepare('SELECT id FROM episodes WHERE ext_id = ?').pluck().get(ext) as number;
    return columnar(db).episodeId.indexOf(id);
  };

  it('columnar cache: unknown turn costs are NaN, children fold into their session', () => {
    const data = columnar(db);
    expect(Array.from(data.turnCost).filter(Number.isNaN)).toHaveLength(3); // e2 t1, e5-sub t1, b3 t0
    expect(data.episodeCost[index('e4')]).toBeCloseTo(0.3, 6);
    expect(data.episodeCost[index('e1')]).toBeCloseTo(0.3, 6);
    for (const e of ['e2', 'e5', 'b3']) expect(data.episodeCost[index(e)], e).toBeNaN();
    expect(data.episodeParent[index('e4-sub')]).toBe(index('e4'));
    expect(data.episodeParent[index('e5-sub')]).toBe(index('e5'));
    expect(data.episodeParent[index('orphan')]).toBe(-1);
    expect(data.episodeParent[index('e4')]).toBe(-1);
  });

  it('pareto: means over sessions with a known outcome and cost; the rest counted', () => {
    // Known both: e1 (1, .30), e4 (1, .30), e6 (0, .60) → n 3, score 2/3, cost .40.
    // No outcome: e3, orphan; scored with unknown cost: e2, e5.
    const result = paretoAnalysis(db, { runs: ['r'] });
    expect(result.coverage).toEqual({ episodes: 7, unknown_outcome: 2, unknown_cost: 2 });
    expect(result.points).toHaveLength(1);
    expect(result.points[0]).toMatchObject({ run: 'r', n: 3, mean_score: expect.closeTo(2 / 3, 9), mean_cost: expect.closeTo(0.4, 6) });
  });

  it('switch-cost: successful sessions only; unknown outcome is no failure, unknown cost out of the scatter', () => {
    // Successes e1, e4, e5; e5's cost is unknown (its child's). Curve over own turns, all known:
    // t0: (.10 + .10 + .10) / 3; t1: (.30 + .20) / 2.
    const result = switchCostAnalysis(db, { runs: ['r'] });
    expect(result.coverage).toEqual({ episodes: 7, unknown_outcome: 2, unknown_cost: 1 });
    const [run] = result.runs;
    expect(run?.episodes.map((e) => [e.episode, e.switches, e.turns])).toEqual([['e1', 0, 2], ['e4', 1, 2]]);
    expect(run?.episodes[1]?.cost).toBeCloseTo(0.3, 6);
    expect(run?.mean_cumulative_cost.map((c) => c.n)).toEqual([3, 2]);
    expect(run?.mean_cumulative_cost[0]?.mean).toBeCloseTo(0.1, 6);
    expect(run?.mean_cumulative_cost[1]?.mean).toBeCloseTo(0.25, 6);
  });

  it('switch-cost leaves an episode with an unknown turn cost out of the curve', () => {
    // b: successes b1 (.20) and b3 (its only turn unknown): b3 is in neither the scatter nor the curve.
    const result = switchCostAnalysis(db, { runs: ['b'] });
    expect(result.coverage).toEqual({ episodes: 3, unknown_outcome: 1, unknown_cost: 1 });
    expect(result.runs[0]?.episodes.map((e) => e.episode)).toEqual(['b1']);
    expect(result.runs[0]?.mean_cumulative_cost).toEqual([{ t: 0, mean: expect.closeTo(0.2, 6), n: 1 }]);
  });

  it('budget-modes and usage-ratio: unknowns left out of their means, children not episodes', () => {
    // Mode low: e1–e6. Scores of e1 e2 e4 e5 e6 = 1 0 1 1 0 → .6; known costs e1 .3, e3 .4, e4 .3, e6 .6 → .4.
    const modes = budgetModesAnalysis(db, { runs: ['r'] });
    expect(modes.coverage).toEqual({ episodes: 6, unknown_outcome: 1, unknown_cost: 2 });
    expect(modes.modes[0]).toMatchObject({ mode: 'low', n: 6, mean_score: expect.closeTo(0.6, 9), mean_cost: expect.closeTo(0.4, 6) });
    // Max turns 2: e1 e2 e4 used both (e3 e5 e6 one); accuracy over the 5 with an outcome: 3 / 5.
    // Calls are every turn, children's included: 2+2+1+2+2+1+2+1+1 = 14.
    const ratio = usageRatioAnalysis(db, { runs: ['r'] });
    expect(ratio.coverage).toEqual({ episodes: 6, unknown_outcome: 1, unknown_cost: 0 });
    expect(ratio.runs[0]).toMatchObject({ calls: 14, exhausted_turn_budget: 0.5, accuracy_by_max_turns: [{ max_turns: 2, n: 5, accuracy: 0.6 }] });
  });

  it('run KPIs: sessions, success rate over known outcomes, no total when a cost is unknown', () => {
    const runs = listRuns(db);
    const r = runs.find((x) => x.name === 'r');
    const b = runs.find((x) => x.name === 'b');
    // r: known part of every episode's total: .30 + .05 + .40 + .20 + .10 + .10 + .02 + .60 + .01 = 1.78.
    expect(r).toMatchObject({
      episodes: 7, child_episodes: 2, turns: 14, total_cost: null, unpriced_episodes: 2, unknown_outcome: 2,
      success_rate: expect.closeTo(0.6, 9), mean_score_norm: expect.closeTo(0.6, 9),
    });
    expect(r?.known_cost).toBeCloseTo(1.78, 9);
    expect(b).toMatchObject({ episodes: 3, child_episodes: 0, total_cost: null, unpriced_episodes: 1, unknown_outcome: 1, success_rate: 1 });
    // An episode row: its own cost, null when a call's cost is unknown, the known part apart.
    const row = (ext: string) => episodeRowById(db, db.prepare('SELECT id FROM episodes WHERE ext_id = ?').pluck().get(ext) as number);
    expect(row('e2')).toMatchObject({ total_cost: null, known_cost: expect.closeTo(0.05, 9) });
    expect(row('e1')).toMatchObject({ total_cost: expect.closeTo(0.3, 9), known_cost: expect.closeTo(0.3, 9) });
  });

  it('replay: the logged cost and score are means over what is known, with the rest counted', () => {
    const runId = listRuns(db).find((x) => x.name === 'r')?.id as number;
    const result = replayPolicies(db, { runIds: [runId], policies: ['logged'], bootstrap: 20 });
    // Sessions with a known cost: e1 .30, e3 .40, e4 .30, e6 .60, orphan .01 → 1.61 / 5.
    expect(result.logged).toMatchObject({ cost: expect.closeTo(0.322, 9), unknown_cost: 2, score: expect.closeTo(0.6, 9), unknown_outcome: 2 });
    expect(result.policies[0]?.est_cost).toBeCloseTo(0.322, 9);
    expect(result.policies[0]?.notes.join('\n')).toMatch(/2 of 7 episodes have an unknown cost/);
    expect(result.notes.join('\n')).toMatch(/2 of 7 episodes have no outcome/);
  });

  it('paired run diff: pairs without an outcome or a known cost on a side are left out and counted', () => {
    const ids = new Map(listRuns(db).map((x) => [x.name, x.id]));
    // Pairs by task: (e1, b1), (e2, b2), (e3, b3); e4-sub's T1 is no attempt. Scores: only (e1, b1) → 1 − 1 = 0.
    // Costs: (e1 .30, b1 .20) → −.10; e2 and b3 unknown.
    const diff = policyDiff(db, { kind: 'runs', runA: ids.get('r') as number, runB: ids.get('b') as number, bootstrap: 20 });
    expect(diff.summary).toMatchObject({ pairs: 3, unknown_outcome: 2, unknown_cost: 2 });
    expect(diff.summary.delta_score.estimate).toBe(0);
    expect(diff.summary.delta_cost.estimate).toBeCloseTo(-0.1, 9);
  });
});
