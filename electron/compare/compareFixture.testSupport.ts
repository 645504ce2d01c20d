/**
 * A small database for Compare's tests whose every figure is worked out by hand below (compare.test.ts,
 * electron/cli/compare.test.ts). G = gpt-5, K = kimi-k2; a turn is [model, logged cost or null = unknown].
 *
 * Run ra (side A):                                     Run rb (side B), every turn K with 1000 in / 200 cached / 100 out:
 *   a1  T1 success  G .10, G .20          cost .30       b1  T1 success  .05
 *   a2  T1 failure  G .10                 cost .10       b2  T2 success  .02
 *   a3  T2 success  K .05, G .05 (tie: K first) .10      b3  T3 success  .03
 *   a4  T3 failure  G .40 + child a4-sub (K .02, K .03)  b4  T4 failure  .04
 *       (the child claims T1: it must not pair)   .45    b6  T6 success  .01 (only on B)
 *   a5  T4 success  G ? (no cost, no tokens)   unknown
 *   a6  no task id, success, G .01
 *   a7  T5 failure  G .10 (only on A)
 * Runs na / nb: no outcomes at all, tasks X1, X2, G calls of known cost; nb's two episodes name policies p-one, p-two.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';

type Turn = [string, number | null];
const G = 'gpt-5';
const K = 'kimi-k2';
const TOKENS = { in: 1000, out: 100, cached: 200 };

function episode(run: string, id: string, turns: Turn[], extra: Record<string, unknown> = {}, tokens = false): string {
  return JSON.stringify({
    schema: 'routelens/v1',
    run,
    episode_id: id,
    ...extra,
    turns: turns.map(([model, cost], t) => ({
      t, model, action: { type: 'tool', tool: 'bash', text: 'ls' }, observation: 'ok',
      ...(cost === null ? {} : { cost_usd: cost }), ...(tokens ? { tokens: TOKENS } : {}),
    })),
  });
}

const task = (id: string) => ({ task: { id } });
const win = { outcome: { success: true } };
const loss = { outcome: { success: false } };

const LINES = [
  episode('ra', 'a1', [[G, 0.1], [G, 0.2]], { ...win, ...task('T1') }),
  episode('ra', 'a2', [[G, 0.1]], { ...loss, ...task('T1') }),
  episode('ra', 'a3', [[K, 0.05], [G, 0.05]], { ...win, ...task('T2') }),
  episode('ra', 'a4', [[G, 0.4]], { ...loss, ...task('T3') }),
  episode('ra', 'a4-sub', [[K, 0.02], [K, 0.03]], { kind: 'subagent', parent: { episode_id: 'a4' }, ...task('T1') }),
  episode('ra', 'a5', [[G, null]], { ...win, ...task('T4') }),
  episode('ra', 'a6', [[G, 0.01]], { ...win }),
  episode('ra', 'a7', [[G, 0.1]], { ...loss, ...task('T5') }),
  episode('rb', 'b1', [[K, 0.05]], { ...win, ...task('T1') }, true),
  episode('rb', 'b2', [[K, 0.02]], { ...win, ...task('T2') }, true),
  episode('rb', 'b3', [[K, 0.03]], { ...win, ...task('T3') }, true),
  episode('rb', 'b4', [[K, 0.04]], { ...loss, ...task('T4') }, true),
  episode('rb', 'b6', [[K, 0.01]], { ...win, ...task('T6') }, true),
  episode('na', 'n1', [[G, 0.1]], task('X1')),
  episode('na', 'n2', [[G, 0.3]], task('X2')),
  episode('nb', 'm1', [[G, 0.2]], { ...task('X1'), policy: { name: 'p-one' } }),
  episode('nb', 'm2', [[G, 0.2]], { ...task('X2'), policy: { name: 'p-two' } }),
];

/** gpt-5's list price of one rb call: (800 × 1.25 + 200 × 0.125 + 100 × 10) / 1e6. */
export const RB_CALL_ON_GPT5 = 0.002025;

export async function buildCompareDb(dir: string): Promise<{ path: string; db: Db }> {
  const file = join(dir, 'compare.jsonl');
  writeFileSync(file, `${LINES.join('\n')}\n`);
  const path = join(dir, 'compare.db');
  const db = openDatabase(path);
  await importPaths(db, [file]);
  return { path, db };
}
