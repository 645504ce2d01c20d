/**
 * The ClickHouse store from the command line: what `store`, and the `--store URL` side of `import`, `info`,
 * `analyze` and the other store-aware commands, share (a command hands over when a store URL is given or
 * ROUTELENS_STORE is set).
 */
import { bar, Progress } from './progress.ts';
import type { ImportReport } from '../importers/pipeline.ts';
import type { ExpectedStepsTable } from '../analysis/expectedSteps.ts';
import type { ClickHouseStoreUrl } from '../store/storeUrl.ts';
import type { ClickHouseStore } from '../store/clickhouse/schema/connection.ts';
import type { StoreRunInfo } from '../store/clickhouse/queries/storeInfo.ts';

// The store's modules (and the ClickHouse client) load only when a command uses a store: `--db` commands start
// as fast as before.
export const storeModules = async () => ({
  ...(await import('../store/clickhouse/schema/connection.ts')),
  ...(await import('../store/clickhouse/schema/schema.ts')),
  ...(await import('../store/clickhouse/schema/cleanStore.ts')),
  ...(await import('../store/clickhouse/import/importToStore.ts')),
  ...(await import('../store/clickhouse/queries/storeInfo.ts')),
  ...(await import('../store/clickhouse/queries/storeAnalyses.ts')),
  ...(await import('../store/clickhouse/queries/storeCalibration.ts')),
  ...(await import('../store/clickhouse/queries/storeEmbeddings.ts')),
});

export const STORE_OPTION = { store: { type: 'string' } } as const;

/** A store checked to have this RouteLens's schema, for a command that reads it; closed again if it has not. */
export async function openCheckedStore(url: ClickHouseStoreUrl): Promise<ClickHouseStore> {
  const { ClickHouseStore: Store } = await import('../store/clickhouse/schema/connection.ts');
  const { requireSchema } = await import('../store/clickhouse/schema/schema.ts');
  const store = new Store(url);
  try {
    await requireSchema(store);
    return store;
  } catch (e) {
    await store.close();
    throw e;
  }
}

export async function withStore<T>(url: ClickHouseStoreUrl, f: (store: ClickHouseStore, m: Awaited<ReturnType<typeof storeModules>>) => Promise<T>): Promise<T> {
  const m = await storeModules();
  const store = new m.ClickHouseStore(url);
  try {
    return await f(store, m);
  } finally {
    await store.close();
  }
}

export async function importIntoStore(
  url: ClickHouseStoreUrl,
  paths: string[],
  options: { format?: string; runName?: string; expectedSteps?: ExpectedStepsTable },
  json: boolean,
): Promise<ImportReport> {
  const progress = new Progress(process.stderr, json && !process.stderr.isTTY);
  try {
    return await withStore(url, (store, m) =>
      m.importToStore(store, paths, {
        ...options,
        onProgress: (p) => {
          const within = p.fileBytes > 0 ? p.fileBytesRead / p.fileBytes : 0;
          const frac = p.filesTotal > 0 ? (p.filesDone + within) / p.filesTotal : 1;
          progress.update(`importing into ${store.shown} ${bar(frac)} ${p.filesDone}/${p.filesTotal} files, ${p.episodes} episodes, ${p.turns} turns`);
        },
      }),
    );
  } finally {
    progress.done();
  }
}

export async function infoOfStore(url: ClickHouseStoreUrl): Promise<StoreRunInfo[]> {
  return withStore(url, (store, m) => m.storeInfo(store));
}
