// Upgrading a database keeps every row (DESIGN §12, issue 8 item 3). A database built with only the first
// k migrations and filled with real imported data is opened with the current code: it migrates to the latest
// version, every row of every table it had is still there (on the columns it had), and the services read it.
// While there is only one schema version, the same check runs against a synthetic next migration, so the
// machinery (and `migrate` itself) is exercised now and the real check starts with the second migration.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { createApi } from '../services/api.ts';
import { queryEpisodes } from './episodeQueries.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useTempDir } from '../testing/tmp.ts';
import { openDatabase } from './database.ts';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, migrationChecksum, type Migration } from './migrations.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const INPUTS = ['canonical/example.jsonl', 'samples/uno/uno-transcripts.jsonl', 'samples/inspect/log_streaming.eval', 'samples/mtrouter/router.traj.json'];
const tempDir = useTempDir();

/** A database with the current schema holding real imports of every kind of row we can produce. */
async function filledCurrent(path: string): Promise<void> {
  const db = openDatabase(path);
  const report = await importPaths(db, INPUTS.map((f) => join(fixtures, f)));
  expect(report.files.every((f) => f.status === 'imported')).toBe(true);
  db.close();
}

/** Applies exactly `migrations` the way `migrate` records them (same table, same checksums). */
function buildAtVersion(path: string, migrations: readonly Migration[]): void {
  const db = new Database(path);
  db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  for (const m of migrations) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_version VALUES (?, ?, ?, ?)').run(m.version, m.name, migrationChecksum(m), '2026-01-01T00:00:00Z');
  }
  db.close();
}

type Columns = Map<string, string[]>;

/** Ordinary tables (not FTS shadow tables, not schema_version) and their columns. */
function tablesOf(db: Database.Database, schema = 'main'): Columns {
  const names = db
    .prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
      AND name NOT LIKE 'turn_fts%' AND name NOT LIKE 'message_fts%' AND name != 'schema_version' ORDER BY name`)
    .pluck()
    .all() as string[];
  return new Map(names.map((t) => [t, (db.prepare(`PRAGMA ${schema}.table_info("${t}")`).all() as { name: string }[]).map((c) => c.name)]));
}

/** Copies every row of `source` into the older database at `path`, on the columns both have. */
function fillFrom(path: string, source: string): void {
  const db = new Database(path);
  db.pragma('foreign_keys = OFF');
  db.prepare('ATTACH DATABASE ? AS cur').run(source);
  const newer = tablesOf(db, 'cur');
  db.transaction(() => {
    for (const [table, columns] of tablesOf(db)) {
      const shared = columns.filter((c) => newer.get(table)?.includes(c)).map((c) => `"${c}"`).join(', ');
      if (!shared) continue;
      db.exec(`DELETE FROM main."${table}"`); // seeded rows (models) come from the source too
      db.exec(`INSERT INTO main."${table}" (${shared}) SELECT ${shared} FROM cur."${table}"`);
    }
  })();
  const hasFts = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'turn_fts'").get();
  if (hasFts) db.exec("INSERT INTO turn_fts(turn_fts) VALUES ('rebuild')");
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'message_fts'").get()) db.exec("INSERT INTO message_fts(message_fts) VALUES ('rebuild')");
  db.exec('DETACH DATABASE cur');
  db.close();
}

/** Rows of `before` (a copy of the database as it was) missing from `after`, per table, on the old columns. */
function lostRows(after: string, before: string): Record<string, number> {
  const db = new Database(after, { readonly: true });
  db.prepare('ATTACH DATABASE ? AS old').run(before);
  const lost: Record<string, number> = {};
  for (const [table, columns] of tablesOf(db, 'old')) {
    const cols = columns.map((c) => `"${c}"`).join(', ');
    const missing = db.prepare(`SELECT COUNT(*) FROM (SELECT ${cols} FROM old."${table}" EXCEPT SELECT ${cols} FROM main."${table}")`).pluck().get() as number;
    const counts = db.prepare(`SELECT (SELECT COUNT(*) FROM old."${table}") - (SELECT COUNT(*) FROM main."${table}")`).pluck().get() as number;
    if (missing !== 0 || counts !== 0) lost[table] = Math.max(missing, counts);
  }
  db.close();
  return lost;
}

async function expectLosslessUpgrade(path: string, open: (p: string) => Database.Database, latest: number): Promise<void> {
  const before = `${path}.before`;
  copyFileSync(path, before);
  const db = open(path);
  expect(db.prepare('SELECT MAX(version) FROM schema_version').pluck().get()).toBe(latest);
  const runs = await createApi(db, path).listRuns({});
  expect(runs.length).toBeGreaterThan(0);
  db.close();
  expect(lostRows(path, before)).toEqual({});
  const old = new Database(before, { readonly: true });
  expect(old.prepare('SELECT COUNT(*) FROM episodes').pluck().get()).toBeGreaterThan(0);
  old.close();
}

describe('schema migrations keep every row', () => {
  const previous = MIGRATIONS.slice(0, -1).map((m) => m.version);
  for (const version of previous) {
    it(`a database at version ${version} (filled with real imports) migrates to ${LATEST_SCHEMA_VERSION} without loss`, async () => {
      const dir = tempDir();
      const current = join(dir, 'current.db');
      await filledCurrent(current);
      const path = join(dir, `v${version}.db`);
      buildAtVersion(path, MIGRATIONS.filter((m) => m.version <= version));
      fillFrom(path, current);
      await expectLosslessUpgrade(path, (p) => openDatabase(p), LATEST_SCHEMA_VERSION);
    });
  }
  if (previous.length === 0) {
    it.skip(`a database at version ${LATEST_SCHEMA_VERSION - 1} migrates without loss (there is one schema version so far)`, () => undefined);
  }

  it('a database from before messages (version 6) keeps its text searchable, and the messages imported after it are found too', async () => {
    const dir = tempDir();
    const current = join(dir, 'current.db');
    await filledCurrent(current);
    const path = join(dir, 'v6.db');
    buildAtVersion(path, MIGRATIONS.filter((m) => m.version <= 6));
    fillFrom(path, current);
    const db = openDatabase(path);
    const base = { sort: 'id', desc: false, offset: 0, limit: 50, outcome: 'any' } as const;
    // Words of the MTRouter sample's first command (router.traj.json: grep -n "def add" -r tiny/), indexed before the upgrade.
    const old = queryEpisodes(db, { ...base, search: 'def add' });
    expect(old.total).toBeGreaterThan(0);
    expect(old.rows[0]?.match?.field).toMatch(/action|observation/);
    const report = await importPaths(db, [join(fixtures, 'samples/canonical/messages.jsonl')]);
    expect(report.files.map((f) => f.status)).toEqual(['imported']);
    // The prompt typed before turn 2 of messages.jsonl (the real session's row 53).
    expect(queryEpisodes(db, { ...base, search: 'golang' }).rows[0]?.match).toMatchObject({ t: 2, field: 'message', message: { role: 'user', index: 3, final: false } });
    expect(queryEpisodes(db, { ...base, search: 'def add' }).total).toBe(old.total);
    db.close();
  });

  it('a database from before outcome explanations (version 8): its episodes read as not recorded, those imported after have theirs', async () => {
    const dir = tempDir();
    const current = join(dir, 'current.db');
    await filledCurrent(current);
    const path = join(dir, 'v8.db');
    buildAtVersion(path, MIGRATIONS.filter((m) => m.version <= 8));
    fillFrom(path, current);
    const db = openDatabase(path);
    const api = createApi(db, path);
    // log_streaming.eval's sample 1, epoch 1: its target and scorer were never read into this database.
    const old = await api.getEpisode({ ext_id: '1_epoch1' });
    expect(old.episode.outcome).toBeNull();
    expect(old.episode.final_score).toBe(0);
    const report = await importPaths(db, [join(fixtures, 'mtrouter/hle/roulette/66f2a7c9d0e14b3a8c5d6e70')]);
    expect(report.files.map((f) => f.status)).toEqual(['imported']);
    const fresh = await api.getEpisode({ ext_id: '66f2a7c9d0e14b3a8c5d6e70' });
    expect(fresh.episode.outcome).toMatchObject({ target: '4.95', answer: '4.95 rad/s' });
    expect(fresh.episode.outcome?.notes?.[0]).toMatch(/^Scored 0 by default/);
    // An episode whose log has nothing to explain its outcome reads {} (nothing more), not null (not read).
    await importPaths(db, [join(fixtures, 'samples/canonical/messages.jsonl')]);
    const plain = db.prepare("SELECT x.outcome FROM episode_text x JOIN episodes e ON e.id = x.episode_id JOIN runs r ON r.id = e.run_id WHERE r.source_format = 'canonical' AND x.outcome IS NOT NULL").pluck().all();
    expect(plain.length).toBeGreaterThan(0);
    expect(new Set(plain)).toEqual(new Set(['{}']));
    db.close();
  });

  it('a database of this version migrates to a next one (synthetic: a column, a table, a backfilled index) without loss', async () => {
    const dir = tempDir();
    const path = join(dir, 'now.db');
    await filledCurrent(path);
    const next: Migration = {
      version: LATEST_SCHEMA_VERSION + 1,
      name: 'synthetic upgrade (test only)',
      sql: `ALTER TABLE episodes ADD COLUMN note TEXT;
        CREATE TABLE episode_notes (episode_id INTEGER PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE, note TEXT NOT NULL);
        INSERT INTO episode_notes (episode_id, note) SELECT id, 'n' || id FROM episodes;
        CREATE INDEX episodes_note ON episodes(note);`,
    };
    vi.resetModules();
    vi.doMock('./migrations.ts', async (original) => {
      const real = await original<typeof import('./migrations.ts')>();
      return { ...real, MIGRATIONS: [...real.MIGRATIONS, next], LATEST_SCHEMA_VERSION: real.LATEST_SCHEMA_VERSION + 1 };
    });
    try {
      const upgraded = await import('./database.ts');
      await expectLosslessUpgrade(path, (p) => upgraded.openDatabase(p), LATEST_SCHEMA_VERSION + 1);
      const db = new Database(path, { readonly: true });
      expect(db.prepare('SELECT COUNT(*) FROM episode_notes').pluck().get()).toBe(db.prepare('SELECT COUNT(*) FROM episodes').pluck().get());
      db.close();
      // Reopening runs nothing twice.
      upgraded.openDatabase(path).close();
    } finally {
      vi.doUnmock('./migrations.ts');
      vi.resetModules();
    }
    // And this RouteLens refuses the upgraded database instead of guessing.
    expect(() => openDatabase(path)).toThrow(/newer than this RouteLens/);
  });

  it('an interrupted migration leaves the database at its previous version, and the next open completes it', async () => {
    const dir = tempDir();
    const path = join(dir, 'v0.db');
    // A migration that fails half-way (its second statement) must not leave its first one applied.
    const broken: Migration = { version: 1, name: 'core tables', sql: `${MIGRATIONS[0]?.sql ?? ''}\nSELECT no_such_function();` };
    vi.resetModules();
    vi.doMock('./migrations.ts', async (original) => {
      const real = await original<typeof import('./migrations.ts')>();
      return { ...real, MIGRATIONS: [broken, ...real.MIGRATIONS.slice(1)] };
    });
    try {
      const failing = await import('./database.ts');
      expect(() => failing.openDatabase(path)).toThrow(/no_such_function/);
    } finally {
      vi.doUnmock('./migrations.ts');
      vi.resetModules();
    }
    const raw = new Database(path, { readonly: true });
    expect(raw.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name IN ('runs', 'episodes', 'turns')").pluck().get()).toBe(0);
    raw.close();
    const db = openDatabase(path);
    expect(db.prepare('SELECT MAX(version) FROM schema_version').pluck().get()).toBe(LATEST_SCHEMA_VERSION);
    db.close();
  });
});
