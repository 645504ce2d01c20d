/**
 * Reading a Crush session database (`.crush/crush.db`) without touching it.
 *
 * Crush keeps the database in WAL mode, and SQLite opens a WAL database read-only only by creating `-shm` and
 * `-wal` files beside it (measured on the real sample: a read-only open of a copy left both behind), and
 * better-sqlite3 is built without URI names, so `?immutable=1` is not available. So the file, and its `-wal`
 * when one holds changes not yet folded in, is copied into a private temporary folder and opened read-only there:
 * the user's file is only read, byte for byte, and nothing appears beside it.
 *
 * The file is hostile input: the header is checked before the copy (a truncated file says so), the tables and
 * columns read are checked to exist as plain tables (no views, virtual tables or generated columns, whose reads
 * would compute something), the connection is query-only with an untrusted schema, and every value is decoded
 * with a schema (wrong types and oversized texts refuse the file). Any SQLite error becomes `file:0: …`.
 */
import { closeSync, copyFileSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { describeIssue } from '../../shared/canonical.ts';
import { ImportError } from './types.ts';

export const SQLITE_MAGIC = 'SQLite format 3\u0000';
/** One message's `parts` JSON: the same bound as the JSON Lines importers put on one line. */
export const MAX_PARTS_BYTES = 64 * 1024 * 1024;
const MAX_ID = 300;

export interface CrushSession {
  id: string;
  parentId: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** Crush's running total in USD; it also adds each finished sub-agent session's cost (agent tool). */
  cost: number | null;
  created_at: number | null;
  summary_message_id: string | null;
}

export interface CrushMessage {
  id: string;
  role: string;
  parts: string;
  model: string | null;
  provider: string | null;
  created_at: number | null;
  /** Crush ≥ 2025-08-10 marks its compaction summary; older versions only name it in sessions.summary_message_id. */
  is_summary: boolean;
}

/** The columns read; a database without one of them is not one this importer understands. */
const REQUIRED: Record<string, readonly string[]> = {
  sessions: ['id', 'parent_session_id', 'prompt_tokens', 'completion_tokens', 'cost', 'created_at'],
  messages: ['id', 'session_id', 'role', 'parts', 'model', 'created_at'],
};
/** Added by later Crush migrations: read when present. */
const OPTIONAL: Record<string, readonly string[]> = {
  sessions: ['summary_message_id'],
  messages: ['provider', 'is_summary_message'],
};

const id = z.string().min(1, 'empty id').max(MAX_ID, `longer than ${MAX_ID} characters`);
const count = z.number().int().nonnegative().nullable();
const SessionRow = z.object({
  id,
  parent_session_id: z.string().max(MAX_ID).nullable(),
  prompt_tokens: count,
  completion_tokens: count,
  cost: z.number().nonnegative().nullable(),
  created_at: z.number().nullable(),
  summary_message_id: z.string().max(MAX_ID).nullable(),
});
const MessageRow = z.object({
  id,
  role: z.string().max(100),
  parts_type: z.string(),
  parts_bytes: z.number().nullable(),
  parts: z.string().nullable(),
  model: z.string().max(300).nullable(),
  provider: z.string().max(300).nullable(),
  created_at: z.number().nullable(),
  is_summary: z.union([z.number(), z.string()]).nullable(),
});

/** Why the first bytes of `file` are not a whole SQLite database, or null when they may be. */
function headerFault(file: string): string | null {
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  const header = Buffer.alloc(100);
  let n: number;
  try {
    n = readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (n < 100 || header.subarray(0, 16).toString('latin1') !== SQLITE_MAGIC) return 'not a SQLite database';
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pages = header.readUInt32BE(28);
  // The page count is trusted only when written by the same change as the header (SQLite's own rule).
  if (header.readUInt32BE(92) === header.readUInt32BE(24) && pages * pageSize > size) {
    return `truncated: its header counts ${pages} pages of ${pageSize} bytes (${pages * pageSize} bytes), the file has ${size}`;
  }
  return null;
}

function nonEmptyFile(path: string): boolean {
  try {
    const st = statSync(path);
    return st.isFile() && st.size > 0;
  } catch {
    return false;
  }
}

export class CrushDatabase {
  /** Prepared once: a database may hold thousands of sessions. */
  private messageQuery: Database.Statement | null = null;

  private constructor(
    private readonly file: string,
    private readonly dir: string,
    private readonly db: Database.Database,
    private readonly columns: Record<string, Set<string>>,
  ) {}

  /** A private read-only copy of `file` (and its `-wal`), checked to hold Crush's tables. */
  static open(file: string, warn: (m: string) => void): CrushDatabase {
    const fault = headerFault(file);
    if (fault) throw new ImportError(file, 0, fault);
    const dir = mkdtempSync(join(tmpdir(), 'routelens-crush-'));
    let db: Database.Database | null = null;
    try {
      const copy = join(dir, 'crush.db');
      copyFileSync(file, copy);
      // Changes Crush has not yet folded into the file (it is running, or was killed) live in the -wal only.
      if (nonEmptyFile(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
      if (nonEmptyFile(`${file}-journal`)) warn(`${file}-journal beside it: a write was interrupted; read as the file stands`);
      db = new Database(copy, { readonly: true, fileMustExist: true });
      db.pragma('query_only = ON');
      db.pragma('trusted_schema = OFF');
      const columns = checkSchema(file, db);
      return new CrushDatabase(file, dir, db, columns);
    } catch (err) {
      db?.close();
      rmSync(dir, { recursive: true, force: true });
      throw asImportError(file, err);
    }
  }

  close(): void {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Runs `read`, turning SQLite's errors (a damaged page, a malformed schema) into the file's rejection. */
  guard<T>(read: () => T): T {
    try {
      return read();
    } catch (err) {
      throw asImportError(this.file, err);
    }
  }

  private column(table: string, name: string, as: string = name): string {
    return this.columns[table]?.has(name) ? `"${name}" AS ${as}` : `NULL AS ${as}`;
  }

  sessions(): CrushSession[] {
    const sql = `SELECT id, parent_session_id, prompt_tokens, completion_tokens, cost, created_at,
      ${this.column('sessions', 'summary_message_id')} FROM sessions ORDER BY created_at, rowid`;
    return this.guard(() => this.db.prepare(sql).all()).map((row, i) => {
      const r = this.decode(SessionRow, row, `sessions row ${i + 1}`);
      return {
        id: r.id,
        parentId: r.parent_session_id === '' ? null : r.parent_session_id,
        prompt_tokens: r.prompt_tokens,
        completion_tokens: r.completion_tokens,
        cost: r.cost,
        created_at: r.created_at,
        summary_message_id: r.summary_message_id === '' ? null : r.summary_message_id,
      };
    });
  }

  /** A session's messages in the order Crush wrote them (created_at has whole seconds; rowid breaks the ties). */
  messages(sessionId: string): CrushMessage[] {
    this.messageQuery ??= this.guard(() => this.db.prepare(`SELECT id, role, typeof(parts) AS parts_type, octet_length(parts) AS parts_bytes,
      CASE WHEN typeof(parts) = 'text' AND octet_length(parts) <= ${MAX_PARTS_BYTES} THEN parts END AS parts,
      model, ${this.column('messages', 'provider')}, created_at, ${this.column('messages', 'is_summary_message', 'is_summary')}
      FROM messages WHERE session_id = ? ORDER BY rowid`));
    const query = this.messageQuery;
    return this.guard(() => query.all(sessionId)).map((row) => {
      const r = this.decode(MessageRow, row, `a message of session ${sessionId}`);
      const where = `message ${r.id}`;
      if (r.parts_type !== 'text') throw new ImportError(this.file, 0, `${where}: parts is ${r.parts_type}, not JSON text`);
      if (r.parts === null) {
        throw new ImportError(this.file, 0, `${where}: parts is ${r.parts_bytes} bytes, over the limit of ${MAX_PARTS_BYTES}`);
      }
      return {
        id: r.id,
        role: r.role,
        parts: r.parts,
        model: r.model === '' ? null : r.model,
        provider: r.provider === '' ? null : r.provider,
        created_at: r.created_at,
        is_summary: r.is_summary !== null && Number(r.is_summary) !== 0,
      };
    });
  }

  /** Messages whose session is not in the sessions table (deleted without its messages). */
  orphanMessages(): number {
    const sql = 'SELECT COUNT(*) FROM messages WHERE session_id NOT IN (SELECT id FROM sessions)';
    return this.guard(() => this.db.prepare(sql).pluck().get() as number);
  }

  private decode<S extends z.ZodType>(schema: S, row: unknown, what: string): z.infer<S> {
    const parsed = schema.safeParse(row);
    if (!parsed.success) throw new ImportError(this.file, 0, `${what}: ${describeIssue(parsed.error)}`);
    return parsed.data;
  }
}

/** The columns of Crush's two tables, after checking both are plain tables with every column read. */
function checkSchema(file: string, db: Database.Database): Record<string, Set<string>> {
  const fail = (what: string): ImportError => new ImportError(file, 0, `not a Crush database: ${what}`);
  const objects = db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name IN ('sessions', 'messages')").all() as {
    type: unknown;
    name: unknown;
    sql: unknown;
  }[];
  const columns: Record<string, Set<string>> = {};
  for (const table of Object.keys(REQUIRED)) {
    const entry = objects.find((o) => o.name === table);
    if (!entry) throw fail(`no ${table} table`);
    const sql = typeof entry.sql === 'string' ? entry.sql : '';
    if (entry.type !== 'table' || /^\s*CREATE\s+VIRTUAL\b/i.test(sql)) throw fail(`${table} is a ${String(entry.type)}, not a plain table`);
    if (/\bWITHOUT\s+ROWID\b/i.test(sql)) throw fail(`${table} is a WITHOUT ROWID table`);
    const info = db.prepare('SELECT name, hidden FROM pragma_table_xinfo(?)').all(table) as { name: unknown; hidden: unknown }[];
    const names = new Set(info.map((c) => String(c.name)));
    const computed = new Set(info.filter((c) => c.hidden !== 0).map((c) => String(c.name)));
    for (const name of [...(REQUIRED[table] ?? []), ...(OPTIONAL[table] ?? [])]) {
      if (computed.has(name)) throw fail(`${table}.${name} is a generated column`);
    }
    const missing = (REQUIRED[table] ?? []).filter((c) => !names.has(c));
    if (missing.length > 0) throw fail(`table ${table} has no column ${missing.join(', ')}`);
    columns[table] = names;
  }
  return columns;
}

function asImportError(file: string, err: unknown): ImportError {
  if (err instanceof ImportError) return err;
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  if (typeof e.code === 'string' && e.code.startsWith('SQLITE_')) {
    return new ImportError(file, 0, e.code === 'SQLITE_NOTADB' ? 'not a SQLite database' : `damaged SQLite database (${message})`);
  }
  if (typeof e.code === 'string') return new ImportError(file, 0, `cannot read a private copy (${e.code}: ${message})`);
  throw err;
}
