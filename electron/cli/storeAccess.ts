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

/**
 * A connection to the store for `f`, closed after it. Only the client is loaded here: each command imports the
 * store's modules it uses (an analysis never loads the importers, ONNX Runtime or the price list), so a `--store`
 * command starts about as fast as its `--db` twin.
 */
export async function withStore<T>(url: ClickHouseStoreUrl, f: (store: ClickHouseStore) => Promise<T>): Promise<T> {
  const { ClickHouseStore: Store } = await import('../store/clickhouse/schema/connection.ts');
  const store = new Store(url);
  try {
    return await f(store);
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
    const { importToStore } = await import('../store/clickhouse/import/importToStore.ts');
    return await withStore(url, (store) =>
      importToStore(store, paths, {
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
  const { storeInfo } = await import('../store/clickhouse/queries/storeInfo.ts');
  return withStore(url, (store) => storeInfo(store));
}
