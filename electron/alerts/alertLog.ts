/** The alerts fired so far (table alerts), for `routelens alerts --list` and the window. */
import type { Db } from '../db/dbHandle.ts';

export interface AlertRecord {
  id: number;
  run: string;
  episode: string;
  /** The episode the names lead to now, for a link; null once it is gone from the database. */
  episode_id: number | null;
  rule: string;
  message: string;
  fired_at: string;
}

/** Most alerts one answer carries: a window polling with sinceId catches up in steps. */
export const ALERT_PAGE = 500;

/**
 * Alerts after `sinceId` (oldest first, at most ALERT_PAGE), or without it the latest `last` (oldest first too).
 */
export function listAlerts(db: Db, options: { sinceId?: number; last?: number } = {}): AlertRecord[] {
  const select = `SELECT a.id, a.run, a.episode, e.id AS episode_id, a.rule, a.message, a.fired_at FROM alerts a
    LEFT JOIN runs r ON r.name = a.run LEFT JOIN episodes e ON e.run_id = r.id AND e.ext_id = a.episode`;
  if (options.sinceId !== undefined) {
    return db.prepare(`${select} WHERE a.id > ? ORDER BY a.id LIMIT ?`).all(options.sinceId, ALERT_PAGE) as AlertRecord[];
  }
  const last = Math.min(options.last ?? 100, ALERT_PAGE);
  return (db.prepare(`${select} ORDER BY a.id DESC LIMIT ?`).all(last) as AlertRecord[]).reverse();
}
