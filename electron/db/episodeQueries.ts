/**
 * Read-side SQL for runs and episodes, in one place (STYLE §7). Rows are decoded through the contract's
 * zod schemas at the service boundary; here they are typed by the statements that produce them.
 */
import type { EpisodeQuery, EpisodeRow, EpisodeSortColumn, RunSummary } from '../../shared/api.ts';
import type { Db } from './dbHandle.ts';
import { NO_LOG_TOTALS, runLogTotals } from './runCostChecks.ts';
import { ftsQuery, searchHits } from './searchHits.ts';

const SORT_SQL: Record<EpisodeSortColumn, string> = {
  id: 'e.id',
  run: 'r.name',
  ext_id: 'e.ext_id',
  task_category: 'e.task_category',
  n_turns: 'e.n_turns',
  // Unknown costs sort last both ways (NULLS LAST below), never as $0.
  total_cost: 'CASE WHEN e.unpriced_turns > 0 THEN NULL ELSE e.total_cost END',
  final_score: 'e.score_norm',
  success: 'e.success',
  n_errors: 'e.n_errors',
  n_switches: 'e.n_switches',
};

interface RawEpisodeRow extends Omit<EpisodeRow, 'success' | 'models'> {
  success: number | null;
  models: string | null;
}

// An episode with a call of unknown cost (unpriced_turns > 0) has no known total: null, shown as at least its known part.
const EPISODE_COLUMNS = `e.id, e.run_id, r.name AS run, e.ext_id, e.task_category, e.n_turns,
  CASE WHEN e.unpriced_turns > 0 THEN NULL ELSE e.total_cost END AS total_cost, e.total_cost AS known_cost, e.unpriced_turns, e.final_score,
  e.score_norm, e.success, e.exit_reason, e.n_errors, e.n_switches,
  (SELECT group_concat(name, char(31)) FROM (SELECT m.name FROM episode_models em JOIN models m ON m.id = em.model_id
    WHERE em.episode_id = e.id ORDER BY m.name)) AS models`;

export function decodeEpisodeRow(raw: RawEpisodeRow): EpisodeRow {
  return { ...raw, success: raw.success === null ? null : raw.success === 1, models: raw.models ? raw.models.split('\u001f') : [] };
}

export function queryEpisodes(db: Db, q: Required<Pick<EpisodeQuery, 'sort' | 'desc' | 'offset' | 'limit' | 'outcome'>> & EpisodeQuery) {
  // Child episodes (subagents, compactions) are listed under their parent's turns in the inspector, not here:
  // the list counts sessions, as the Runs view does. A child whose parent is not in the run stands alone.
  const where: string[] = [
    '(e.parent_ext_id IS NULL OR NOT EXISTS (SELECT 1 FROM episodes p WHERE p.run_id = e.run_id AND p.ext_id = e.parent_ext_id))',
  ];
  const params: unknown[] = [];
  if (q.runIds && q.runIds.length > 0) {
    where.push(`e.run_id IN (${q.runIds.map(() => '?').join(',')})`);
    params.push(...q.runIds);
  }
  if (q.models && q.models.length > 0) {
    where.push(`e.id IN (SELECT em.episode_id FROM episode_models em JOIN models m ON m.id = em.model_id
      WHERE m.name IN (${q.models.map(() => '?').join(',')}))`);
    params.push(...q.models);
  }
  if (q.outcome === 'success') where.push('e.success = 1');
  else if (q.outcome === 'failure') where.push('e.success = 0');
  else if (q.outcome === 'unknown') where.push('e.success IS NULL');
  if (q.ext_id !== undefined) {
    where.push('e.ext_id = ?');
    params.push(q.ext_id);
  }
  const fts = q.search ? ftsQuery(q.search) : null;
  if (q.search && q.search.trim() !== '') {
    // instr, not LIKE: LIKE ends its pattern at a NUL, so a search for "\0" was '%' and listed every episode.
    // lower() folds ASCII only, as LIKE did.
    const alternatives = ['instr(lower(e.ext_id), lower(?)) > 0'];
    params.push(q.search.trim());
    if (fts) {
      alternatives.push('e.id IN (SELECT t.episode_id FROM turn_fts JOIN turns t ON t.id = turn_fts.rowid WHERE turn_fts MATCH ?)');
      alternatives.push('e.id IN (SELECT m.episode_id FROM message_fts JOIN messages m ON m.id = message_fts.rowid WHERE message_fts MATCH ?)');
      params.push(fts, fts);
    }
    where.push(`(${alternatives.join(' OR ')})`);
  }
  const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const from = 'FROM episodes e JOIN runs r ON r.id = e.run_id';
  const total = (db.prepare(`SELECT COUNT(*) ${from} ${whereSql}`).pluck().get(...params) as number) ?? 0;
  const order = `${SORT_SQL[q.sort]} ${q.desc ? 'DESC' : 'ASC'} NULLS LAST, e.id ${q.desc ? 'DESC' : 'ASC'}`;
  const rows = db
    .prepare(`SELECT ${EPISODE_COLUMNS} ${from} ${whereSql} ORDER BY ${order} LIMIT ? OFFSET ?`)
    .all(...params, q.limit, q.offset) as RawEpisodeRow[];
  if (!fts) return { total, rows: rows.map(decodeEpisodeRow) };
  // Only this page's episodes: where each matched, for the snippet and the turn the row opens at.
  const hits = searchHits(db, rows.map((r) => r.id), q.search ?? '');
  return { total, rows: rows.map((r) => ({ ...decodeEpisodeRow(r), match: hits.get(r.id) ?? null })) };
}

export function episodeRowById(db: Db, id: number): EpisodeRow | undefined {
  const raw = db.prepare(`SELECT ${EPISODE_COLUMNS} FROM episodes e JOIN runs r ON r.id = e.run_id WHERE e.id = ?`).get(id) as
    | RawEpisodeRow
    | undefined;
  return raw && decodeEpisodeRow(raw);
}

/** Episode ids with this id from the log (`ext_id`), optionally within one run. */
export function findEpisodeIds(db: Db, extId: string, run?: string): { id: number; run: string }[] {
  const sql = `SELECT e.id, r.name AS run FROM episodes e JOIN runs r ON r.id = e.run_id WHERE e.ext_id = ?${run ? ' AND r.name = ?' : ''} ORDER BY e.id`;
  return db.prepare(sql).all(...(run ? [extId, run] : [extId])) as { id: number; run: string }[];
}

/**
 * The few episodes that matter for unknown costs and child episodes: those naming a parent and those with a
 * turn of unknown cost. Children are folded into the root of their parent chain (the same rule as the
 * columnar cache); a parent not in the run leaves the child a session of its own.
 */
function sessionFacts(db: Db): Map<number, { children: Set<number>; unpricedSessions: Set<number> }> {
  const rows = db
    .prepare(`SELECT e.id, e.run_id, e.unpriced_turns,
        CASE WHEN e.parent_ext_id IS NULL THEN NULL ELSE (SELECT p.id FROM episodes p WHERE p.run_id = e.run_id AND p.ext_id = e.parent_ext_id) END AS parent
      FROM episodes e WHERE e.parent_ext_id IS NOT NULL OR e.unpriced_turns > 0`)
    .all() as { id: number; run_id: number; unpriced_turns: number; parent: number | null }[];
  const parentOf = new Map<number, number>();
  for (const r of rows) if (r.parent !== null && r.parent !== r.id) parentOf.set(r.id, r.parent);
  const rootOf = (id: number): number => {
    let root = id;
    for (let steps = 0; parentOf.has(root); steps++) {
      if (steps > parentOf.size) return id; // a cycle: each member stands alone
      root = parentOf.get(root) as number;
    }
    return root;
  };
  const out = new Map<number, { children: Set<number>; unpricedSessions: Set<number> }>();
  const of = (run: number) => out.get(run) ?? (out.set(run, { children: new Set(), unpricedSessions: new Set() }).get(run) as { children: Set<number>; unpricedSessions: Set<number> });
  for (const r of rows) {
    const root = rootOf(r.id);
    if (root !== r.id) of(r.run_id).children.add(r.id);
    if (r.unpriced_turns > 0) of(r.run_id).unpricedSessions.add(root);
  }
  return out;
}

/**
 * Run KPIs over sessions: a child episode (subagent, compaction) is part of its parent's session, so it is not
 * an episode of its own here and its outcome (none) does not count; its turns and cost do. An unknown outcome
 * is left out of the success rate and counted; a run with any unknown cost has no total (null, shown '—'),
 * `known_cost` being the lower bound.
 */
export function listRuns(db: Db): RunSummary[] {
  const runs = db
    .prepare(`SELECT r.id, r.name, r.source_format AS format, r.source_path, r.imported_at, r.policy_name,
      COALESCE(SUM(e.n_turns), 0) AS turns, COALESCE(SUM(e.total_cost), 0) AS known_cost, COALESCE(SUM(e.unpriced_turns), 0) AS unpriced_turns
      FROM runs r LEFT JOIN episodes e ON e.run_id = r.id GROUP BY r.id ORDER BY r.name`)
    .all() as Pick<RunSummary, 'id' | 'name' | 'format' | 'source_path' | 'imported_at' | 'policy_name' | 'turns' | 'known_cost' | 'unpriced_turns'>[];
  const facts = sessionFacts(db);
  const logTotals = runLogTotals(db);
  // Outcomes over sessions; children are few, so they are subtracted from the run's sums rather than joined out.
  const outcomes = new Map(
    (db
      .prepare(`SELECT run_id, COUNT(*) AS n, SUM(success IS NULL) AS unknown, SUM(success) AS ok, SUM(score_norm) AS score,
        COUNT(score_norm) AS scored FROM episodes GROUP BY run_id`)
      .all() as (Tally & { run_id: number })[]).map((t) => [t.run_id, t]),
  );
  const childOutcomes = (ids: number[]) =>
    db
      .prepare(`SELECT COUNT(*) AS n, SUM(success IS NULL) AS unknown, SUM(success) AS ok, SUM(score_norm) AS score, COUNT(score_norm) AS scored
        FROM episodes WHERE id IN (SELECT value FROM json_each(?))`)
      .get(JSON.stringify(ids)) as Tally;
  const models = db
    .prepare(`SELECT e.run_id AS run_id, m.name AS name, SUM(em.priced_turns) AS priced
      FROM episode_models em JOIN episodes e ON e.id = em.episode_id JOIN models m ON m.id = em.model_id
      GROUP BY e.run_id, em.model_id ORDER BY SUM(em.n_turns) DESC, m.name`)
    .all() as { run_id: number; name: string; priced: number }[];
  return runs.map((r) => {
    const mine = models.filter((m) => m.run_id === r.id);
    const f = facts.get(r.id);
    const all = outcomes.get(r.id);
    const kids = f && f.children.size > 0 ? childOutcomes([...f.children]) : null;
    const minus = (k: keyof Tally): number => (all?.[k] ?? 0) - (kids?.[k] ?? 0);
    const sessions = minus('n');
    const known = sessions - minus('unknown');
    const scored = minus('scored');
    const unpriced = f?.unpricedSessions.size ?? 0;
    return {
      ...r,
      episodes: sessions,
      total_cost: unpriced > 0 ? null : r.known_cost,
      success_rate: known > 0 ? minus('ok') / known : null,
      mean_score_norm: scored > 0 ? minus('score') / scored : null,
      unknown_outcome: minus('unknown'),
      unpriced_episodes: unpriced,
      child_episodes: f?.children.size ?? 0,
      models: mine.map((m) => m.name),
      priced_turns: mine.reduce((a, m) => a + m.priced, 0),
      log_totals: logTotals.get(r.id) ?? NO_LOG_TOTALS,
    };
  });
}

interface Tally {
  n: number;
  unknown: number | null;
  ok: number | null;
  score: number | null;
  scored: number;
}
