/**
 * The sessions being written now (issue 36 item 4): every episode whose last activity — the latest timestamp its log
 * gives (episode_activity), or the last change of the followed file holding it (followed_files, through its source)
 * — is within N minutes, with what a user watching it asks: spend so far, spend rate, model mix, calls since the
 * last switch. Read on the API's read-only connection; only the few live episodes' turns are read.
 */
import { RATE_WINDOW_MINUTES, type LiveSession } from '../../shared/apiLive.ts';
import type { Db } from '../db/dbHandle.ts';

const MINUTE_MS = 60_000;
/** The rate is never taken over less than this: two calls a second apart are not a rate per hour. */
const MIN_RATE_SPAN_MS = MINUTE_MS;

interface Candidate {
  episode_id: number;
  run_id: number;
  run: string;
  ext_id: string;
  activity: string | null;
  changed: string | null;
}

interface CallRow {
  model: string;
  cost: number;
  cost_source: string;
  timestamp: string | null;
}

function laterOf(a: string | null, b: string | null): string | null {
  const ta = a === null ? Number.NaN : Date.parse(a);
  const tb = b === null ? Number.NaN : Date.parse(b);
  if (Number.isNaN(ta)) return Number.isNaN(tb) ? null : new Date(tb).toISOString();
  if (Number.isNaN(tb) || ta >= tb) return new Date(ta).toISOString();
  return new Date(tb).toISOString();
}

/** The rate over the calls stamped within the window ending `now`; null when no call carries a timestamp. */
export function spendRate(calls: readonly CallRow[], now: number): { perHour: number | null; unpriced: number } {
  const stamped = calls.map((c) => ({ c, at: c.timestamp === null ? Number.NaN : Date.parse(c.timestamp) })).filter((x) => !Number.isNaN(x.at));
  if (stamped.length === 0) return { perHour: null, unpriced: 0 };
  const first = Math.min(...stamped.map((x) => x.at));
  const from = Math.max(now - RATE_WINDOW_MINUTES * MINUTE_MS, first);
  let cost = 0;
  let unpriced = 0;
  for (const { c, at } of stamped) {
    if (at < from || at > now) continue;
    if (c.cost_source === 'none') unpriced++;
    else cost += c.cost;
  }
  const span = Math.max(now - from, MIN_RATE_SPAN_MS);
  return { perHour: (cost * 3_600_000) / span, unpriced };
}

/** Calls per model, most used first (ties by name), and the run of calls to the latest call's model. */
export function modelMix(calls: readonly CallRow[]): Pick<LiveSession, 'model_mix' | 'current_model' | 'calls_since_switch'> {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.model, (counts.get(c.model) ?? 0) + 1);
  const mix = [...counts].map(([model, n]) => ({ model, calls: n })).sort((a, b) => b.calls - a.calls || a.model.localeCompare(b.model));
  const last = calls[calls.length - 1];
  let streak = 0;
  if (last) for (let i = calls.length - 1; i >= 0 && calls[i]?.model === last.model; i--) streak++;
  return { model_mix: mix, current_model: last?.model ?? null, calls_since_switch: streak };
}

export function liveSessions(db: Db, withinMinutes: number, now = Date.now()): LiveSession[] {
  // ISO strings of one shape (toISOString) order as their instants; a minute's slack covers other shapes, and the
  // exact test is made below on the parsed instants.
  const cutoff = now - withinMinutes * MINUTE_MS;
  const loose = new Date(cutoff - MINUTE_MS).toISOString();
  const candidates = db
    .prepare(
      `WITH active AS (
         SELECT episode_id FROM episode_activity WHERE last_at >= @loose
         UNION
         SELECT e.id FROM followed_files f JOIN episodes e ON e.source_id = f.source_id WHERE f.changed_at >= @loose
       )
       SELECT e.id AS episode_id, e.run_id, r.name AS run, e.ext_id,
              (SELECT last_at FROM episode_activity a WHERE a.episode_id = e.id) AS activity,
              (SELECT MAX(f.changed_at) FROM followed_files f WHERE e.source_id IS NOT NULL AND f.source_id = e.source_id) AS changed
       FROM active JOIN episodes e ON e.id = active.episode_id JOIN runs r ON r.id = e.run_id`,
    )
    .all({ loose }) as Candidate[];
  const callsOf = db.prepare(
    `SELECT m.name AS model, t.cost, t.cost_source, -- A received database's detail may be anything: only a JSON text timestamp counts.
            CASE WHEN json_valid(tt.detail) AND json_type(tt.detail, '$.timestamp') = 'text' THEN json_extract(tt.detail, '$.timestamp') END AS timestamp
     FROM turns t JOIN models m ON m.id = t.model_id LEFT JOIN turn_text tt ON tt.turn_id = t.id
     WHERE t.episode_id = ? ORDER BY t.t`,
  );
  const out: LiveSession[] = [];
  for (const c of candidates) {
    const lastAt = laterOf(c.activity, c.changed);
    if (lastAt === null || Date.parse(lastAt) < cutoff) continue;
    const calls = callsOf.all(c.episode_id) as CallRow[];
    const rate = spendRate(calls, now);
    let known = 0;
    let unpriced = 0;
    for (const call of calls) {
      if (call.cost_source === 'none') unpriced++;
      else known += call.cost;
    }
    out.push({
      episode_id: c.episode_id,
      run_id: c.run_id,
      run: c.run,
      ext_id: c.ext_id,
      last_at: lastAt,
      calls: calls.length,
      known_cost: known,
      unpriced_calls: unpriced,
      rate_usd_per_h: rate.perHour,
      rate_unpriced_calls: rate.unpriced,
      ...modelMix(calls),
    });
  }
  return out.sort((a, b) => b.last_at.localeCompare(a.last_at) || a.episode_id - b.episode_id);
}
