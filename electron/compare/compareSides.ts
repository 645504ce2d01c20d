/**
 * The episodes Compare reads (issue 18), per run: the episodes, and their turns summed per (episode, model) in
 * SQL. Sessions are what a side counts: a child episode (subagent, compaction) belongs to the root of its parent
 * chain, as in the Runs view and replay (replayData.ts rootsOf); a child whose parent is not in the run stands
 * alone. A run's data is kept until the database changes: summing 400k turns costs ~0.5 s of SQLite, and the
 * Compare view asks again for every change of side, label or bootstrap.
 */
import type { CompareField, CompareSide } from '../../shared/apiCompare.ts';
import { commitStamp } from '../analysis/columnar.ts';
import type { Db } from '../db/database.ts';
import { aliasKey } from '../db/models.ts';
import { rootsOf } from '../replay/replayData.ts';

/** The request names something that is not there (a run, a model, a value no episode has): the caller's mistake. */
export class CompareError extends Error {}

export interface RunEpisodes {
  runId: number;
  runName: string;
  /** Episode i, in id order. */
  id: Int32Array;
  extId: string[];
  taskId: (string | null)[];
  /** 1 success, 0 failure, -1 unknown. */
  success: Int8Array;
  /** score_norm; NaN when unknown. */
  score: Float64Array;
  /** The episode's own known cost (episodes.total_cost) and calls of unknown cost (episodes.unpriced_turns). */
  cost: Float64Array;
  unpriced: Int32Array;
  /** Index of the session (root episode) a child belongs to; -1 for a session. */
  root: Int32Array;
  /** The model of most of the session's own calls (ties: the first to appear); -1 without calls. */
  mainModel: Int32Array;
  /** Values of the fields a side may be split by. */
  budgetMode: (string | null)[];
  split: (string | null)[];
  /** The episode's policy, else the run's; read only when a side is split by policy (policyOf), since the
   * episode's sits beside its task text and reading it doubles a cold load. */
  policy: (string | null)[] | null;
  /** Turns summed per (episode, model), row r: episode index emEpisode[r], models.id emModel[r]. */
  emEpisode: Int32Array;
  emModel: Int32Array;
  emCalls: Float64Array;
  emTokensIn: Float64Array;
  emTokensOut: Float64Array;
  emTokensCached: Float64Array;
  emTokensCacheWrite: Float64Array;
  /** Known cost of the calls (cost_source ≠ 'none'); calls of unknown cost counted in emUnknown. */
  emCost: Float64Array;
  emUnknown: Float64Array;
  modelNames: Map<number, string>;
}

const cache = new WeakMap<Db, { stamp: string; runs: Map<number, RunEpisodes> }>();

/** The run's episodes, from the cache while the database is unchanged. */
export function runEpisodes(db: Db, runId: number): RunEpisodes {
  const stamp = commitStamp(db);
  let hit = cache.get(db);
  if (!hit || hit.stamp !== stamp) {
    hit = { stamp, runs: new Map() };
    cache.set(db, hit);
  }
  const known = hit.runs.get(runId);
  if (known) return known;
  const data = loadRun(db, runId);
  hit.runs.set(runId, data);
  return data;
}

function loadRun(db: Db, runId: number): RunEpisodes {
  const runName = db.prepare('SELECT name FROM runs WHERE id = ?').pluck().get(runId) as string | undefined;
  if (runName === undefined) throw new CompareError(`no run with id ${runId}`);
  const rows = db
    .prepare(`SELECT e.id, e.ext_id, e.task_id, e.success, e.score_norm, e.total_cost, e.unpriced_turns, e.budget_mode, e.split,
        CASE WHEN e.parent_ext_id IS NULL THEN NULL ELSE (SELECT p.id FROM episodes p WHERE p.run_id = e.run_id AND p.ext_id = e.parent_ext_id) END
      FROM episodes e WHERE e.run_id = ? ORDER BY e.id`)
    .raw()
    .all(runId) as [number, string, string | null, number | null, number | null, number, number, string | null, string | null, number | null][];
  const n = rows.length;
  const index = new Map<number, number>();
  const parentIds: [number, number][] = [];
  const data: RunEpisodes = {
    runId,
    runName,
    id: new Int32Array(n),
    extId: new Array<string>(n),
    taskId: new Array<string | null>(n),
    success: new Int8Array(n),
    score: new Float64Array(n),
    cost: new Float64Array(n),
    unpriced: new Int32Array(n),
    root: new Int32Array(n),
    mainModel: new Int32Array(n).fill(-1),
    budgetMode: new Array<string | null>(n),
    split: new Array<string | null>(n),
    policy: null,
    emEpisode: new Int32Array(0),
    emModel: new Int32Array(0),
    emCalls: new Float64Array(0),
    emTokensIn: new Float64Array(0),
    emTokensOut: new Float64Array(0),
    emTokensCached: new Float64Array(0),
    emTokensCacheWrite: new Float64Array(0),
    emCost: new Float64Array(0),
    emUnknown: new Float64Array(0),
    modelNames: new Map(db.prepare('SELECT id, name FROM models').raw().all() as [number, string][]),
  };
  rows.forEach(([id, ext, task, success, score, cost, unpriced, mode, split, parent], i) => {
    index.set(id, i);
    data.id[i] = id;
    data.extId[i] = ext;
    data.taskId[i] = task;
    data.success[i] = success === null ? -1 : success;
    data.score[i] = score ?? Number.NaN;
    data.cost[i] = cost;
    data.unpriced[i] = unpriced;
    data.budgetMode[i] = mode;
    data.split[i] = split;
    if (parent !== null && parent !== id) parentIds.push([i, parent]);
  });
  data.root = rootsOf(n, index, parentIds);

  // Per episode × model sums kept at import (episode_models, migration 5): ~2-3 rows per episode, no scan of turns.
  const groups = db
    .prepare(`SELECT em.episode_id, em.model_id, em.n_turns, em.first_t, em.tokens_in, em.tokens_out, em.tokens_cached,
        em.tokens_cache_write, em.cost, em.unknown_turns
      FROM episode_models em JOIN episodes e ON e.id = em.episode_id WHERE e.run_id = ?`)
    .raw()
    .all(runId) as [number, number, number, number, number | null, number | null, number | null, number | null, number, number][];
  const m = groups.length;
  data.emEpisode = new Int32Array(m);
  data.emModel = new Int32Array(m);
  data.emCalls = new Float64Array(m);
  data.emTokensIn = new Float64Array(m);
  data.emTokensOut = new Float64Array(m);
  data.emTokensCached = new Float64Array(m);
  data.emTokensCacheWrite = new Float64Array(m);
  data.emCost = new Float64Array(m);
  data.emUnknown = new Float64Array(m);
  const mainCalls = new Float64Array(n);
  const mainFirst = new Float64Array(n).fill(Infinity);
  groups.forEach(([episode, model, calls, first, tin, tout, cached, written, cost, unknown], r) => {
    const e = index.get(episode) as number;
    data.emEpisode[r] = e;
    data.emModel[r] = model;
    data.emCalls[r] = calls;
    data.emTokensIn[r] = tin ?? 0;
    data.emTokensOut[r] = tout ?? 0;
    data.emTokensCached[r] = cached ?? 0;
    data.emTokensCacheWrite[r] = written ?? 0;
    data.emCost[r] = cost;
    data.emUnknown[r] = unknown;
    if (calls > (mainCalls[e] as number) || (calls === mainCalls[e] && first < (mainFirst[e] as number))) {
      mainCalls[e] = calls;
      mainFirst[e] = first;
      data.mainModel[e] = model;
    }
  });
  return data;
}

/** Each episode's policy (its own, else the run's), read once per run and kept with the run's data. */
function policyOf(db: Db, data: RunEpisodes): (string | null)[] {
  if (data.policy) return data.policy;
  const rows = db
    .prepare(`SELECT COALESCE(x.policy_name, r.policy_name) FROM episodes e JOIN runs r ON r.id = e.run_id
      LEFT JOIN episode_text x ON x.episode_id = e.id WHERE e.run_id = ? ORDER BY e.id`)
    .pluck()
    .all(data.runId) as (string | null)[];
  data.policy = rows;
  return rows;
}

function valueOf(data: RunEpisodes, field: CompareField, i: number): string | null {
  if (field === 'model') {
    const m = data.mainModel[i] as number;
    return m < 0 ? null : (data.modelNames.get(m) ?? null);
  }
  if (field === 'policy') return data.policy?.[i] ?? null;
  return field === 'budget_mode' ? (data.budgetMode[i] ?? null) : (data.split[i] ?? null);
}

/** One run's part of a side: its data and the sessions (episode indices) the side takes. */
export interface SidePart {
  data: RunEpisodes;
  sessions: Int32Array;
}

/**
 * The sessions of one side: the sessions of its runs, or those whose field equals the value. A model is named
 * as any of its spellings (the alias table); a value no session has is an error that lists the values there are.
 */
export function selectSide(db: Db, side: CompareSide, name: 'A' | 'B'): SidePart[] {
  const where = side.where;
  let wanted: string | null = where?.value ?? null;
  if (where?.field === 'model') {
    wanted = (db.prepare(`SELECT m.name FROM model_aliases a JOIN models m ON m.id = a.model_id WHERE a.alias = ?`).pluck().get(aliasKey(where.value)) as
      | string
      | undefined) ?? where.value;
  }
  const values = new Set<string>();
  const parts = [...new Set(side.runIds)].map((runId) => {
    const data = runEpisodes(db, runId);
    if (where?.field === 'policy') policyOf(db, data);
    const out: number[] = [];
    for (let i = 0; i < data.id.length; i++) {
      if ((data.root[i] as number) >= 0) continue;
      if (where) {
        const v = valueOf(data, where.field, i);
        if (v !== null) values.add(v);
        if (v !== wanted) continue;
      }
      out.push(i);
    }
    return { data, sessions: Int32Array.from(out) };
  });
  if (parts.every((p) => p.sessions.length === 0)) {
    const runs = parts.map((p) => JSON.stringify(p.data.runName)).join(', ');
    if (!where) throw new CompareError(`side ${name}: ${runs} ${parts.length > 1 ? 'have' : 'has'} no episodes`);
    const sorted = [...values].sort();
    const shown = sorted.slice(0, 12).map((v) => JSON.stringify(v)).join(', ') + (sorted.length > 12 ? `, … (${sorted.length} in all)` : '');
    throw new CompareError(`side ${name}: no episode of ${runs} has ${where.field} = ${JSON.stringify(where.value)} (values there: ${shown || 'none'})`);
  }
  return parts;
}
