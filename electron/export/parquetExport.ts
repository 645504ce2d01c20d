/**
 * `routelens export-data --format parquet --out DIR`: the canonical tables as Parquet, partitioned by run
 * (`DIR/turns/run=NAME/data_0.parquet`, Hive style, names percent-encoded), for DuckDB, Spark or a warehouse.
 * A folder name holds 255 bytes and percent-encoding takes 3 bytes per byte of a non-ASCII name (60 accented
 * letters are 360), so a name that would not fit is cut and given a hash (`run=Évaluation…-1a2b3c4d5e`); every
 * row also carries `run_name`, the name in full (issue 38). The files are written into a hidden folder beside
 * DIR, renamed to DIR when all are written and removed when anything fails: never a half-written DIR.
 * Rows stream from SQLite into a DuckDB database file in a temporary folder through its appender (exact values:
 * NULL stays NULL, an empty string stays empty), then DuckDB writes the Parquet files. Model ids become model
 * names and episode ids the log's own, so the files stand alone. An unknown cost is NULL, never 0.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import type { Redactor } from '../../shared/redact.ts';
import type { Db } from '../db/dbHandle.ts';

type Kind = 'VARCHAR' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN';

interface TableSpec {
  columns: [string, Kind][];
  /** SELECT over the SQLite database giving the columns in order. */
  sql: string;
}

const EPISODE = 'r.name AS run, e.ext_id AS episode';

export const PARQUET_TABLES: Record<string, TableSpec> = {
  runs: {
    columns: [['run', 'VARCHAR'], ['source_format', 'VARCHAR'], ['source_path', 'VARCHAR'], ['imported_at', 'VARCHAR'], ['policy_name', 'VARCHAR'], ['policy_kind', 'VARCHAR']],
    sql: 'SELECT name, source_format, source_path, imported_at, policy_name, policy_kind FROM runs r ORDER BY name',
  },
  episodes: {
    columns: [['run', 'VARCHAR'], ['episode', 'VARCHAR'], ['parent_episode', 'VARCHAR'], ['kind', 'VARCHAR'], ['task_id', 'VARCHAR'], ['task_type', 'VARCHAR'],
      ['task_category', 'VARCHAR'], ['split', 'VARCHAR'], ['difficulty', 'VARCHAR'], ['final_score', 'DOUBLE'], ['score_norm', 'DOUBLE'],
      ['success', 'BOOLEAN'], ['total_cost', 'DOUBLE'], ['unpriced_turns', 'BIGINT'], ['n_turns', 'BIGINT'], ['n_switches', 'BIGINT'], ['n_errors', 'BIGINT'],
      ['budget_mode', 'VARCHAR'], ['budget_usd', 'DOUBLE'], ['max_turns', 'BIGINT'], ['train_step', 'BIGINT'], ['exit_reason', 'VARCHAR'], ['agent', 'VARCHAR'],
      ['started_at', 'VARCHAR']],
    sql: `SELECT ${EPISODE}, e.parent_ext_id, e.kind, e.task_id, e.task_type, e.task_category, e.split, e.difficulty, e.final_score, e.score_norm,
        e.success, CASE WHEN e.unpriced_turns > 0 THEN NULL ELSE e.total_cost END, e.unpriced_turns, e.n_turns, e.n_switches, e.n_errors,
        e.budget_mode, e.budget_usd, e.max_turns, e.train_step, e.exit_reason, e.agent, e.started_at
      FROM episodes e JOIN runs r ON r.id = e.run_id ORDER BY e.id`,
  },
  turns: {
    columns: [['run', 'VARCHAR'], ['episode', 'VARCHAR'], ['t', 'BIGINT'], ['model', 'VARCHAR'], ['prev_model', 'VARCHAR'], ['switched', 'BOOLEAN'],
      ['action_type', 'VARCHAR'], ['tool', 'VARCHAR'], ['role', 'VARCHAR'], ['tokens_in', 'BIGINT'], ['tokens_out', 'BIGINT'], ['tokens_cached', 'BIGINT'],
      ['tokens_cache_write', 'BIGINT'], ['tokens_reasoning', 'BIGINT'], ['cost', 'DOUBLE'], ['cost_source', 'VARCHAR'], ['latency_ms', 'DOUBLE'],
      ['propensity', 'DOUBLE'], ['max_severity', 'BIGINT'], ['verdict', 'VARCHAR'], ['verify_correct', 'BOOLEAN'], ['s_tilde', 'DOUBLE'], ['penalty', 'DOUBLE']],
    sql: `SELECT ${EPISODE}, t.t, m.name, pm.name, t.switched, t.action_type, t.tool, t.role, t.tokens_in, t.tokens_out, t.tokens_cached,
        t.tokens_cache_write, t.tokens_reasoning, CASE WHEN t.cost_source = 'none' THEN NULL ELSE t.cost END, t.cost_source, t.latency_ms,
        t.propensity, t.max_severity, t.verdict, t.verify_correct, g.s_tilde, g.penalty
      FROM turns t JOIN episodes e ON e.id = t.episode_id JOIN runs r ON r.id = e.run_id JOIN models m ON m.id = t.model_id
        LEFT JOIN models pm ON pm.id = t.prev_model_id LEFT JOIN targets g ON g.turn_id = t.id ORDER BY t.episode_id, t.t`,
  },
  turn_text: {
    columns: [['run', 'VARCHAR'], ['episode', 'VARCHAR'], ['t', 'BIGINT'], ['action', 'VARCHAR'], ['observation', 'VARCHAR']],
    sql: `SELECT ${EPISODE}, t.t, x.action, x.observation FROM turn_text x JOIN turns t ON t.id = x.turn_id
      JOIN episodes e ON e.id = t.episode_id JOIN runs r ON r.id = e.run_id ORDER BY t.episode_id, t.t`,
  },
  messages: {
    columns: [['run', 'VARCHAR'], ['episode', 'VARCHAR'], ['t', 'BIGINT'], ['seq', 'BIGINT'], ['role', 'VARCHAR'], ['text', 'VARCHAR'], ['timestamp', 'VARCHAR']],
    sql: `SELECT ${EPISODE}, x.t, x.seq, x.role, x.text, x.timestamp FROM messages x JOIN episodes e ON e.id = x.episode_id
      JOIN runs r ON r.id = e.run_id ORDER BY x.episode_id, x.seq`,
  },
  turn_errors: {
    columns: [['run', 'VARCHAR'], ['episode', 'VARCHAR'], ['t', 'BIGINT'], ['error_type', 'VARCHAR'], ['severity', 'BIGINT'], ['source', 'VARCHAR']],
    sql: `SELECT ${EPISODE}, t.t, y.name, x.severity, x.source FROM turn_errors x JOIN error_types y ON y.id = x.error_type_id
      JOIN turns t ON t.id = x.turn_id JOIN episodes e ON e.id = t.episode_id JOIN runs r ON r.id = e.run_id ORDER BY t.episode_id, t.t`,
  },
  turn_candidates: {
    columns: [['run', 'VARCHAR'], ['episode', 'VARCHAR'], ['t', 'BIGINT'], ['model', 'VARCHAR'], ['logged_score', 'DOUBLE']],
    sql: `SELECT ${EPISODE}, t.t, m.name, x.logged_score FROM turn_candidates x JOIN models m ON m.id = x.model_id
      JOIN turns t ON t.id = x.turn_id JOIN episodes e ON e.id = t.episode_id JOIN runs r ON r.id = e.run_id ORDER BY t.episode_id, t.t`,
  },
};

/** Bytes a folder name may hold (ext4, APFS, NTFS: 255), less `run=`. */
const PARTITION_BYTES = 255 - 'run='.length;
const HASH_CHARS = 10;

/** The most a character can take in a folder name once DuckDB percent-encodes it (an unreserved ASCII one: 1). */
const encodedBytes = (ch: string): number => (/^[A-Za-z0-9._-]$/.test(ch) ? 1 : 3 * Buffer.byteLength(ch, 'utf8'));

/** A run's partition value: its name when that fits a folder name, else as much of it as fits and a hash of all of it. */
export function partitionValue(name: string): string {
  const chars = [...name];
  if (chars.reduce((n, ch) => n + encodedBytes(ch), 0) <= PARTITION_BYTES) return name;
  let kept = '';
  let bytes = 0;
  for (const ch of chars) {
    bytes += encodedBytes(ch);
    if (bytes > PARTITION_BYTES - 1 - HASH_CHARS) break;
    kept += ch;
  }
  return `${kept}-${createHash('sha256').update(name).digest('hex').slice(0, HASH_CHARS)}`;
}

/** The error for a folder the export cannot make or use: the user's to fix (exit 1). */
function folderError(dir: string, e: unknown): RangeError {
  const code = (e as NodeJS.ErrnoException).code;
  return new RangeError(`${dir}: cannot write the export there (${code ?? (e as Error).message})`);
}

function append(a: DuckDBAppender, kind: Kind, v: unknown): void {
  if (v === null || v === undefined) return a.appendNull();
  switch (kind) {
    case 'VARCHAR':
      return a.appendVarchar(String(v));
    case 'BIGINT':
      return a.appendBigInt(BigInt(Math.trunc(Number(v))));
    case 'DOUBLE':
      return a.appendDouble(Number(v));
    case 'BOOLEAN':
      return a.appendBoolean(Number(v) !== 0);
  }
}

export interface ParquetReport {
  dir: string;
  tables: Record<string, number>;
}

/**
 * Writes every table under `outDir` (which must be empty or absent); `onProgress` gets rows written so far. With
 * `redactor`, every VARCHAR cell goes through it, the run's name too (before it becomes a folder name).
 */
export async function exportParquet(
  db: Db,
  outDir: string,
  onProgress?: (table: string, rows: number) => void,
  redactor?: Redactor,
): Promise<ParquetReport> {
  const out = resolve(outDir);
  if (existsSync(out)) {
    if (!statSync(out).isDirectory()) throw new RangeError(`${outDir}: is a file (export-data writes into an empty or new folder)`);
    if (readdirSync(out).length > 0) throw new RangeError(`${outDir}: not empty (export-data writes into an empty or new folder)`);
  }
  let staging: string;
  try {
    mkdirSync(dirname(out), { recursive: true });
    staging = mkdtempSync(join(dirname(out), '.routelens-export-'));
  } catch (e) {
    throw folderError(outDir, e);
  }
  const scratch = mkdtempSync(join(tmpdir(), 'routelens-parquet-'));
  const report: ParquetReport = { dir: out, tables: {} };
  try {
    const instance = await DuckDBInstance.create(join(scratch, 'export.duckdb'));
    const con = await instance.connect();
    try {
      for (const [name, spec] of Object.entries(PARQUET_TABLES)) report.tables[name] = await writeTable(db, con, name, spec, join(staging, name), onProgress, redactor);
    } finally {
      con.closeSync();
      instance.closeSync();
    }
    try {
      if (existsSync(out)) rmdirSync(out); // still empty: checked above, and rmdir refuses anything else
      renameSync(staging, out);
    } catch (e) {
      throw folderError(outDir, e);
    }
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return report;
}

/** One table into `target`, one Parquet file per run; returns its row count. */
async function writeTable(
  db: Db,
  con: DuckDBConnection,
  name: string,
  spec: TableSpec,
  target: string,
  onProgress?: (table: string, rows: number) => void,
  redactor?: Redactor,
): Promise<number> {
  // Every spec's first column is the run: `run` becomes the partition (folder) value, `run_name` the name in full.
  const [, ...rest] = spec.columns;
  await con.run(`CREATE TABLE ${name} (run VARCHAR, run_name VARCHAR, ${rest.map(([c, k]) => `${c} ${k}`).join(', ')})`);
  const appender = await con.createAppender(name);
  const partitions = new Map<string, string>();
  let n = 0;
  const text = (v: unknown): unknown => (redactor !== undefined && typeof v === 'string' ? redactor.text(v) : v);
  for (const row of db.prepare(spec.sql).raw().iterate() as Iterable<unknown[]>) {
    const run = String(text(row[0]));
    let partition = partitions.get(run);
    if (partition === undefined) partitions.set(run, (partition = partitionValue(run)));
    appender.appendVarchar(partition);
    appender.appendVarchar(run);
    rest.forEach(([, kind], i) => append(appender, kind, kind === 'VARCHAR' ? text(row[i + 1]) : row[i + 1]));
    appender.endRow();
    if (++n % 100_000 === 0) {
      appender.flushSync();
      onProgress?.(name, n);
    }
  }
  appender.closeSync();
  onProgress?.(name, n);
  // The folder path is ours, quoted as a SQL string; the run names are encoded by DuckDB in the partition names.
  if (n > 0) await con.run(`COPY ${name} TO '${target.replace(/'/g, "''")}' (FORMAT PARQUET, PARTITION_BY (run), COMPRESSION ZSTD)`);
  await con.run(`DROP TABLE ${name}`);
  return n;
}
