/**
 * Test helper: the same files imported into a SQLite database and into a real 2-shard ClickHouse cluster
 * (test/clickhouseCluster.ts), simulated runs written first, for tests that hold the two stores' answers equal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../electron/db/database.ts';
import type { Db } from '../electron/db/dbHandle.ts';
import { importPaths } from '../electron/importers/pipeline.ts';
import { ClickHouseStore } from '../electron/store/clickhouse/schema/connection.ts';
import { importToStore } from '../electron/store/clickhouse/import/importToStore.ts';
import { initStore } from '../electron/store/clickhouse/schema/schema.ts';
import { parseStoreUrl } from '../electron/store/storeUrl.ts';
import { simulateToFile } from '../fixtures/simulator/index.ts';

type Preset = Parameters<typeof simulateToFile>[0]['preset'];
import { startTestCluster, type TestCluster } from './clickhouseCluster.ts';

export interface BothStores {
  cluster: TestCluster;
  store: ClickHouseStore;
  db: Db;
  dir: string;
  /** Every file imported, simulated ones first, in import order. */
  files: string[];
  close(): Promise<void>;
}

export async function sameDataOnBothStores(
  simulated: { preset: Preset; episodes: number; seed: number }[], samples: string[],
): Promise<BothStores> {
  const dir = mkdtempSync(join(tmpdir(), 'routelens-both-'));
  const cluster = await startTestCluster(2);
  const store = new ClickHouseStore(parseStoreUrl(cluster.url('routelens')));
  const db = openDatabase(join(dir, 'same.db'));
  const close = async () => {
    db.close();
    await store.close();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await initStore(store);
    const files: string[] = [];
    for (const s of simulated) {
      const out = join(dir, `${s.preset}-${s.seed}.jsonl`);
      await simulateToFile({ preset: s.preset, episodes: s.episodes, seed: s.seed, out });
      files.push(out);
    }
    files.push(...samples);
    await importPaths(db, files);
    // Small batches, so a test's data still goes out in several inserts.
    await importToStore(store, files, { batchRows: 5_000 });
    return { cluster, store, db, dir, files, close };
  } catch (e) {
    await close();
    throw e;
  }
}
