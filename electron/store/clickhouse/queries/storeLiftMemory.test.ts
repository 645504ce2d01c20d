/**
 * lift's bootstrap on a shard whose episode cells outnumber what one block of B-element arrays can hold in the
 * query's memory: it must come out in buckets (storeAnalyses.ts), not fail. The user `bounded` of the test cluster
 * aggregates on one thread, as ClickHouse 18.16 chose to on 2 vCPUs, within 150 MB a query.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseSkipReason, startTestCluster, type TestCluster } from '../../../../test/clickhouseCluster.ts';
import { parseStoreUrl } from '../../storeUrl.ts';
import { ClickHouseStore } from '../schema/connection.ts';
import { initStore, ledgerRow } from '../schema/schema.ts';
import { liftOnStore } from './storeAnalyses.ts';

const skip = clickhouseSkipReason();
if (skip) console.log(skip);

/** One turn per episode: every turn is a cell of its own. 300k cells × 50 replicates of Float64 is 120 MB an array. */
const TURNS_PER_SHARD = 300_000;
const MODELS = ['m-a', 'm-b', 'm-c'];
const CATEGORIES = ['c-1', 'c-2', 'c-3', 'c-4'];

describe.skipIf(skip !== null)('lift on a store larger than a query may hold at once', () => {
  let cluster: TestCluster;
  let bounded: ClickHouseStore;

  beforeAll(async () => {
    cluster = await startTestCluster(2);
    const store = new ClickHouseStore(parseStoreUrl(cluster.url('lift')));
    try {
      await initStore(store);
      await store.insert(store.coordinator, 'imports', [ledgerRow(1, 'completed', { hash: 'synthetic', path: 'synthetic', format: 'synthetic' })]);
      for (const [shard, node] of store.nodes.entries()) {
        const key = `number * ${store.nodes.length} + ${shard}`;
        await store.command(`INSERT INTO lift.turns_local (import_id, episode_key, root_key, run, pos, t, model, category)
          SELECT 1, ${key}, ${key}, 'run', 0, 0, arrayElement(['${MODELS.join("', '")}'], number % 3 + 1),
            arrayElement(['${CATEGORIES.join("', '")}'], intDiv(number, 3) % 4 + 1)
          FROM numbers(${TURNS_PER_SHARD})`, node);
      }
    } finally {
      await store.close();
    }
    bounded = new ClickHouseStore(parseStoreUrl(cluster.url('lift').replace('clickhouse://', 'clickhouse://bounded@')));
  }, 120_000);

  afterAll(async () => {
    await bounded?.close();
    await cluster?.stop();
  });

  it('answers within 150 MB a query on one thread, every cell counted and every replicate drawn', async () => {
    const r = await liftOnStore(bounded, { bootstrap: 50 });
    expect(r.cells).toHaveLength(MODELS.length * CATEGORIES.length);
    // Each (model, category) pair holds an equal share of the turns, so every point lift is 1.
    for (const c of r.cells) {
      expect(c.n).toBe((2 * TURNS_PER_SHARD) / 12);
      expect(c.lift).toBeCloseTo(1, 12);
      expect(c.ci?.[0]).toBeLessThan(1);
      expect(c.ci?.[1]).toBeGreaterThan(1);
    }
  }, 120_000);
});
