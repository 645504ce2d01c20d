// usage-by-turn, switch-cost and pareto on a hand-worked set of runs; numbers checked by hand in the comments.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { paretoAnalysis } from './pareto.ts';
import { switchCostAnalysis } from './switchCost.ts';
import { usageByTurnAnalysis } from './usageByTurn.ts';

const tempDir = useSuiteTempDir();
let db: Db;

const ep = (run: string, id: string, success: boolean, turns: [string, number][]) =>
  JSON.stringify({
    schema: 'routelens/v1', run, episode_id: id, outcome: { success },
    turns: turns.map(([model, cost], t) => ({ t, model, action: { type: 'tool', tool: 'bash' }, cost_usd: cost, errors: [] })),
  });

beforeAll(async () => {
  const dir = tempDir();
  const file = join(dir, 'runs.jsonl');
  writeFileSync(file, [
    ep('a', 'e1', true, [['gpt-5', 0.1], ['kimi-k2', 0.2], ['kimi-k2', 0.3]]),
    ep('a', 'e2', true, [['gpt-5', 0.1], ['gpt-5', 0.1]]),
    ep('a', 'e3', false, [['minimax-m2', 0.05]]),
    ep('b', 'e4', true, [['gpt-5', 1.0]]),
    ep('b', 'e5', true, [['gpt-5', 1.0]]),
    ep('c', 'e6', false, [['kimi-k2', 0.5]]),
  ].join('\n'));
  db = openDatabase(join(dir, 'runs.db'));
  await importPaths(db, [file]);
});

describe('usage-by-turn', () => {
  it('gives each model its share at each turn index, summing to 1', () => {
    const [a] = usageByTurnAnalysis(db, { runs: ['a'] }).runs;
    expect(a?.turns).toEqual([
      { t: 0, n: 3, shares: { 'gpt-5': 2 / 3, 'minimax-m2': 1 / 3 } },
      { t: 1, n: 2, shares: { 'gpt-5': 0.5, 'kimi-k2': 0.5 } },
      { t: 2, n: 1, shares: { 'kimi-k2': 1 } },
    ]);
    for (const run of usageByTurnAnalysis(db).runs) {
      for (const t of run.turns) expect(Object.values(t.shares).reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
    }
  });
});

describe('switch-cost', () => {
  it('uses successful episodes only: switches vs cost, and the mean cumulative cost by turn', () => {
    const [a] = switchCostAnalysis(db, { runs: ['a'] }).runs;
    expect(a?.episodes).toEqual([
      { episode: 'e1', switches: 1, cost: expect.closeTo(0.6, 12), turns: 3 },
      { episode: 'e2', switches: 0, cost: expect.closeTo(0.2, 12), turns: 2 },
    ]);
    // t0: (0.1 + 0.1)/2; t1: (0.3 + 0.2)/2; t2: 0.6 (only e1 still running)
    expect(a?.mean_cumulative_cost.map((p) => [p.t, p.n])).toEqual([[0, 2], [1, 2], [2, 1]]);
    expect(a?.mean_cumulative_cost.map((p) => p.mean)).toEqual([0.1, 0.25, 0.6].map((x) => expect.closeTo(x, 6)));
  });
});

describe('pareto', () => {
  it('finds the frontier and the savings against a reference', () => {
    const { reference, points } = paretoAnalysis(db, { reference: 'b' });
    expect(reference).toBe('b');
    const by = Object.fromEntries(points.map((p) => [p.run, p]));
    // a: score 2/3, cost 0.85/3; b: score 1, cost 1; c: score 0, cost 0.5 (dominated by a)
    expect(by.a).toMatchObject({ n: 3, mean_score: expect.closeTo(2 / 3, 12), mean_cost: expect.closeTo(0.85 / 3, 12), frontier: true });
    expect(by.b?.frontier).toBe(true);
    expect(by.c?.frontier).toBe(false);
    expect(by.a?.savings_vs_reference).toBeCloseTo(1 - 0.85 / 3, 12);
    expect(by.a?.score_delta_vs_reference).toBeCloseTo(-1 / 3, 12);
    expect(() => paretoAnalysis(db, { reference: 'zzz' })).toThrow(RangeError);
  });
});
