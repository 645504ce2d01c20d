/**
 * Alerts fired by the enabled rules over the episodes a write changed (issue 36 item 5). The watcher calls
 * fireAlerts right after it commits, with the ids of the episodes that commit touched: only those episodes are
 * read (their turns by the turns(episode_id, t) key, the rules already fired by alerts' (run, episode, rule) key),
 * and an episode every rule has fired for is not read at all.
 *
 * Each rule fires once per episode: alerts are keyed by run and episode names, so an episode rewritten by a
 * re-import keeps what it fired and does not fire it again.
 */
import { evaluateRule, type AlertCall, type AlertEpisode, type AlertRule } from '../../shared/alertRules.ts';
import type { Db } from '../db/dbHandle.ts';
import { enabledAlertRules } from './alertRuleStore.ts';

export interface FiredAlert {
  id: number;
  run: string;
  episode: string;
  rule: string;
  message: string;
  fired_at: string;
}

/** Rules that read time: only they need each turn's timestamp, which sits in turn_text.detail's JSON. */
export const readsTime = (rule: AlertRule): boolean =>
  rule.condition.measure === 'rate' || (rule.condition.measure === 'errors' && rule.condition.within !== null && 'time' in rule.condition.within);

interface CallRow {
  t: number;
  model: string;
  cost: number;
  cost_source: 'logged' | 'priced' | 'none';
  max_severity: number;
  timestamp: string | null;
}

// max_severity > 0 exactly when the turn has a row in turn_errors (every severity is level 1 or more).
const CALLS_SQL = `SELECT t.t, m.name AS model, t.cost, t.cost_source, t.max_severity, NULL AS timestamp
  FROM turns t JOIN models m ON m.id = t.model_id WHERE t.episode_id = ? ORDER BY t.t`;
// json_valid first: json_extract stops the query on text that is not JSON (a database from elsewhere).
const TIMED_CALLS_SQL = `SELECT t.t, m.name AS model, t.cost, t.cost_source, t.max_severity,
    CASE WHEN json_valid(x.detail) THEN json_extract(x.detail, '$.timestamp') END AS timestamp
  FROM turns t JOIN models m ON m.id = t.model_id LEFT JOIN turn_text x ON x.turn_id = t.id WHERE t.episode_id = ? ORDER BY t.t`;

function callOf(r: CallRow): AlertCall {
  const ms = typeof r.timestamp === 'string' ? Date.parse(r.timestamp) : Number.NaN;
  return {
    t: r.t,
    model: r.model,
    // An unknown cost is stored as 0 with cost_source 'none' (episodeWriter.ts costOf): here it is unknown again.
    cost: r.cost_source === 'none' ? null : r.cost,
    timestampMs: Number.isFinite(ms) ? ms : null,
    hasError: r.max_severity > 0,
  };
}

/**
 * The episode's total as the log gives it, where its calls carry no cost of their own: the writer then keeps that
 * total in episodes.total_cost with no unpriced turns (episodeWriter.ts: usage totals, an episode's own cost).
 */
export function alertEpisodeOf(db: Db, episodeId: number): AlertEpisode {
  const row = db.prepare('SELECT total_cost, unpriced_turns FROM episodes WHERE id = ?').get(episodeId) as { total_cost: number; unpriced_turns: number } | undefined;
  return { totalUsd: row && row.unpriced_turns === 0 ? row.total_cost : null };
}

/** The calls of one episode as the rules read them, in turn order. */
export function alertCallsOf(db: Db, episodeId: number, withTime: boolean): AlertCall[] {
  return (db.prepare(withTime ? TIMED_CALLS_SQL : CALLS_SQL).all(episodeId) as CallRow[]).map(callOf);
}

/**
 * Evaluates every enabled rule over each of `episodeIds` at `now`, records the ones that fire for the first time
 * in `alerts` and answers those only. `db` must be a writer connection (the watcher's, after its commit).
 */
export function fireAlerts(db: Db, episodeIds: number[], now: Date = new Date()): FiredAlert[] {
  const rules = enabledAlertRules(db);
  if (rules.length === 0 || episodeIds.length === 0) return [];
  const nameOf = db.prepare('SELECT e.ext_id AS episode, r.name AS run FROM episodes e JOIN runs r ON r.id = e.run_id WHERE e.id = ?');
  const firedFor = db.prepare('SELECT rule FROM alerts WHERE run = ? AND episode = ?').pluck();
  const insert = db.prepare('INSERT OR IGNORE INTO alerts (run, episode, rule, fired_at, message) VALUES (?, ?, ?, ?, ?)');
  const at = now.getTime();
  const firedAt = now.toISOString();
  const fired: FiredAlert[] = [];
  db.transaction(() => {
    for (const id of new Set(episodeIds)) {
      const names = nameOf.get(id) as { episode: string; run: string } | undefined;
      if (!names) continue; // gone since the commit that named it
      const done = new Set(firedFor.all(names.run, names.episode) as string[]);
      const pending = rules.filter((r) => !done.has(r.text));
      if (pending.length === 0) continue;
      const calls = alertCallsOf(db, id, pending.some((r) => readsTime(r.rule)));
      const episode = alertEpisodeOf(db, id);
      for (const { text, rule } of pending) {
        const result = evaluateRule(rule, calls, at, episode);
        if (result.outcome !== 'fires') continue;
        const row = insert.run(names.run, names.episode, text, firedAt, result.message);
        if (row.changes > 0) {
          fired.push({ id: Number(row.lastInsertRowid), run: names.run, episode: names.episode, rule: text, message: result.message, fired_at: firedAt });
        }
      }
    }
  })();
  return fired;
}
