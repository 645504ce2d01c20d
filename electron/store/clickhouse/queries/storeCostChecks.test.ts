/**
 * Parity of the ClickHouse store for the log's own totals and the cost provenance (a real 2-shard cluster,
 * test/clickhouseCluster.ts): the same files give the same per-run reconciliation and cost sources as SQLite, and
 * the same provenance on each turn of an episode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseSkipReason } from '../../../../test/clickhouseCluster.ts';
import { expectClose } from '../../../../test/expectClose.ts';
import { sameDataOnBothStores, type BothStores } from '../../../../test/sameDataOnBothStores.ts';
import { listRuns } from '../../../db/episodeQueries.ts';
import { runCostSources } from '../../../db/runCostChecks.ts';
import { createApi } from '../../../services/api.ts';
import { createStoreApi } from '../../../services/storeApi.ts';
import { storeInfo } from './storeInfo.ts';

const skip = clickhouseSkipReason();
if (skip) console.log(skip);

describe.skipIf(skip !== null)('log totals and cost provenance on a ClickHouse store', () => {
  let both: BothStores;

  beforeAll(async () => {
    both = await sameDataOnBothStores([], [
      'fixtures/samples/canonical/log-totals-agree.jsonl', 'fixtures/samples/canonical/log-totals-differ.jsonl',
      'fixtures/samples/canonical/cost-provenance.jsonl', 'fixtures/samples/copilot-cli', 'fixtures/samples/openhands',
    ]);
  }, 240_000);

  afterAll(async () => {
    await both?.close();
  });

  it('says per run what SQLite says: reconciled, differs, not comparable, no totals; and where the costs came from', async () => {
    const lite = listRuns(both.db);
    const store = await storeInfo(both.store);
    const byName = <T extends { name: string }>(xs: T[]) => new Map(xs.map((x) => [x.name, x]));
    const [a, b] = [byName(store), byName(lite)];
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    const sources = runCostSources(both.db);
    for (const [name, run] of b) {
      expectClose(a.get(name)?.log_totals, run.log_totals);
      expect(a.get(name)?.cost_sources, name).toEqual(sources.get(run.id) ?? []);
    }
    expect(b.get('mini-swe-agent-lost-call')?.log_totals.status).toBe('differs');
    expect(b.get('codex-vct')?.log_totals.status).toBe('reconciled');
    expect(b.get('cost-provenance')?.log_totals.status).toBe('no totals in the log');
  });

  it('gives each turn the same cost provenance', async () => {
    const [lite, ch] = [createApi(both.db, ':memory:'), await createStoreApi(both.store)];
    for (const name of ['cost-provenance', 'mini-swe-agent-lost-call']) {
      const [l, c] = [(await lite.listRuns({})).find((r) => r.name === name), (await ch.listRuns({})).find((r) => r.name === name)];
      const first = async (api: typeof lite, runId: number) => (await api.queryEpisodes({ runIds: [runId], limit: 1 })).rows[0]?.id as number;
      const [dl, dc] = [await lite.getEpisode({ id: await first(lite, l?.id ?? -1) }), await ch.getEpisode({ id: await first(ch, c?.id ?? -1) })];
      expect(dc.turns.map((t) => [t.cost_source, t.price_provenance])).toEqual(dl.turns.map((t) => [t.cost_source, t.price_provenance]));
    }
  });
});
