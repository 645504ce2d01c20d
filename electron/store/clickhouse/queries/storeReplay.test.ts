/**
 * Replay streamed from a ClickHouse store (a real 2-shard cluster) against replay on SQLite with the same files:
 * every policy's estimates, intervals, usage and notes agree, read in many small parts or in one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../db/dbHandle.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { clickhouseSkipReason } from '../../../../test/clickhouseCluster.ts';
import { sameDataOnBothStores, type BothStores } from '../../../../test/sameDataOnBothStores.ts';
import type { ReplayResult } from '../../../../shared/apiReplay.ts';
import { replayPolicies } from '../../../replay/replayRun.ts';
import { expectClose } from '../../../../test/expectClose.ts';
import { replayOnStore } from './storeReplay.ts';

const skip = clickhouseSkipReason();
if (skip) console.log(skip);

/** Logged costs are float32 on the store (as in the columnar cache). */
const FLOAT32 = 1e-6;

/** What both stores must agree on: all but the runs' ids, and the realised draws of a random policy. */
function comparable(r: ReplayResult): unknown {
  return {
    ...r,
    runs: r.runs.map((x) => x.name),
    policies: r.policies.map((p) => (p.policy.startsWith('random') ? { ...p, first_divergence: null } : p)),
  };
}

describe.skipIf(skip !== null)('replay on a ClickHouse store', () => {
  let store: ClickHouseStore;
  let db: Db;
  let both: BothStores;

  beforeAll(async () => {
    both = await sameDataOnBothStores([{ preset: 'scienceworld', episodes: 200, seed: 11 }], ['fixtures/samples/mtrouter', 'fixtures/samples/claude-code', 'fixtures/samples/mini-swe-agent']);
    ({ store, db } = both);
  }, 240_000);

  afterAll(async () => {
    await both?.close();
  });

  const POLICIES = ['logged', 'argmax', 'cost-aware:5', 'budget:0.05', 'mode:low', 'cheapest', 'fixed:gpt-5', 'random:3'];

  it('answers every policy as SQLite does, in many parts or one', async () => {
    const runs = (db.prepare('SELECT id, name FROM runs ORDER BY id').all() as { id: number; name: string }[]);
    const selections = [{ names: [] as string[] }, { names: runs.filter((r) => r.name.startsWith('sw-')).map((r) => r.name) }];
    for (const { names } of selections) {
      const ids = runs.filter((r) => names.includes(r.name)).map((r) => r.id);
      const lite = replayPolicies(db, { runIds: ids, policies: POLICIES, bootstrap: 200, seed: 5 });
      for (const partTurns of [700, 1_000_000]) {
        const parts: string[] = [];
        const ch = await replayOnStore(store, { runs: names, policies: POLICIES, bootstrap: 200, seed: 5, partTurns, onProgress: (m) => parts.push(m) });
        expect(parts.length, 'parts read').toBe(partTurns === 700 ? Math.ceil(lite.turns / 700) : 1);
        expectClose(comparable(ch), comparable(lite), `$[${names.length} runs, ${partTurns}]`, FLOAT32);
      }
      expect(lite.s_hat_source).toBe('logged_candidates');
    }
  });

  it('a split selects its episodes; what the store cannot replay says so', async () => {
    const split = (db.prepare('SELECT split FROM episodes WHERE split IS NOT NULL LIMIT 1').pluck().get() as string);
    const lite = replayPolicies(db, { split, policies: ['logged', 'argmax'], bootstrap: 100, seed: 1 });
    const chSplit = await replayOnStore(store, { split, policies: ['logged', 'argmax'], bootstrap: 100, seed: 1, partTurns: 500 });
    expectClose(comparable(chSplit), comparable(lite), '$', FLOAT32);
    await expect(replayOnStore(store, { policies: ['usage:gpt-5=0.2'] })).rejects.toThrow(/usage: policies .* SQLite database/);
    await expect(replayOnStore(store, { runs: ['nope'], policies: ['logged'] })).rejects.toThrow(/no run named "nope"/);
    await expect(replayOnStore(store, { policies: ['fixed:no-such-model'] })).rejects.toThrow(/no model named "no-such-model"/);
  });
});
