// lift and error-recovery: a hand-worked example exactly, and the simulator's planted truth within tolerance.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulateToFile } from '../../fixtures/simulator/index.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { errorRecoveryAnalysis } from './errorRecovery.ts';
import { liftAnalysis } from './lift.ts';

const tempDir = useSuiteTempDir();

function turn(t: number, model: string, tool: string, error = false) {
  return {
    t, model, action: { type: 'tool', tool, text: `${tool} step` }, observation: 'ok',
    errors: error ? [{ type: 'python_traceback', severity: 'high' }] : [],
  };
}

describe('hand-worked', () => {
  let db: Db;
  beforeAll(async () => {
    const dir = tempDir();
    const file = join(dir, 'hand.jsonl');
    // Run "r": 2 episodes, 8 turns.
    //   e1: a/python(err) → b/python → b/search(err) → b/search
    //   e2: a/search      → a/python(err) → a/python(err) → c/python
    const e1 = [turn(0, 'gpt-5', 'python', true), turn(1, 'kimi-k2', 'python'), turn(2, 'kimi-k2', 'search', true), turn(3, 'kimi-k2', 'search')];
    const e2 = [turn(0, 'gpt-5', 'search'), turn(1, 'gpt-5', 'python', true), turn(2, 'gpt-5', 'python', true), turn(3, 'minimax-m2', 'python')];
    const line = (id: string, turns: unknown[]) => JSON.stringify({ schema: 'routelens/v1', run: 'r', episode_id: id, turns });
    writeFileSync(file, `${line('e1', e1)}\n${line('e2', e2)}\n`);
    db = openDatabase(join(dir, 'hand.db'));
    await importPaths(db, [file]);
  });

  it('computes lift exactly', () => {
    // python: 5 turns (gpt-5 3, kimi 1, minimax 1); search: 3 (kimi 2, gpt-5 1). P(gpt-5) = 4/8.
    // lift(gpt-5, python) = (3/5)/(4/8) = 1.2; lift(kimi, search) = (2/3)/(3/8) = 16/9
    const { cells } = liftAnalysis(db, { minCount: 1, bootstrap: 50 });
    const get = (m: string, c: string) => cells.find((x) => x.model === m && x.category === c);
    expect(get('gpt-5', 'python')).toMatchObject({ lift: expect.closeTo(1.2, 12), n: 3 });
    expect(get('kimi-k2', 'search')).toMatchObject({ lift: expect.closeTo(16 / 9, 12), n: 2 });
    expect(get('minimax-m2', 'search')).toBeUndefined(); // never happened
    for (const c of cells) expect(c.ci[0]).toBeLessThanOrEqual(c.ci[1]);
    expect(liftAnalysis(db, { minCount: 3 }).cells.map((c) => [c.model, c.category])).toEqual([['gpt-5', 'python']]);
  });

  it('computes error recovery exactly', () => {
    // Error turns followed by a turn: e1 t0 (→ switch, no error), e1 t2 (→ stay, no error),
    // e2 t1 (→ stay, error), e2 t2 (→ switch, no error). n = 4.
    const [g] = errorRecoveryAnalysis(db).groups;
    expect(g).toMatchObject({
      run: 'r', n: 4, p_switch: 0.5, p_recover: 0.75, p_recover_stay: 0.5, p_recover_switch: 1, n_stay: 2, n_switch: 2,
    });
  });
});

describe('recovers the simulator planted effects', () => {
  let db: Db;
  let truth: { runs: Record<string, { lift: Record<string, Record<string, number>>; recovery: Record<string, { recover_if_stay: number }> }> };
  beforeAll(async () => {
    const dir = tempDir();
    const out = join(dir, 'sw.jsonl');
    const { truthPath } = await simulateToFile({ preset: 'scienceworld', episodes: 1500, seed: 7, out });
    truth = JSON.parse(readFileSync(truthPath, 'utf8'));
    db = openDatabase(join(dir, 'sw.db'));
    await importPaths(db, [out]);
  }, 120_000);

  it('lift of the learned router matches the planted lift', () => {
    const { cells } = liftAnalysis(db, { runs: ['sw-mtrouter'], minCount: 100, bootstrap: 100 });
    expect(cells.length).toBeGreaterThan(6);
    let inside = 0;
    for (const c of cells) {
      const planted = truth.runs['sw-mtrouter']?.lift[c.model]?.[c.category] as number;
      expect(c.lift).toBeCloseTo(planted, 0); // within 0.5
      expect(Math.abs(c.lift - planted)).toBeLessThan(0.2 * Math.max(1, planted));
      if (planted >= c.ci[0] && planted <= c.ci[1]) inside++;
    }
    // 95% intervals: most cells cover the planted value.
    expect(inside / cells.length).toBeGreaterThan(0.8);
  });

  it('recovery on a single-model run matches the planted recovery rate', () => {
    const [g] = errorRecoveryAnalysis(db, { runs: ['sw-gpt-5'] }).groups;
    const planted = truth.runs['sw-gpt-5']?.recovery['gpt-5']?.recover_if_stay as number;
    expect(g?.p_switch).toBe(0);
    expect(g?.n).toBeGreaterThan(30);
    expect(g?.ci.p_recover[0]).toBeLessThanOrEqual(planted);
    expect(g?.ci.p_recover[1]).toBeGreaterThanOrEqual(planted);
  });
});
