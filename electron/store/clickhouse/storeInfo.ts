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
  mean_score_norm: number | null;
  unknown_outcome: number;
  priced_turns: number;
  source_path: string | null;
  policy_name: string | null;
  /** When the run's first file completed ('YYYY-MM-DD hh:mm:ss', UTC). */
  imported_at: string;
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
       countIf(episode_key = root_key AND success = 1) AS ok,
       sumIf(score_norm, episode_key = root_key AND score_norm IS NOT NULL) AS score,
       countIf(episode_key = root_key AND score_norm IS NOT NULL) AS scored
     FROM ${store.table('episodes')} WHERE ${visible} GROUP BY run ORDER BY run`,
  );
  const sources = new Map((await store.query<{ run: string; format: string; path: string; policy: string | null; at: string }>(
    `SELECT run, argMin(source_format, import_id) AS format, argMin(source_path, import_id) AS path,
       argMin(ifNull(policy_name, ''), import_id) AS policy, min(at) AS at
     FROM ${store.database}.runs ANY INNER JOIN
       (SELECT import_id, min(at) AS at FROM ${store.database}.imports WHERE event = 'completed' GROUP BY import_id) USING import_id
     WHERE import_id IN (${visibleImports(store)}) GROUP BY run`,
  )).map((r) => [r.run, r]));
  const models = await store.query<{ run: string; model: string; priced: string }>(
    `SELECT run, model, count() AS n, countIf(cost_source = 'priced') AS priced FROM ${store.table('turns')} WHERE ${visible}
     GROUP BY run, model ORDER BY n DESC, model`,
  );
  const splits = await store.query<{ run: string; split: string; n: string }>(
    `SELECT run, split, count() AS n FROM ${store.table('episodes')} WHERE ${visible} AND episode_key = root_key AND split IS NOT NULL
     GROUP BY run, split ORDER BY split`,
  );
  return runs.map((r) => {
    const known = Number(r.sessions) - Number(r.no_outcome);
    const source = sources.get(r.run as string);
    const mine = models.filter((m) => m.run === r.run);
    return {
      name: r.run as string,
      format: source?.format ?? '',
      source_path: source?.path || null,
      policy_name: source?.policy || null, // argMin skips NULLs: the first file's NULL is ''
      imported_at: source?.at ?? '',
      episodes: Number(r.sessions),
      child_episodes: Number(r.children),
      turns: Number(r.turn_count),
      models: mine.map((m) => m.model),
      priced_turns: mine.reduce((a, m) => a + Number(m.priced), 0),
      total_cost: Number(r.unpriced_sessions) > 0 ? null : Number(r.known),
      known_cost: Number(r.known),
      unpriced_turns: Number(r.unpriced),
      unpriced_episodes: Number(r.unpriced_sessions),
      success_rate: known > 0 ? Number(r.ok) / known : null,
      mean_score_norm: Number(r.scored) > 0 ? Number(r.score) / Number(r.scored) : null,
      unknown_outcome: Number(r.no_outcome),
      splits: Object.fromEntries(splits.filter((s) => s.run === r.run).map((s) => [s.split, Number(s.n)])),
    };
  });
}
