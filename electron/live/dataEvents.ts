/**
 * What an open window hears when the database changes under it, whoever wrote it (a `routelens watch` in another
 * process, an import, the window's own follower): `PRAGMA data_version` on the API's read-only connection moves on
 * every commit by another connection, so one cheap pragma on a short timer says "something changed"; each new row
 * of `alerts` then goes out as its own event. The timer runs only while someone listens (serve's event streams, the
 * desktop window); with no listener nothing runs at all.
 */
import type { AlertRow, LiveEvent } from '../../shared/apiLive.ts';
import type { Db } from '../db/dbHandle.ts';

/** How often the data version is read while someone listens: a write shows in the window within about this. */
export const DATA_EVENT_POLL_MS = 400;
/** At most this many alerts go out per change: a flood of rules firing at once is not a flood of banners. */
const MAX_ALERTS_PER_CHANGE = 50;

export type LiveListener = (event: LiveEvent) => void;

export interface DataEvents {
  /** Starts the timer with the first listener; the returned function removes it (and stops the timer with the last). */
  subscribe(listener: LiveListener): () => void;
  /** Whether the timer is running (tests; the idle cost is this and nothing else). */
  readonly polling: boolean;
  close(): void;
}

export function createDataEvents(db: Db, pollMs = DATA_EVENT_POLL_MS): DataEvents {
  const listeners = new Set<LiveListener>();
  let timer: ReturnType<typeof setInterval> | null = null;
  let seenVersion = 0;
  let version = 0;
  let lastAlertId = 0;
  const newAlerts = db.prepare('SELECT id, run, episode, rule, fired_at, message FROM alerts WHERE id > ? ORDER BY id LIMIT ?');
  const maxAlertId = db.prepare('SELECT COALESCE(MAX(id), 0) FROM alerts').pluck();
  const dataVersion = (): number => db.pragma('data_version', { simple: true }) as number;

  const emit = (event: LiveEvent): void => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch {
        // One listener's failure (a closed stream) is not the others'.
      }
    }
  };
  const tick = (): void => {
    let now: number;
    try {
      now = dataVersion();
    } catch {
      return; // the connection is closing; the next tick or close() settles it
    }
    if (now === seenVersion) return;
    seenVersion = now;
    version++;
    emit({ type: 'data', version });
    const alerts = newAlerts.all(lastAlertId, MAX_ALERTS_PER_CHANGE) as AlertRow[];
    for (const alert of alerts) {
      lastAlertId = Math.max(lastAlertId, alert.id);
      emit({ type: 'alert', alert });
    }
    // More than the cap fired at once: the rest are skipped, not queued for later ticks.
    if (alerts.length === MAX_ALERTS_PER_CHANGE) lastAlertId = Math.max(lastAlertId, maxAlertId.get() as number);
  };
  const start = (): void => {
    // What is there when the first window starts listening is what it read; only what comes after is news.
    seenVersion = dataVersion();
    lastAlertId = maxAlertId.get() as number;
    timer = setInterval(tick, pollMs);
    timer.unref?.();
  };
  const stop = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  return {
    subscribe(listener) {
      listeners.add(listener);
      if (!timer) start();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stop();
      };
    },
    get polling() {
      return timer !== null;
    },
    close() {
      listeners.clear();
      stop();
    },
  };
}
