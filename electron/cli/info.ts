/** `routelens info --db FILE|--store URL`: the runs of a database, with their splits, costs and outcomes. */
import { runCostSources } from '../db/runCostChecks.ts';
import { openDatabase } from '../db/database.ts';
import { listRuns } from '../db/episodeQueries.ts';
import { storeUrlOf } from '../store/storeUrl.ts';
import { showRunsInfo } from './analysisText.ts';
import { requireDb, type Command } from './common.ts';
import { infoOfStore, STORE_OPTION } from './storeAccess.ts';

export const command: Command = {
  usage: 'routelens info --db FILE|--store URL [--json]',
  options: { db: { type: 'string' }, ...STORE_OPTION, json: { type: 'boolean' } },
  async run(values) {
    const store = storeUrlOf(values);
    if (store) return showRunsInfo(await infoOfStore(store), values.json === true);
    const db = openDatabase(requireDb(values), { readonly: true });
    try {
      const runs = listRuns(db);
      // Episodes per data split and run (`--split` of train, replay and analyze selects by these names).
      const splits = new Map<string, Record<string, number>>();
      for (const { run, split, n } of db
        .prepare('SELECT r.name AS run, e.split, COUNT(*) AS n FROM episodes e JOIN runs r ON r.id = e.run_id WHERE e.split IS NOT NULL GROUP BY r.id, e.split ORDER BY e.split')
        .all() as { run: string; split: string; n: number }[]) {
        splits.set(run, { ...splits.get(run), [split]: n });
      }
      const costSources = runCostSources(db);
      // Turns whose cost is unknown (no cost logged, no price known, not covered by a logged total).
      const unpriced = new Map(
        (db.prepare('SELECT r.name AS run, COALESCE(SUM(e.unpriced_turns), 0) AS n FROM runs r LEFT JOIN episodes e ON e.run_id = r.id GROUP BY r.id')
          .all() as { run: string; n: number }[]).map((x) => [x.run, x.n]),
      );
      return showRunsInfo(runs.map((r) => ({
        name: r.name, format: r.format, episodes: r.episodes, child_episodes: r.child_episodes, turns: r.turns, models: r.models,
        // null when any cost is unknown; known_cost is then the part that is known (a lower bound).
        total_cost: r.total_cost, known_cost: r.known_cost, unpriced_turns: unpriced.get(r.name) ?? 0,
        unpriced_episodes: r.unpriced_episodes, success_rate: r.success_rate, unknown_outcome: r.unknown_outcome,
        splits: splits.get(r.name) ?? {},
        log_totals: r.log_totals, cost_sources: costSources.get(r.id) ?? [],
      })), values.json === true);
    } finally {
      db.close();
    }
  },
};
