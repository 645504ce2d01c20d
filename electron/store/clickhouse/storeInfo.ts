/**
 * `routelens info --store URL`: the runs of a ClickHouse store with the same facts, and the same rules, as
 * `info --db` (episodes are sessions; a subagent's turns and cost count in its run; an unknown cost leaves the
 * run without a total, `known_cost` being the lower bound; an unknown outcome is left out of the success rate).
 */
import type { ClickHouseStore } from './connection.ts';
import { requireSchema, visibleImports, visibleRows } from './schema.ts';

export interface StoreRunInfo {
  name: string;
  format: string;
  episodes: number;
  child_episodes: number;
  turns: number;
  models: string[];
  total_cost: number | null;
  known_cost: number;
  unpriced_turns: number;
  unpriced_episodes: number;
  success_rate: number | null;
  unknown_outcome: number;
  splits: Record<string, number>;
}

export async function storeInfo(store: ClickHouseStore): Promise<StoreRunInfo[]> {
  await requireSchema(store);
  const visible = visibleRows(store);
  const runs = await store.query<Record<string, string>>(
    `SELECT run, countIf(episode_key = root_key) AS sessions, countIf(episode_key != root_key) AS children,
       sum(n_turns) AS turn_count, sum(total_cost) AS known, sum(unpriced_turns) AS unpriced,
       uniqExactIf(root_key, unpriced_turns > 0) AS unpriced_sessions,
       countIf(episode_key = root_key AND success IS NULL) AS no_outcome,
       countIf(episode_key = root_key AND success = 1) AS ok
     FROM ${store.table('episodes')} WHERE ${visible} GROUP BY run ORDER BY run`,
  );
  const formats = new Map((await store.query<{ run: string; format: string }>(
    `SELECT run, any(source_format) AS format FROM ${store.database}.runs WHERE import_id IN (${visibleImports(store)}) GROUP BY run`,
  )).map((r) => [r.run, r.format]));
  const models = await store.query<{ run: string; model: string }>(
    `SELECT run, model, count() AS n FROM ${store.table('turns')} WHERE ${visible} GROUP BY run, model ORDER BY n DESC, model`,
  );
  const splits = await store.query<{ run: string; split: string; n: string }>(
    `SELECT run, split, count() AS n FROM ${store.table('episodes')} WHERE ${visible} AND episode_key = root_key AND split IS NOT NULL
     GROUP BY run, split ORDER BY split`,
  );
  return runs.map((r) => {
    const known = Number(r.sessions) - Number(r.no_outcome);
    return {
      name: r.run as string,
      format: formats.get(r.run as string) ?? '',
      episodes: Number(r.sessions),
      child_episodes: Number(r.children),
      turns: Number(r.turn_count),
      models: models.filter((m) => m.run === r.run).map((m) => m.model),
      total_cost: Number(r.unpriced_sessions) > 0 ? null : Number(r.known),
      known_cost: Number(r.known),
      unpriced_turns: Number(r.unpriced),
      unpriced_episodes: Number(r.unpriced_sessions),
      success_rate: known > 0 ? Number(r.ok) / known : null,
      unknown_outcome: Number(r.no_outcome),
      splits: Object.fromEntries(splits.filter((s) => s.run === r.run).map((s) => [s.split, Number(s.n)])),
    };
  });
}
