/** Scoring a ClickHouse store from the command line: `score --store` and `replay --store` when the store has no ŝ yet. */
import type { ProviderChoice } from '../estimator/ortScoring.ts';
import { ScorerError } from '../estimator/scorerError.ts';
import type { StoreScoreResult } from '../store/clickhouse/queries/storeScoring.ts';
import type { ClickHouseStoreUrl } from '../store/storeUrl.ts';
import { UsageError } from './common.ts';
import { bar, Progress } from './progress.ts';
import { openCheckedStore } from './storeAccess.ts';

/** Scoring a ClickHouse store (storeScoring.ts) in this process, with progress; Ctrl-C abandons the scoring. */
export async function scoreOnStore(
  url: ClickHouseStoreUrl, model: string, options: { ep?: ProviderChoice; runs?: readonly string[] }, quiet = false,
): Promise<StoreScoreResult> {
  const { scoreStore } = await import('../store/clickhouse/queries/storeScoring.ts');
  const store = await openCheckedStore(url);
  const progress = new Progress(process.stderr, quiet && !process.stderr.isTTY);
  const abort = new AbortController();
  const cancel = (): void => abort.abort();
  process.once('SIGINT', cancel);
  try {
    return await scoreStore(store, model, {
      ...options,
      signal: abort.signal,
      onProgress: (p) => progress.update(`scoring on ${p.provider} ${bar(p.total ? p.rows / p.total : 1)} ${p.rows}/${p.total} turns, ${Math.round(p.rowsPerSec)} turns/s`),
    });
  } catch (e) {
    if (e instanceof ScorerError) throw new UsageError(e.message);
    throw e;
  } finally {
    process.off('SIGINT', cancel);
    progress.done();
    await store.close();
  }
}
