/**
 * The one estimator in use for a database (issue 17 item 7): what-if, the step debugger, calibration, the
 * embedding map and replay read ŝ from it unless told otherwise. It is a setting of the database (table
 * `settings`), not of a window, so the desktop window, `routelens serve` and the CLI on the same file agree.
 * Until someone picks one it is the estimator that scored last, else the newest: the rule each view used
 * separately before, now in one place.
 */
import type { Db } from '../db/dbHandle.ts';

const KEY = 'estimator_in_use';

export interface EstimatorInUse {
  id: number;
  name: string;
  /** Picked by a user (else the fallback rule chose it). */
  chosen: boolean;
}

export function estimatorInUse(db: Db): EstimatorInUse | null {
  const stored = db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(KEY) as string | undefined;
  if (stored !== undefined) {
    const row = db.prepare('SELECT id, name FROM estimators WHERE id = ?').get(Number(stored)) as { id: number; name: string } | undefined;
    // A removed estimator leaves its setting behind: fall back rather than point at nothing.
    if (row) return { ...row, chosen: true };
  }
  const row = db.prepare('SELECT id, name FROM estimators ORDER BY scored_at DESC, created_at DESC, id DESC LIMIT 1').get() as
    | { id: number; name: string }
    | undefined;
  return row ? { ...row, chosen: false } : null;
}

/** On a writer connection. */
export function setEstimatorInUse(db: Db, estimatorId: number): void {
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(KEY, String(estimatorId));
}
