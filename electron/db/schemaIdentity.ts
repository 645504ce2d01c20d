/**
 * Is this database's schema the one RouteLens wrote (issue 38 item 3)? A received file can carry a view where
 * a table was, triggers that rewrite rows on the next import, or a column default that calls a function; any
 * of them runs as soon as RouteLens queries or writes. So before any query touches a table, every entry of
 * `sqlite_schema` (tables, indexes, triggers, views, FTS shadow tables) is compared by type, name, table and
 * SQL with what the migrations create for the database's schema version. The expected schema is not a list
 * kept by hand: the migrations run on an in-memory database (about 5 ms, once per version per process) and
 * its `sqlite_schema` is read back, so a new migration is covered the day it lands.
 *
 * Only `sqlite_schema` and, once it is known to be RouteLens's own table, `schema_version` are read here;
 * reading `sqlite_schema` parses the schema but runs none of it.
 */
import Database from 'better-sqlite3';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from './migrations.ts';

type Db = Database.Database;

/** The table `migrate` creates before the first migration; the same text, so its stored SQL matches. */
export const SCHEMA_VERSION_DDL = `CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`;

interface SchemaEntry {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

const readSchema = (db: Db): SchemaEntry[] =>
  db.prepare('SELECT type, name, tbl_name, sql FROM main.sqlite_schema').all() as SchemaEntry[];

const expectedByVersion = new Map<number, Map<string, SchemaEntry>>();

/** What `migrate` leaves in `sqlite_schema` at `version` (0: only schema_version). */
function expectedSchema(version: number): Map<string, SchemaEntry> {
  let entries = expectedByVersion.get(version);
  if (entries) return entries;
  const db = new Database(':memory:');
  try {
    db.exec(SCHEMA_VERSION_DDL);
    for (const m of MIGRATIONS) if (m.version <= version) db.exec(m.sql);
    entries = new Map(readSchema(db).map((e) => [keyOf(e), e]));
  } finally {
    db.close();
  }
  expectedByVersion.set(version, entries);
  return entries;
}

/** Triggers have a namespace of their own; tables, views and indexes share one. */
const keyOf = (e: SchemaEntry): string => (e.type === 'trigger' ? `trigger ${e.name}` : e.name);

const describeEntry = (e: SchemaEntry): string => (e.type === 'table' || e.type === 'view' ? `${e.type} ${e.name}` : `${e.type} ${e.name} on ${e.tbl_name}`);

export interface SchemaComparison {
  /** One phrase per difference (empty: identical). */
  differences: string[];
  /** Tables whose own definition is RouteLens's: reading their rows runs nothing planted. */
  intactTables: Set<string>;
}

/**
 * How the schema at `version` differs from RouteLens's. Only for versions this RouteLens knows; a newer one is
 * refused before (its schema cannot be vouched for).
 */
export function compareSchema(db: Db, version: number): SchemaComparison {
  const expected = expectedSchema(version);
  const found = new Set<string>();
  const differences: string[] = [];
  const intactTables = new Set<string>();
  for (const e of readSchema(db)) {
    found.add(keyOf(e));
    const ours = expected.get(keyOf(e));
    if (!ours) differences.push(`${describeEntry(e)} that RouteLens never creates`);
    else if (ours.type !== e.type) differences.push(`${e.type} ${e.name} where RouteLens has a ${ours.type}`);
    else if (ours.tbl_name !== e.tbl_name || ours.sql !== e.sql) differences.push(`${describeEntry(e)} is not as RouteLens defines it`);
    else if (e.type === 'table') intactTables.add(e.name);
  }
  for (const [key, ours] of expected) if (!found.has(key)) differences.push(`${describeEntry(ours)} is missing`);
  return { differences, intactTables };
}

export const schemaDifferences = (db: Db, version: number): string[] => compareSchema(db, version).differences;

/** The schema version recorded in `schema_version`, after checking that table is exactly RouteLens's. */
export function recordedVersion(db: Db): number | { difference: string } {
  const row = db.prepare("SELECT type, name, tbl_name, sql FROM main.sqlite_schema WHERE name = 'schema_version'").get() as SchemaEntry | undefined;
  const ours = expectedSchema(0).get('schema_version');
  if (!row) return 0;
  if (row.type !== 'table' || row.sql !== ours?.sql) return { difference: `${row.type} schema_version is not as RouteLens defines it` };
  return (db.prepare('SELECT MAX(version) FROM main.schema_version').pluck().get() as number | null) ?? 0;
}

/**
 * The whole comparison for a file that claims to be RouteLens's (for `doctor`): a schema_version table that is
 * not ours, or a version newer than this RouteLens, leaves nothing that can be vouched for.
 */
export function checkSchema(db: Db): SchemaComparison {
  const version = recordedVersion(db);
  if (typeof version !== 'number') return { differences: [version.difference], intactTables: new Set() };
  if (version > LATEST_SCHEMA_VERSION) {
    return { differences: [`schema version ${version} is newer than this RouteLens (${LATEST_SCHEMA_VERSION}), so its schema cannot be checked`], intactTables: new Set() };
  }
  return compareSchema(db, version);
}

/** One line for a refusal: the first differences, and how many more `routelens doctor` lists. */
export function differencesLine(differences: string[]): string {
  const shown = differences.slice(0, 3).join('; ');
  return differences.length > 3 ? `${shown}; and ${differences.length - 3} more` : shown;
}
