/**
 * `routelens info --store URL`: the runs of a ClickHouse store with the same facts, and the same rules, as
 * `info --db` (episodes are sessions; a subagent's turns and cost count in its run; an unknown cost leaves the
 * run without a total, `known_cost` being the lower bound; an unknown outcome is left out of the success rate).
 */
import type { RunLogTotals } from '../../../../shared/api.ts';
import { costSourceCount, NO_LOG_TOTALS, runLogTotalsOf, sortCostSources, type CostSourceCount } from '../../../db/runCostChecks.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { requireSchema, visibleImports, visibleRows } from '../schema/schema.ts';

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
  /** The run against its logs' own totals, as SQLite's listRuns gives it. */
  log_totals: RunLogTotals;
  /** Turns by where their cost came from (logged, priced from which table and cache tier, unknown). */
  cost_sources: CostSourceCount[];
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
  const checks = new Map((await store.query<Record<string, string | null>>(
    `SELECT run, countIf(log_source IS NOT NULL) AS with_totals, countIf(log_compared > 0) AS compared, countIf(log_differing > 0) AS differing,
       max(log_worst_rel) AS worst, countIf(log_cost IS NOT NULL AND counted_cost IS NOT NULL) AS n_cost,
       sumIf(log_cost, log_cost IS NOT NULL AND counted_cost IS NOT NULL) AS log_sum,
       sumIf(counted_cost, log_cost IS NOT NULL AND counted_cost IS NOT NULL) AS counted_sum
     FROM ${store.table('episodes')} WHERE ${visible} GROUP BY run`,
  )).map((c) => {
    const withCost = Number(c.n_cost) > 0;
    return [c.run as string, runLogTotalsOf({
      with_totals: Number(c.with_totals), compared: Number(c.compared), differing: Number(c.differing),
      worst_rel: c.worst === null ? null : Number(c.worst), log_cost: withCost ? Number(c.log_sum) : null,
      counted_cost: withCost ? Number(c.counted_sum) : null,
    })];
  }));
  const costSources = new Map<string, CostSourceCount[]>();
  for (const c of await store.query<{ run: string; source: CostSourceCount['source']; price_table: string; version: string; cache_tier: string; turns: string }>(
    `SELECT run, cost_source AS source, ifNull(price_table, '') AS price_table, ifNull(price_version, '') AS version, ifNull(cache_tier, '') AS cache_tier,
       count() AS turns FROM ${store.table('turns')} WHERE ${visible} GROUP BY run, source, price_table, version, cache_tier`,
  )) {
    (costSources.get(c.run) ?? (costSources.set(c.run, []).get(c.run) as CostSourceCount[])).push(costSourceCount({ ...c, turns: Number(c.turns) }));
  }
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
      log_totals: checks.get(r.run as string) ?? NO_LOG_TOTALS,
      cost_sources: sortCostSources(costSources.get(r.run as string) ?? []),
    };
  });
}
