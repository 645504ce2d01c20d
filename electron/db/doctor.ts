/**
 * `routelens doctor` (issue 16): the full `PRAGMA integrity_check` of a database, and what can still be
 * read from it — each table's row count, each run's episodes and turns, and the source files it was
 * imported from (re-importing those into a fresh database is the recovery). Never writes.
 *
 * First the schema is compared with RouteLens's (schemaIdentity.ts, issue 38): when it differs, the report
 * names each difference and reads only tables whose definition is RouteLens's. integrity_check is skipped
 * then, as it evaluates the file's own CHECK constraints and index expressions.
 */
import { existsSync } from 'node:fs';
import { checkSchema, type SchemaComparison } from './schemaIdentity.ts';
import { DamagedDatabaseError, inspectDatabaseFile, NotRouteLensError, openForInspection } from './database.ts';
import type { Db } from './dbHandle.ts';

export interface DoctorReport {
  path: string;
  /**
   * ok: intact; damaged: a RouteLens database with problems; altered: its schema is not as RouteLens wrote it
   * (problems name each difference; only tables defined as RouteLens defines them were read);
   * not_routelens: refused, nothing inspected.
   */
  status: 'ok' | 'damaged' | 'altered' | 'not_routelens';
  /** integrity_check's findings (up to 100), header problems, or why the file cannot be opened. */
  problems: string[];
  tables: { name: string; rows: number | null; error?: string }[];
  runs: { name: string; episodes: number | null; turns: number | null; error?: string }[];
  /** Files this database was imported from, and whether each is still on disk: the way to rebuild it. */
  sources: { path: string; format: string; episodes: number; exists: boolean }[] | null;
  recovery: string[];
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function attempt<T>(f: () => T): { value: T } | { error: string } {
  try {
    return { value: f() };
  } catch (e) {
    return { error: message(e) };
  }
}

export function diagnose(path: string): DoctorReport {
  const report: DoctorReport = { path, status: 'ok', problems: [], tables: [], runs: [], sources: null, recovery: [] };
  try {
    inspectDatabaseFile(path, true);
  } catch (e) {
    if (e instanceof NotRouteLensError) {
      report.status = 'not_routelens';
      report.problems.push(e.message);
      return report;
    }
    if (!(e instanceof DamagedDatabaseError)) throw e;
    report.problems.push(e.message.replace(/, run `routelens doctor[^`]*`$/, ''));
  }
  let db: Db;
  try {
    db = openForInspection(path);
  } catch (e) {
    report.status = 'damaged';
    report.problems.push(`cannot be opened: ${message(e)}`);
    report.recovery.push('nothing can be read with SQLite; restore the file from a backup or re-import its source logs');
    return report;
  }
  let altered: SchemaComparison | null = null;
  try {
    const schema = attempt(() => db.transaction(() => checkSchema(db))());
    if ('value' in schema && schema.value.differences.length) {
      altered = schema.value;
      report.problems.push(...altered.differences.map((d) => `not as RouteLens wrote it: ${d}`));
    } else {
      const check = attempt(() => db.prepare('PRAGMA integrity_check(100)').pluck().all() as string[]);
      if ('error' in check) report.problems.push(`integrity_check failed: ${check.error}`);
      else if (!(check.value.length === 1 && check.value[0] === 'ok')) report.problems.push(...check.value);
    }
    const readable = (...tables: string[]): boolean => altered === null || tables.every((t) => altered?.intactTables.has(t));

    const names = attempt(() => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[]);
    if ('error' in names) {
      report.problems.push(`the schema cannot be read: ${names.error}`);
    } else {
      for (const name of names.value) {
        if (!readable(name)) {
          report.tables.push({ name, rows: null, error: 'not as RouteLens defines it, not read' });
          continue;
        }
        const n = attempt(() => db.prepare(`SELECT COUNT(*) FROM "${name.replaceAll('"', '""')}"`).pluck().get() as number);
        report.tables.push('error' in n ? { name, rows: null, error: n.error } : { name, rows: n.value });
      }
      const runs = readable('runs', 'episodes', 'turns')
        ? attempt(() => db.prepare('SELECT id, name FROM runs ORDER BY id').all() as { id: number; name: string }[])
        : { error: 'not read' };
      if ('value' in runs) {
        for (const r of runs.value) {
          const episodes = attempt(() => db.prepare('SELECT COUNT(*) FROM episodes WHERE run_id = ?').pluck().get(r.id) as number);
          const turns = attempt(() => db.prepare('SELECT COUNT(*) FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.run_id = ?').pluck().get(r.id) as number);
          const error = 'error' in episodes ? episodes.error : 'error' in turns ? turns.error : undefined;
          report.runs.push({
            name: r.name, episodes: 'value' in episodes ? episodes.value : null, turns: 'value' in turns ? turns.value : null,
            ...(error ? { error } : {}),
          });
        }
      }
      const sources = !readable('sources') ? { error: 'not read' } : attempt(() => db.prepare('SELECT path, format, episodes FROM sources ORDER BY id').all() as { path: string; format: string; episodes: number }[]);
      if ('value' in sources) report.sources = sources.value.map((s) => ({ ...s, exists: existsSync(s.path) }));
    }
  } finally {
    db.close();
  }
  if (report.problems.length === 0 && report.tables.every((t) => t.error === undefined) && report.runs.every((r) => r.error === undefined)) return report;
  report.status = altered ? 'altered' : 'damaged';
  if (altered) report.recovery.push('RouteLens will not open it: a view, trigger or definition it did not write could run on the next read or import');
  const readableRuns = report.runs.filter((r) => r.error === undefined);
  if (readableRuns.length) report.recovery.push(`readable runs: ${readableRuns.map((r) => `${r.name} (${r.episodes} episodes, ${r.turns} turns)`).join(', ')}`);
  const broken = [...report.tables.filter((t) => t.error).map((t) => `table ${t.name}`), ...report.runs.filter((r) => r.error).map((r) => `run ${r.name}`)];
  if (broken.length) report.recovery.push(`unreadable: ${broken.join(', ')}`);
  const onDisk = (report.sources ?? []).filter((s) => s.exists);
  if (onDisk.length) {
    report.recovery.push(`rebuild by re-importing its ${onDisk.length} source file(s) still on disk into a new database: routelens import ${onDisk.map((s) => JSON.stringify(s.path)).join(' ')} --db NEW.db`);
  }
  const missing = (report.sources ?? []).filter((s) => !s.exists);
  if (missing.length) report.recovery.push(`${missing.length} source file(s) are no longer on disk: ${missing.slice(0, 5).map((s) => s.path).join(', ')}${missing.length > 5 ? ', …' : ''}`);
  if (report.sources === null) report.recovery.push('the list of source files cannot be read: re-import the logs you imported into it; `sqlite3 FILE .recover` may salvage more rows');
  return report;
}
