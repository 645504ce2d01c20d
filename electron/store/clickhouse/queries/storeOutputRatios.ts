/**
 * The learned output-length ratios (replay/outputLength.ts) over every turn of a ClickHouse store: the same fit,
 * from the same (model, category) cell means, computed by one GROUP BY on the shards. Models are keyed by name;
 * one with no logged output has no entry (replay and compare then take 1 and say so).
 */
import { fitOutputRatios } from '../../../replay/outputLength.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { visibleRows } from '../schema/schema.ts';
import { storeModelOrder } from './storeEpisodes.ts';

export async function storeOutputRatios(store: ClickHouseStore): Promise<Map<string, number>> {
  const order = await storeModelOrder(store);
  const rank = new Map(order.map((m, i) => [m, i]));
  const cells = await store.query<{ model: string; category: string; n: string; meanLog: number }>(
    `SELECT model, category, count() AS n, avg(log(tokens_out)) AS meanLog FROM ${store.table('turns')}
     WHERE ${visibleRows(store)} AND tokens_out > 0 GROUP BY model, category`,
  );
  // Keyed by the model's place in SQLite's id order, so the fit sums in the same order as there.
  const ratios = fitOutputRatios(cells.map((c) => ({ model: rank.get(c.model) ?? -1, category: c.category, n: Number(c.n), meanLog: Number(c.meanLog) })));
  return new Map([...ratios].map(([k, r]) => [order[k] as string, r]));
}
