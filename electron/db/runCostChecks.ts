/**
 * Per run: how its episodes stand against their logs' own totals (episode_log_totals), and where its turns' costs
 * came from (logged, or priced from which table, version and cache tier). The first reads one row per episode with
 * totals, so the window's run list carries it; the second scans turns once and is for `info` only.
 */
import type { RunLogTotals } from '../../shared/api.ts';
import { describeProvenance } from './costProvenance.ts';
import type { Db } from './dbHandle.ts';

export const NO_LOG_TOTALS: RunLogTotals = {
  status: 'no totals in the log', episodes_with_totals: 0, episodes_differing: 0, episodes_not_comparable: 0, worst_rel: null,
  log_cost: null, counted_cost: null,
};

/** What a run's episode_log_totals rows add up to, as either store counts them. */
export interface LogTotalsTally {
  with_totals: number;
  /** Rows with at least one kind compared. */
  compared: number;
  differing: number;
  worst_rel: number | null;
  /** Sums over rows whose log cost and turns' cost are both known; null when there is none. */
  log_cost: number | null;
  counted_cost: number | null;
}

/** A run's log totals from its episodes' tally. */
export function runLogTotalsOf(x: LogTotalsTally): RunLogTotals {
  if (x.with_totals === 0) return NO_LOG_TOTALS;
  return {
    status: x.differing > 0 ? 'differs' : x.compared === 0 ? 'not comparable' : 'reconciled',
    episodes_with_totals: x.with_totals,
    episodes_differing: x.differing,
    episodes_not_comparable: x.with_totals - x.compared,
    worst_rel: x.worst_rel,
    log_cost: x.log_cost,
    counted_cost: x.log_cost === null ? null : x.counted_cost,
  };
}

/** RunLogTotals per run id; runs without a row have no totals in their logs. */
export function runLogTotals(db: Db): Map<number, RunLogTotals> {
  const rows = db
    .prepare(`SELECT e.run_id, COUNT(*) AS with_totals, SUM(l.compared > 0) AS compared, SUM(l.differing > 0) AS differing,
        MAX(l.worst_rel) AS worst_rel, SUM(CASE WHEN l.counted_cost IS NULL THEN NULL ELSE l.cost END) AS log_cost,
        SUM(CASE WHEN l.cost IS NULL THEN NULL ELSE l.counted_cost END) AS counted_cost
      FROM episode_log_totals l JOIN episodes e ON e.id = l.episode_id GROUP BY e.run_id`)
    .all() as (LogTotalsTally & { run_id: number })[];
  return new Map(rows.map((r) => [r.run_id, runLogTotalsOf(r)]));
}

/** Turns of a run by where their cost came from: `logged`, `none` (unknown), or priced (`describeProvenance`). */
export interface CostSourceCount {
  source: 'logged' | 'priced' | 'none';
  /** For priced turns: `pool.json, cache 5m`…; `not recorded` for turns priced before provenance was kept. */
  provenance: string | null;
  turns: number;
}

export function runCostSources(db: Db): Map<number, CostSourceCount[]> {
  const rows = db
    .prepare(`SELECT e.run_id, t.cost_source AS source, p.price_table, p.version, p.cache_tier, COUNT(*) AS turns
      FROM turns t JOIN episodes e ON e.id = t.episode_id LEFT JOIN price_provenance p ON p.id = t.price_provenance_id
      GROUP BY e.run_id, t.cost_source, t.price_provenance_id`)
    .all() as { run_id: number; source: CostSourceCount['source']; price_table: string | null; version: string | null; cache_tier: string | null; turns: number }[];
  const out = new Map<number, CostSourceCount[]>();
  for (const r of rows) (out.get(r.run_id) ?? (out.set(r.run_id, []).get(r.run_id) as CostSourceCount[])).push(costSourceCount(r));
  for (const list of out.values()) sortCostSources(list);
  return out;
}

/** One group of turns by cost source and provenance, as either store reads it (null or '' for no provenance). */
export function costSourceCount(r: { source: CostSourceCount['source']; price_table: string | null; version: string | null; cache_tier: string | null; turns: number }): CostSourceCount {
  const provenance = r.source !== 'priced' ? null
    : !r.price_table ? 'not recorded'
      : describeProvenance({ price_table: r.price_table, version: r.version ?? '', cache_tier: r.cache_tier || 'none' });
  return { source: r.source, provenance, turns: r.turns };
}

/** Most turns first, then by source and provenance: one order whichever store answered. */
export function sortCostSources(list: CostSourceCount[]): CostSourceCount[] {
  return list.sort((a, b) => b.turns - a.turns || a.source.localeCompare(b.source) || (a.provenance ?? '').localeCompare(b.provenance ?? ''));
}
