/**
 * The import baseline (DESIGN §11): a bare better-sqlite3 loop that inserts the rows our import wrote — read
 * back from the database it produced — into a fresh database with the same schema and pragmas (openDatabase:
 * WAL, synchronous NORMAL, foreign keys on), FTS5 included, with positional prepared INSERTs in one
 * transaction. Reading the rows back is not timed: rows are read in chunks of episodes, then the clock runs
 * only while that chunk is inserted (and for COMMIT). No parsing, validation, pricing, rule matching or
 * target computation: that is the work our import does on top, and what the ratio prices.
 */
import { openDatabase } from '../electron/db/database.ts';
import type { Db } from '../electron/db/dbHandle.ts';

/** Tables in insert order (parents first), with the columns copied and how a chunk of episodes selects them. */
const TABLES: readonly { name: string; columns: string[]; where: string }[] = [
  { name: 'episodes', columns: ['id', 'run_id', 'ext_id', 'task_id', 'task_type', 'task_category', 'split', 'difficulty', 'final_score', 'score_lo', 'score_hi', 'score_norm', 'success', 'total_cost', 'logged_cost', 'grader_cost', 'n_turns', 'n_errors', 'n_switches', 'expected_steps', 'exit_reason', 'budget_usd', 'budget_mode', 'max_turns', 'train_step', 'started_at', 'source_id'], where: 'id >= ? AND id < ? ORDER BY id' },
  { name: 'episode_text', columns: ['episode_id', 'task_text', 'policy_name'], where: 'episode_id >= ? AND episode_id < ? ORDER BY episode_id' },
  { name: 'episode_models', columns: ['episode_id', 'model_id', 'n_turns', 'priced_turns', 'cost'], where: 'episode_id >= ? AND episode_id < ?' },
  { name: 'grader_calls', columns: ['id', 'episode_id', 'model_id', 'tokens_in', 'tokens_out', 'cost', 'cost_source', 'text'], where: 'episode_id >= ? AND episode_id < ? ORDER BY id' },
  { name: 'turns', columns: ['id', 'episode_id', 't', 'model_id', 'prev_model_id', 'switched', 'action_type', 'tool', 'tokens_in', 'tokens_out', 'tokens_cached', 'cost', 'cost_source', 'latency_ms', 'propensity', 'error_mask', 'max_severity', 'verdict', 'verify_correct'], where: 'episode_id >= ? AND episode_id < ? ORDER BY id' },
  { name: 'turn_text', columns: ['turn_id', 'action', 'observation'], where: 'turn_id IN (SELECT id FROM turns WHERE episode_id >= ? AND episode_id < ?) ORDER BY turn_id' },
  { name: 'turn_errors', columns: ['turn_id', 'error_type_id', 'severity', 'source'], where: 'turn_id IN (SELECT id FROM turns WHERE episode_id >= ? AND episode_id < ?)' },
  { name: 'turn_candidates', columns: ['turn_id', 'model_id', 'logged_score'], where: 'turn_id IN (SELECT id FROM turns WHERE episode_id >= ? AND episode_id < ?)' },
  { name: 'targets', columns: ['turn_id', 's_tilde', 'penalty'], where: 'turn_id IN (SELECT id FROM turns WHERE episode_id >= ? AND episode_id < ?) ORDER BY turn_id' },
  { name: 'plan_nodes', columns: ['id', 'episode_id', 'turn_id', 'round', 'subtask_id', 'model_id', 'primitive', 'status', 'obs_chars'], where: 'episode_id >= ? AND episode_id < ? ORDER BY id' },
  { name: 'plan_edges', columns: ['episode_id', 'round', 'src', 'dst'], where: 'episode_id >= ? AND episode_id < ?' },
];

/** Small parent tables copied whole before the clock starts (they are a few rows; our import writes them too). */
const PARENTS: readonly { name: string; columns: string[] }[] = [
  { name: 'sources', columns: ['id', 'content_hash', 'path', 'format', 'imported_at', 'episodes'] },
  { name: 'runs', columns: ['id', 'name', 'source_format', 'source_path', 'imported_at', 'policy_name', 'policy_kind', 'notes'] },
  { name: 'error_types', columns: ['id', 'name'] },
];

export interface BareInsertResult {
  seconds: number;
  /** Process CPU time over the same timed sections. */
  cpuSeconds: number;
  /** Rows inserted per table (turn_fts counted as its own table). */
  rows: Record<string, number>;
  turns: number;
}

const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const insertSql = (name: string, columns: string[]): string =>
  `INSERT INTO ${name} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;

export function bareInsert(sourcePath: string, targetPath: string, chunkEpisodes = 2000): BareInsertResult {
  const src = openDatabase(sourcePath, { readonly: true });
  const dst: Db = openDatabase(targetPath);
  try {
    // Models the source added beyond the seeded pool, with the same ids (turns reference them).
    const known = new Set(dst.prepare('SELECT id FROM models').pluck().all() as number[]);
    const addModel = dst.prepare('INSERT INTO models (id, name) VALUES (?, ?)');
    for (const [id, name] of src.prepare('SELECT id, name FROM models').raw().all() as [number, string][]) {
      if (!known.has(id)) addModel.run(id, name);
    }
    const rows: Record<string, number> = {};
    dst.exec('BEGIN IMMEDIATE');
    for (const t of PARENTS) {
      const ins = dst.prepare(insertSql(t.name, t.columns));
      for (const r of src.prepare(`SELECT ${t.columns.join(', ')} FROM ${t.name}`).raw().iterate() as Iterable<unknown[]>) ins.run(r);
    }
    const reads = TABLES.map((t) => src.prepare(`SELECT ${t.columns.join(', ')} FROM ${t.name} WHERE ${t.where}`).raw());
    const inserts = TABLES.map((t) => dst.prepare(insertSql(t.name, t.columns)));
    const fts = dst.prepare('INSERT INTO turn_fts (rowid, action, observation) VALUES (?, ?, ?)');
    const textIndex = TABLES.findIndex((t) => t.name === 'turn_text');
    const maxId = (src.prepare('SELECT MAX(id) FROM episodes').pluck().get() as number | null) ?? 0;
    let seconds = 0;
    let cpuSeconds = 0;
    for (let lo = 1; lo <= maxId; lo += chunkEpisodes) {
      const hi = lo + chunkEpisodes;
      const chunk = reads.map((r) => r.all(lo, hi) as unknown[][]);
      const t0 = performance.now();
      const c0 = cpu();
      chunk.forEach((tableRows, k) => {
        const ins = inserts[k]!;
        for (const r of tableRows) ins.run(r);
        if (k === textIndex) for (const r of tableRows) fts.run(r);
      });
      seconds += (performance.now() - t0) / 1000;
      cpuSeconds += cpu() - c0;
      chunk.forEach((tableRows, k) => {
        const name = TABLES[k]!.name;
        rows[name] = (rows[name] ?? 0) + tableRows.length;
      });
      rows.turn_fts = rows.turn_text ?? 0;
    }
    const t0 = performance.now();
    const c0 = cpu();
    dst.exec('COMMIT');
    seconds += (performance.now() - t0) / 1000;
    cpuSeconds += cpu() - c0;
    return { seconds, cpuSeconds, rows, turns: rows.turns ?? 0 };
  } finally {
    if (dst.inTransaction) dst.exec('ROLLBACK');
    src.close();
    dst.close();
  }
}
