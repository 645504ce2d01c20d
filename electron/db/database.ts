/**
 * Opening a RouteLens database (DESIGN §2, §12; issue 16): which files are ours, read-only opens that never
 * write, the single writer, damage detection, migrations and the model table.
 *
 * - `openDatabase(path, { readonly: true })` is a reader: the file must already be a RouteLens database at
 *   the latest schema; the connection is `query_only`, never switches the journal mode, never migrates and
 *   never seeds. A read-only file, or a file in a read-only folder, can be read (see `openReader`).
 * - `openDatabase(path)` is the writer's connection: it creates the database when the path does not exist
 *   (or is a 0-byte file, or an SQLite file with no schema at all: these are initialised), migrates and
 *   seeds the model table only when they are out of date (so opening an up-to-date database writes nothing
 *   and never waits for another writer), and writes through `beginWrite`/`commitWrite`/`rollbackWrite`.
 * - Both refuse, before SQLite touches the file, anything that is not a RouteLens database (a folder, a
 *   non-regular file, a non-SQLite file, another application's SQLite database, an empty file when reading):
 *   `NotRouteLensError`. Damage found on open (broken header, truncation, unreadable schema, `quick_check`)
 *   is a `DamagedDatabaseError` that names `routelens doctor`. Both extend `SchemaError` (exit 1 in the CLI).
 * - A RouteLens database whose schema is not exactly what the migrations create for its version (a view in
 *   place of a table, a planted trigger, a changed definition: schemaIdentity.ts) is an `AlteredSchemaError`,
 *   raised before any table is read. better-sqlite3 cannot interrupt a running query, so this is what keeps
 *   an endless view or a trigger from a received file from ever running (issue 38). It costs ~20 ms on the
 *   first open in a process (the migrations run in memory once) and under 1 ms after.
 */
import { accessSync, constants, existsSync, openSync, readSync, closeSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Db } from './dbHandle.ts';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, migrationChecksum } from './migrations.ts';
import { modelPoolIsCurrent, seedModelPool } from './modelPool.ts';
import { differencesLine, recordedVersion, schemaDifferences, SCHEMA_VERSION_DDL } from './schemaIdentity.ts';

/** The database cannot be used by this RouteLens (wrong schema version, not ours, damaged, busy): exit 1. */
export class SchemaError extends Error {}
/** The file is not a RouteLens database (or not a database at all); RouteLens left it untouched. */
export class NotRouteLensError extends SchemaError {}
/** The file is a RouteLens database but damaged; the message names `routelens doctor`. */
export class DamagedDatabaseError extends SchemaError {}
/**
 * A RouteLens database whose schema is not as RouteLens wrote it (a view, trigger, index or table changed or
 * added): refused before any of it can run, and left unchanged. `routelens doctor` lists every difference.
 */
export class AlteredSchemaError extends NotRouteLensError {}
/** Another process holds the write lock and did not release it in time. */
export class DatabaseBusyError extends SchemaError {}

export interface OpenOptions {
  /** A reader: never writes (see the file comment). Absent or false: the single writer's connection. */
  readonly?: boolean;
  /**
   * Run `PRAGMA quick_check` on open. It reads every page: 1.8 s on a 215 MB database of 337k turns
   * (measured, issue 16), far over an open's budget, so by default it runs only for files up to
   * QUICK_CHECK_MAX_BYTES (~0.15 s). The structural check always runs (~1 ms at any size): the header
   * (magic, page size, truncation), the schema, and each table's first and last rows (the b-tree's edges).
   * Damage it misses is met by the query that reads it and reported the same way (`databaseErrorOf`);
   * `routelens doctor` runs the full `integrity_check`.
   */
  quickCheck?: boolean;
  /** How long a writer's open waits for another writer when it must migrate or re-seed (ms, default 10 s). */
  busyTimeoutMs?: number;
}

/** Files up to this size get `PRAGMA quick_check` on every open (about 0.15 s at this size). */
export const QUICK_CHECK_MAX_BYTES = 16 << 20;
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** RouteLens's sqlite_master rows (schema_version is created first) live in the first pages of the file. */
const IDENTITY_SCAN_BYTES = 1 << 20;

export const damagedMessage = (path: string, what: string): string =>
  `${path}: damaged database: ${what}, run \`routelens doctor --db ${path}\``;

interface FileFacts {
  /** false: the path does not exist, or is a 0-byte file, or an SQLite file with no schema: a writer initialises it. */
  hasSchema: boolean;
  walMode: boolean;
}

/**
 * Decides from the bytes alone (SQLite never opens the file here) whether `path` can be a RouteLens
 * database. Throws NotRouteLensError / DamagedDatabaseError with a one-line reason.
 */
export function inspectDatabaseFile(path: string, readonly: boolean): FileFacts {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new NotRouteLensError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code})`);
    if (readonly) throw new NotRouteLensError(`${path}: no such database (create one with \`routelens import PATH --db ${path}\`)`);
    if (!existsSync(dirname(path) || '.')) throw new NotRouteLensError(`${dirname(path)}: no such folder`);
    return { hasSchema: false, walMode: false };
  }
  if (st.isDirectory()) throw new NotRouteLensError(`${path}: is a folder, not a RouteLens database`);
  if (!st.isFile()) throw new NotRouteLensError(`${path}: not a regular file, not a RouteLens database`);
  if (st.size === 0) {
    if (readonly) throw new NotRouteLensError(`${path}: empty file, not a RouteLens database`);
    return { hasSchema: false, walMode: false };
  }
  const head = Buffer.alloc(Math.min(st.size, IDENTITY_SCAN_BYTES));
  let fd;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new NotRouteLensError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code})`);
  }
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const ours = head.includes('schema_version', 0, 'latin1');
  const magic = head.length >= 16 && head.subarray(0, 16).equals(SQLITE_MAGIC);
  if (!magic) {
    if (ours) throw new DamagedDatabaseError(damagedMessage(path, 'the SQLite header is overwritten'));
    throw new NotRouteLensError(`${path}: not an SQLite database, not a RouteLens database`);
  }
  if (head.length < 100) throw new DamagedDatabaseError(damagedMessage(path, `truncated to ${head.length} bytes`));
  const rawPageSize = head.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) throw new DamagedDatabaseError(damagedMessage(path, `the header gives an impossible page size (${rawPageSize})`));
  const schemaCookie = head.readUInt32BE(40);
  const walMode = head[18] === 2 && head[19] === 2;
  // A database just created by a writer that is still open keeps its first tables in the -wal: the file's bytes
  // cannot tell, so SQLite's own view decides (checkStructure refuses other applications, checkVersion empty files).
  if (!ours && walMode && fileSize(`${path}-wal`) > 0) return { hasSchema: true, walMode };
  if (!ours) {
    if (schemaCookie === 0) {
      // An SQLite file that never had a table: nothing to protect.
      if (readonly) throw new NotRouteLensError(`${path}: empty SQLite database, not a RouteLens database`);
      return { hasSchema: false, walMode };
    }
    throw new NotRouteLensError(`${path}: an SQLite database of another application (no RouteLens schema), left unchanged`);
  }
  const walBytes = fileSize(`${path}-wal`);
  if (walBytes === 0) {
    // Without a WAL to add pages, the file must hold every page the header counts.
    if (st.size % pageSize !== 0) throw new DamagedDatabaseError(damagedMessage(path, `truncated (${st.size} bytes is not a whole number of ${pageSize}-byte pages)`));
    const headerPages = head.readUInt32BE(28);
    const headerValid = head.readUInt32BE(24) === head.readUInt32BE(92);
    if (headerValid && headerPages * pageSize > st.size) {
      throw new DamagedDatabaseError(damagedMessage(path, `truncated (${st.size / pageSize} of ${headerPages} pages)`));
    }
  }
  return { hasSchema: true, walMode };
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** SQLite's error codes for a file that is damaged, as opposed to busy or missing. */
function isDamage(e: unknown): e is Error & { code: string } {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_IOERR_SHORT_READ'));
}

/** SQLite's "database is busy / locked" errors (every extended code): someone else holds the lock. */
export function isBusyError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * Turns an SQLite error met while using the database at `path` into the user-facing error it stands for
 * (damage, a busy lock), or returns it unchanged (our bug). For the CLI's and the server's top-level catch.
 */
export function databaseErrorOf(e: unknown, path: string): unknown {
  if (e instanceof SchemaError) return e;
  if (isDamage(e)) return new DamagedDatabaseError(damagedMessage(path, e.message));
  if (isBusyError(e)) return new DatabaseBusyError(`${path}: another RouteLens process is writing to this database${holderText(path)}; try again when it has finished`);
  return e;
}

export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const readonly = options.readonly ?? false;
  const facts = inspectDatabaseFile(path, readonly);
  const db = readonly ? openReader(path, facts) : openWriterConnection(path);
  if (readonly && facts.walMode && !existsSync(`${path}-wal`) && !db.memory) tidyOnClose(db, path);
  try {
    db.pragma(`busy_timeout = ${readonly ? 5000 : (options.busyTimeoutMs ?? 10_000)}`);
    db.pragma('foreign_keys = ON');
    if (readonly) db.pragma('query_only = ON');
    if (facts.hasSchema) checkStructure(db, path, options.quickCheck ?? statSync(path).size <= QUICK_CHECK_MAX_BYTES);
    if (readonly) {
      checkVersion(db);
    } else {
      if (db.pragma('journal_mode', { simple: true }) !== 'wal') {
        db.pragma('journal_mode = WAL');
      }
      // NORMAL is crash-safe in WAL mode (a crash can lose the last commit, never corrupt); FULL costs ~2x on import.
      db.pragma('synchronous = NORMAL');
      if (currentVersion(db) !== LATEST_SCHEMA_VERSION || !historyMatches(db)) migrate(db);
      if (!modelPoolIsCurrent(db)) seedModelPool(db);
    }
    return db;
  } catch (err) {
    db.close();
    throw databaseErrorOf(err, path);
  }
}

function openWriterConnection(path: string): Db {
  try {
    return new Database(path);
  } catch (e) {
    throw new NotRouteLensError(`${path}: cannot open for writing (${(e as Error).message})`);
  }
}

/**
 * A reader. SQLite's WAL readers need the `-shm` index beside the file: in a writable folder SQLite creates
 * it (and an empty `-wal`) as for any WAL reader — the database file itself is never changed. In a folder
 * we cannot write, with no `-shm` there, a database whose WAL is empty (cleanly closed: every page is in
 * the file) is read from an in-memory copy; one with a non-empty WAL and no `-shm` cannot be read safely.
 */
function openReader(path: string, facts: FileFacts): Db {
  const shmMissing = !existsSync(`${path}-shm`);
  if (facts.walMode && shmMissing && !writable(dirname(path) || '.')) {
    if (fileSize(`${path}-wal`) > 0) {
      throw new NotRouteLensError(`${path}: its folder is read-only and it has unmerged changes (${path}-wal) without ${path}-shm: copy the file and its -wal to a writable folder to read it`);
    }
    const bytes = readFileSync(path);
    bytes[18] = 1; // rollback-journal mode, in the copy only: a deserialized database has no WAL
    bytes[19] = 1;
    return new Database(bytes, { readonly: true });
  }
  try {
    return new Database(path, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new NotRouteLensError(`${path}: cannot open for reading (${(e as Error).message})`);
  }
}

/**
 * A raw read-only connection for `routelens doctor`: no identity, version or structure checks (the file
 * may be damaged), and the same read-only-folder handling as a reader. SQLite errors reach the caller.
 */
export function openForInspection(path: string): Db {
  let walMode = false;
  try {
    const fd = openSync(path, 'r');
    try {
      const head = Buffer.alloc(20);
      readSync(fd, head, 0, 20, 0);
      walMode = head[18] === 2 && head[19] === 2;
    } finally {
      closeSync(fd);
    }
  } catch {
    // unreadable: the open below says why
  }
  const hadWal = existsSync(`${path}-wal`);
  const db = openReader(path, { hasSchema: true, walMode });
  if (walMode && !hadWal && !db.memory) tidyOnClose(db, path);
  db.pragma('query_only = ON');
  return db;
}

/**
 * A WAL reader makes SQLite create `-wal` and `-shm` beside the file, and a read-only connection cannot
 * remove them. When they were absent before this reader, after it closes a plain connection reads the
 * schema and closes: as the last connection SQLite checkpoints an empty WAL (writing nothing to the
 * database file) and deletes both, exactly as a writer's close does. If another process has the database
 * open, SQLite sees it and leaves them. Skipped when the file or folder is not writable.
 */
function tidyOnClose(db: Db, path: string): void {
  const close = db.close.bind(db);
  db.close = (): Db => {
    close();
    if (fileSize(`${path}-wal`) !== 0 || !writable(path) || !writable(dirname(path) || '.')) return db;
    try {
      const c = new Database(path, { fileMustExist: true });
      try {
        c.pragma('query_only = ON');
        c.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
      } finally {
        c.close();
      }
    } catch {
      // busy or gone: the side files stay, as SQLite leaves them
    }
    return db;
  };
}

/** Our tables, each read at its first and last row, and optionally `PRAGMA quick_check`. */
function checkStructure(db: Db, path: string, quickCheck: boolean): void {
  let tables: string[];
  try {
    tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
  } catch (e) {
    if (isDamage(e)) throw new DamagedDatabaseError(damagedMessage(path, `its schema cannot be read (${(e as Error).message})`));
    throw e;
  }
  if (!tables.includes('schema_version')) {
    if (tables.length === 0) return; // never had a table: a writer initialises it, a reader refuses in checkVersion
    throw new NotRouteLensError(`${path}: an SQLite database of another application (tables ${tables.slice(0, 4).join(', ')}${tables.length > 4 ? ', …' : ''}), left unchanged`);
  }
  const cols = (db.prepare('PRAGMA table_info(schema_version)').all() as { name: string }[]).map((c) => c.name).join(',');
  if (cols !== 'version,name,checksum,applied_at') {
    throw new NotRouteLensError(`${path}: an SQLite database of another application (its schema_version table is not RouteLens's), left unchanged`);
  }
  // Before any table is read: a view, trigger or column default planted in a received file runs on first use.
  db.transaction(() => checkIdentity(db, path))();
  for (const t of tables) {
    if (t.includes('_fts')) continue; // virtual-table shadows are checked by quick_check
    try {
      db.prepare(`SELECT * FROM "${t.replaceAll('"', '""')}" ORDER BY rowid LIMIT 1`).all();
      db.prepare(`SELECT * FROM "${t.replaceAll('"', '""')}" ORDER BY rowid DESC LIMIT 1`).all();
    } catch (e) {
      if (isDamage(e)) throw new DamagedDatabaseError(damagedMessage(path, `table ${t} cannot be read (${(e as Error).message})`));
      if (!(e as Error).message.includes('no such column: rowid')) throw e;
      db.prepare(`SELECT * FROM "${t.replaceAll('"', '""')}" LIMIT 1`).all(); // WITHOUT ROWID tables
    }
  }
  if (quickCheck) {
    const problems = db.prepare('PRAGMA quick_check(3)').pluck().all() as string[];
    if (problems.length !== 1 || problems[0] !== 'ok') throw new DamagedDatabaseError(damagedMessage(path, problems.join('; ')));
  }
}

/**
 * Refuses a database whose schema is not exactly what the migrations create for its recorded version (see
 * schemaIdentity.ts), a newer one (its schema cannot be vouched for) and one whose migration history differs.
 */
function checkIdentity(db: Db, path: string): void {
  const version = recordedVersion(db);
  const refuse = (differences: string[]): AlteredSchemaError =>
    new AlteredSchemaError(`${path}: not as RouteLens wrote it (${differencesLine(differences)}), refused and left unchanged; \`routelens doctor --db ${path}\` lists every difference`);
  if (typeof version !== 'number') throw refuse([version.difference]);
  if (version > LATEST_SCHEMA_VERSION) throw new SchemaError(`database has schema version ${version}, newer than this RouteLens (${LATEST_SCHEMA_VERSION})`);
  if (!historyMatches(db)) throw new SchemaError(`database migration history differs from this RouteLens's (checksum mismatch)`);
  const differences = schemaDifferences(db, version);
  if (differences.length) throw refuse(differences);
}

function checkVersion(db: Db): void {
  const version = currentVersion(db);
  if (version === 0 && (db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'schema_version'").pluck().get() as number) === 0) {
    throw new NotRouteLensError(`${db.name}: empty SQLite database, not a RouteLens database`);
  }
  if (version > LATEST_SCHEMA_VERSION) {
    throw new SchemaError(`database has schema version ${version}, newer than this RouteLens (${LATEST_SCHEMA_VERSION})`);
  }
  if (version !== LATEST_SCHEMA_VERSION) {
    throw new SchemaError(`database schema version ${version}, this RouteLens needs ${LATEST_SCHEMA_VERSION}: import into it once to migrate`);
  }
  if (!historyMatches(db)) throw new SchemaError(`database migration history differs from this RouteLens's (checksum mismatch)`);
}

/** True when every recorded migration is one of ours with the same checksum (a read, no writes). */
function historyMatches(db: Db): boolean {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'").get();
  if (!exists) return false;
  const applied = db.prepare('SELECT version, checksum FROM schema_version').all() as { version: number; checksum: string }[];
  return applied.every((row) => {
    const known = MIGRATIONS.find((m) => m.version === row.version);
    return known !== undefined && migrationChecksum(known) === row.checksum;
  });
}

function currentVersion(db: Db): number {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'").get();
  if (!exists) return 0;
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null };
  return row.v ?? 0;
}

export function migrate(db: Db): void {
  db.exec(SCHEMA_VERSION_DDL);
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
    // IMMEDIATE: two writers opening an old database at once migrate it once (the second re-checks).
    db.transaction(() => {
      if (db.prepare('SELECT 1 FROM schema_version WHERE version = ?').get(m.version)) return;
      db.exec(m.sql);
      record.run(m.version, m.name, migrationChecksum(m), new Date().toISOString());
    }).immediate();
  }
}

export function schemaVersion(db: Db): number {
  return currentVersion(db);
}

// ---- the single writer ----

/** Who holds the write lock, as far as its sidecar file (`DB-writer.json`) says; null when unknown. */
export interface WriteHolder {
  pid: number;
  what: string;
  since: string;
}

export interface WriteWait {
  /** The process writing now, when it left its name (and is still alive); null otherwise. */
  holder: WriteHolder | null;
  waitedMs: number;
}

export interface BeginWriteOptions {
  /** What this writer is, shown to whoever waits for it ("import", "score", …). */
  what?: string;
  /** Called about every second while another process holds the write lock. */
  onWait?: (w: WriteWait) => void;
  /** Give up after this long (ms) with a DatabaseBusyError; default: wait as long as the holder is alive. */
  timeoutMs?: number;
}

const holderPath = (db: Db | string): string => `${typeof db === 'string' ? db : db.name}-writer.json`;

/** Whether the process `pid` is running (EPERM: it is, someone else's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live process named in the sidecar file, or null (absent, unreadable, or left by a killed process). */
export function writeHolder(path: string): WriteHolder | null {
  try {
    const h = JSON.parse(readFileSync(holderPath(path), 'utf8')) as WriteHolder;
    if (!Number.isInteger(h.pid) || typeof h.what !== 'string' || typeof h.since !== 'string') return null;
    return processAlive(h.pid) ? h : null;
  } catch {
    return null;
  }
}

function holderText(path: string): string {
  const h = writeHolder(path);
  return h ? ` (${h.what}, pid ${h.pid}, since ${h.since})` : '';
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Takes the write lock (`BEGIN IMMEDIATE`) without blocking the event loop: while another process writes,
 * retries every 100 ms and reports the wait through `onWait`. Pair with `commitWrite` / `rollbackWrite`.
 * The lock itself is SQLite's (released by the OS when a writer dies); the sidecar file only names the
 * holder for whoever waits, and one left by a killed process is ignored.
 */
export async function beginWrite(db: Db, options: BeginWriteOptions = {}): Promise<void> {
  const started = Date.now();
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  let lastReport = -Infinity;
  try {
    for (;;) {
      try {
        db.exec('BEGIN IMMEDIATE');
        break;
      } catch (e) {
        if (!isBusyError(e)) throw e;
      }
      const waited = Date.now() - started;
      if (options.timeoutMs !== undefined && waited >= options.timeoutMs) {
        throw new DatabaseBusyError(`${db.name}: another RouteLens process is writing to this database${holderText(db.name)}; try again when it has finished`);
      }
      if (waited - lastReport >= 1000) {
        lastReport = waited;
        options.onWait?.({ holder: writeHolder(db.name), waitedMs: waited });
      }
      await sleep(100);
    }
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
  if (db.name !== ':memory:' && db.name !== '') {
    try {
      writeFileSync(holderPath(db), JSON.stringify({ pid: process.pid, what: options.what ?? 'a write', since: new Date().toISOString() }));
    } catch {
      // a read-only folder: waiters are told "another process" without a name
    }
  }
}

function clearHolder(db: Db): void {
  try {
    const h = JSON.parse(readFileSync(holderPath(db), 'utf8')) as WriteHolder;
    if (h.pid === process.pid) rmSync(holderPath(db), { force: true });
  } catch {
    // absent or someone else's
  }
}

export function commitWrite(db: Db): void {
  db.exec('COMMIT');
  clearHolder(db);
}

/**
 * Rolls back only when a transaction is open, and never throws: it runs while handling another error (a
 * rejected file, a damaged page), which must reach the user instead of "cannot rollback - no transaction
 * is active" or a second failure of a damaged file.
 */
export function rollbackWrite(db: Db): void {
  try {
    if (db.inTransaction) db.exec('ROLLBACK');
  } catch {
    // the error being handled is the one to report
  } finally {
    clearHolder(db);
  }
}

/** One line for a waiting writer: "waiting for another import to finish… (pid 12, 4 s)". */
export function describeWait(w: WriteWait): string {
  const secs = `${Math.round(w.waitedMs / 1000)} s`;
  return w.holder
    ? `waiting for another ${w.holder.what} to finish… (pid ${w.holder.pid}, waited ${secs})`
    : `waiting for another import to finish… (waited ${secs})`;
}

/**
 * Waits (reporting through `onWait` about once every 5 s) until no other process holds the write lock of
 * the database at `path`, then returns without holding it: for writers whose writes happen elsewhere (a
 * worker thread's own connection), so they start when the database is free instead of failing on SQLite's
 * lock timeout half-way. Opens the writer's connection, so `path` must be (or become) a RouteLens database.
 */
export async function waitForWriteTurn(path: string, options: BeginWriteOptions = {}): Promise<void> {
  const db = openDatabase(path);
  try {
    let reports = 0;
    await beginWrite(db, { ...options, onWait: (w) => (reports++ % 5 === 0 ? options.onWait?.(w) : undefined) });
    rollbackWrite(db);
  } finally {
    db.close();
  }
}
