/**
 * What "no partial import" means, as checks over a database (DESIGN §12). An import writes each source file
 * in one transaction, so after any crash the database must hold, for every file, either nothing or all of it:
 *
 * - SQLite's own checks pass: `integrity_check` is ok, `foreign_key_check` is empty, and the FTS index agrees
 *   with the text it indexes (`turn_fts` 'integrity-check');
 * - every `sources` row (written first in the file's transaction, its episode count last) names as many
 *   episodes as hold its id, at least one, and — when `expected` is given, from a clean import of the same
 *   files — exactly the episodes and turns a clean import of that file gives;
 * - every episode belongs to a source, has `n_turns` turns numbered without gaps, a text row per turn, and
 *   per-model summaries that add up to its turns; every run has at least one episode.
 *
 * Returns the problems found, as sentences (empty when the database is whole).
 */
import type Database from 'better-sqlite3';

export interface SourceCounts {
  episodes: number;
  turns: number;
}

/** Episodes and turns per source path. */
export function countsBySource(db: Database.Database): Map<string, SourceCounts> {
  const rows = db
    .prepare(`SELECT s.path AS path, COUNT(e.id) AS episodes, COALESCE(SUM(e.n_turns), 0) AS turns
      FROM sources s LEFT JOIN episodes e ON e.source_id = s.id GROUP BY s.id ORDER BY s.path`)
    .all() as ({ path: string } & SourceCounts)[];
  return new Map(rows.map((r) => [r.path, { episodes: r.episodes, turns: r.turns }]));
}

export function partialImportProblems(db: Database.Database, expected?: Map<string, SourceCounts>): string[] {
  const problems: string[] = [];
  const integrity = db.pragma('integrity_check', { simple: true });
  if (integrity !== 'ok') problems.push(`integrity_check: ${String(integrity)}`);
  const fk = db.pragma('foreign_key_check') as unknown[];
  if (fk.length > 0) problems.push(`foreign_key_check: ${JSON.stringify(fk.slice(0, 5))}`);
  try {
    db.exec("INSERT INTO turn_fts(turn_fts) VALUES ('integrity-check')");
  } catch (err) {
    problems.push(`FTS index: ${err instanceof Error ? err.message : String(err)}`);
  }
  const all = <T>(sql: string): T[] => db.prepare(sql).all() as T[];

  for (const s of all<{ path: string; episodes: number; held: number }>(
    `SELECT s.path, s.episodes, (SELECT COUNT(*) FROM episodes e WHERE e.source_id = s.id) AS held FROM sources s`,
  )) {
    if (s.episodes === 0 || s.held !== s.episodes) problems.push(`source ${s.path}: says ${s.episodes} episodes, holds ${s.held}`);
  }
  if (expected) {
    for (const [path, got] of countsBySource(db)) {
      const want = expected.get(path);
      if (!want) problems.push(`source ${path}: not in the clean import`);
      else if (want.episodes !== got.episodes || want.turns !== got.turns) {
        problems.push(`source ${path}: ${got.episodes} episodes / ${got.turns} turns, a clean import gives ${want.episodes} / ${want.turns}`);
      }
    }
  }
  for (const e of all<{ id: number }>('SELECT id FROM episodes WHERE source_id IS NULL LIMIT 5')) {
    problems.push(`episode ${e.id}: no source`);
  }
  for (const e of all<{ id: number; n_turns: number; turns: number; span: number; texts: number; summarised: number }>(
    `SELECT e.id, e.n_turns,
       (SELECT COUNT(*) FROM turns t WHERE t.episode_id = e.id) AS turns,
       (SELECT COALESCE(MAX(t.t) - MIN(t.t) + 1, 0) FROM turns t WHERE t.episode_id = e.id) AS span,
       (SELECT COUNT(*) FROM turns t JOIN turn_text x ON x.turn_id = t.id WHERE t.episode_id = e.id) AS texts,
       (SELECT COALESCE(SUM(m.n_turns), 0) FROM episode_models m WHERE m.episode_id = e.id) AS summarised
     FROM episodes e`,
  )) {
    if (e.turns !== e.n_turns || e.span !== e.n_turns || e.texts !== e.n_turns || e.summarised !== e.n_turns) {
      problems.push(`episode ${e.id}: n_turns ${e.n_turns}, ${e.turns} turns spanning ${e.span}, ${e.texts} texts, ${e.summarised} in model summaries`);
    }
    if (problems.length > 20) break;
  }
  for (const r of all<{ name: string }>('SELECT name FROM runs r WHERE NOT EXISTS (SELECT 1 FROM episodes e WHERE e.run_id = r.id)')) {
    problems.push(`run ${r.name}: no episodes`);
  }
  return problems;
}

/** Row counts of every ordinary table (FTS shadow tables included), for before/after comparisons. */
export function tableCounts(db: Database.Database): Record<string, number> {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name")
    .pluck()
    .all() as string[];
  return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT COUNT(*) FROM "${t}"`).pluck().get() as number]));
}
