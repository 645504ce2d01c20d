/**
 * One writer per database (issue 16): every write the API starts — an import job, a score or train job —
 * goes through this queue, runs on its own connection (never the one the API reads from, so no view sees
 * uncommitted rows), and waits its turn instead of meeting "database is locked":
 * - behind the writes this process queued earlier, saying which one it waits for;
 * - then, before it starts, until no other process (a CLI import) holds SQLite's write lock, probed with
 *   `BEGIN IMMEDIATE` + `ROLLBACK` on a short-lived connection that changes nothing in the file.
 * The probe leaves a small window in which another process may take the lock again; the writer's own busy
 * timeout (and the pipeline's waiting) covers that.
 */
import Database from 'better-sqlite3';
import { isBusyError } from '../db/database.ts';

export type WaitReporter = (why: string | null) => void;

const PROBE_MS = 200;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves once no other connection holds the database's write lock (polls every 200 ms, reporting the wait). */
export async function waitForWriteLock(dbPath: string, onWait: WaitReporter = () => {}, signal?: { cancelled: boolean }): Promise<void> {
  let waiting = false;
  for (;;) {
    if (signal?.cancelled) return;
    let probe: Database.Database | null = null;
    try {
      probe = new Database(dbPath, { fileMustExist: true, timeout: 0 });
      probe.exec('BEGIN IMMEDIATE');
      probe.exec('ROLLBACK');
      if (waiting) onWait(null);
      return;
    } catch (err) {
      if (!isBusyError(err)) return; // not a lock: the writer's own open reports what is wrong, in its words
      if (!waiting) onWait('waiting for another process writing to this database (an import?) to finish…');
      waiting = true;
    } finally {
      probe?.close();
    }
    await sleep(PROBE_MS);
  }
}

export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private current: string | null = null;
  private queued = 0;

  /** `dbPath` null (a database in memory): no other process can write it, only the queue orders writes. */
  constructor(private readonly dbPath: string | null) {}

  /** What is writing now ("import", "score job"…), or null. */
  get writing(): string | null {
    return this.current;
  }

  get pending(): number {
    return this.queued;
  }

  /**
   * Runs `task` once every write queued before it has finished and no other process holds the write lock.
   * `onWait` hears why it waits (null once it starts); `signal.cancelled` set while waiting skips the task
   * (resolves undefined).
   */
  run<T>(label: string, task: () => Promise<T>, onWait: WaitReporter = () => {}, signal?: { cancelled: boolean }): Promise<T | undefined> {
    const ahead = this.current ?? (this.queued > 0 ? 'earlier writes' : null);
    if (ahead) onWait(`waiting for the ${ahead} to finish…`);
    this.queued++;
    const turn = this.tail.then(async () => {
      this.queued--;
      if (signal?.cancelled) return undefined;
      this.current = label;
      try {
        if (this.dbPath) await waitForWriteLock(this.dbPath, onWait, signal);
        if (signal?.cancelled) return undefined;
        onWait(null);
        return await task();
      } finally {
        this.current = null;
      }
    });
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** Resolves when every queued write has finished. */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
