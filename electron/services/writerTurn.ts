/**
 * A write the window starts (an alert rule, the estimator in use), run on a writer connection of its own in the
 * database's write queue, never on the API's read connection. A database in memory (tests) has no other
 * connection: the write goes on `db` itself.
 */
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import type { WriteTurns } from '../estimator/estimatorJobs.ts';

export type WriterTurn = <T>(what: string, run: (writer: Db) => T) => Promise<T>;

export function writerTurn(db: Db, dbPath: string, writes?: WriteTurns): WriterTurn {
  const memory = db.memory || dbPath === '' || dbPath === ':memory:';
  return async <T>(what: string, run: (writer: Db) => T): Promise<T> => {
    const once = (): T => {
      if (memory) return run(db);
      const writer = openDatabase(dbPath);
      try {
        return run(writer);
      } finally {
        writer.close();
      }
    };
    if (!writes) return once();
    const out = await writes.run(what, async () => once(), () => {}, { cancelled: false });
    if (out === undefined) throw new Error(`${what} was skipped`);
    return out;
  };
}
