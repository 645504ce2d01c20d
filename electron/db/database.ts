/** Opening a RouteLens database: pragmas, migrations, and seeding the model table from models/pool.json. */
import Database from 'better-sqlite3';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, migrationChecksum } from './migrations.ts';
import { seedModelPool } from './models.ts';

export type Db = Database.Database;

export class SchemaError extends Error {}

export interface OpenOptions {
  readonly?: boolean;
}

export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  try {
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      // NORMAL is crash-safe in WAL mode (a crash can lose the last commit, never corrupt); FULL costs ~2x on import.
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    if (options.readonly) {
      checkVersion(db);
    } else {
      migrate(db);
      seedModelPool(db);
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function checkVersion(db: Db): void {
  const version = currentVersion(db);
  if (version !== LATEST_SCHEMA_VERSION) {
    throw new SchemaError(`database schema version ${version}, this RouteLens needs ${LATEST_SCHEMA_VERSION}: open it once read-write to migrate`);
  }
}

function currentVersion(db: Db): number {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'").get();
  if (!exists) return 0;
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null };
  return row.v ?? 0;
}

export function migrate(db: Db): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = db.prepare('SELECT version, checksum FROM schema_version ORDER BY version').all() as {
    version: number;
    checksum: string;
  }[];
  for (const row of applied) {
    const known = MIGRATIONS.find((m) => m.version === row.version);
    if (!known) {
      throw new SchemaError(`database has schema version ${row.version}, newer than this RouteLens (${LATEST_SCHEMA_VERSION})`);
    }
    if (migrationChecksum(known) !== row.checksum) {
      throw new SchemaError(`database migration ${row.version} differs from this RouteLens's (checksum mismatch)`);
    }
  }
  const done = new Set(applied.map((r) => r.version));
  const record = db.prepare('INSERT INTO schema_version (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)');
  for (const m of MIGRATIONS) {
    if (done.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, migrationChecksum(m), new Date().toISOString());
    })();
  }
}

export function schemaVersion(db: Db): number {
  return currentVersion(db);
}
