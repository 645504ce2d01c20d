/**
 * Everything a replay reads, loaded once into typed arrays: the selected runs' episodes and turns (logged
 * model, propensity, tokens, cost), ŝ per turn and candidate model, and each candidate's estimated cost of
 * every turn. Turns are ordered by episode, then t, so episode e owns turns [turnStart[e], turnStart[e + 1]).
 * Matrices are row-major turn × model with K columns; NaN marks "not a candidate here" (ŝ) or "cannot be
 * priced" (cost).
 *
 * ŝ source: the estimator named, else the newest estimator whose estimates cover every selected turn, else
 * the log's candidate scores (turn_candidates: MTRouter-style logs record the router's ŝ), else none.
 */
import { estimatorInUse } from '../estimator/inUse.ts';
import type { EstimatorRef, SHatSource } from '../../shared/apiReplay.ts';
import { storedExpectedSteps } from '../analysis/storedExpectedSteps.ts';
import type { Db } from '../db/dbHandle.ts';
import { splitCondition } from '../db/splitFilter.ts';
import { learnOutputRatios } from './outputLength.ts';

/** The request names something that does not exist or cannot be replayed; the message says what to do. */
export class ReplayError extends Error {}

/** The estimator has no ŝ for some selected turn: scoring them (again) would let the replay run. */
export class NotScoredError extends ReplayError {}

export interface ReplayData {
  runs: { id: number; name: string }[];
  /** Column k of the matrices: model name and models.id. */
  models: string[];
  modelIds: number[];
  K: number;
  episodeId: Int32Array;
  extId: string[];
  taskId: (string | null)[];
  runOf: Int32Array;
  /** score_norm, NaN when unknown. */
  score: Float64Array;
  /**
   * Index of the loaded episode a child episode (subagent, compaction) belongs to, the root of its parent chain;
   * -1 for a session, and for a child whose parent is not loaded (it then stands alone). Turns stay per episode;
   * episode-level sums (cost per episode, paired runs) are per session.
   */
  parent: Int32Array;
  /** Expected steps N of the task (0 when unknown). */
  expectedSteps: Int32Array;
  turnStart: Int32Array;
  turnId: Int32Array;
  t: Int32Array;
  /** Column of the logged model. */
  logged: Int32Array;
  /** Logged propensity of the chosen model; NaN when not logged. */
  propensity: Float64Array;
  /** Estimated cost of turn i with model k (the logged cost for the logged model); NaN when unknown. */
  cost: Float64Array;
  /** ŝ(h_i, k); null when there is no source. */
  sHat: Float64Array | null;
  /** Columns of models any selected turn logged: the candidates when there is no ŝ. */
  actionSpace: number[];
  /** Candidate columns of turn i are candCols[candStart[i] … candStart[i + 1]) (see candidatesOf). */
  candStart: Int32Array;
  candCols: Int32Array;
  sHatSource: SHatSource;
  estimator: EstimatorRef | null;
  /** Per column: learned output-length ratio. */
  outputRatio: Float64Array;
  notes: string[];
}

export interface LoadOptions {
  runIds?: readonly number[];
  /** Only episodes of this split selection (shared/splits.ts). */
  split?: string;
  estimator?: number;
  /** Models the policies name (fixed:, usage:): they must exist and get a column. */
  models?: readonly string[];
  /**
   * Load only this episode (of the selected runs); the estimator and the action space are still chosen over
   * the runs, so its choices are those a replay of the runs makes (except `usage:`, whose ξ needs the runs).
   */
  episodeId?: number;
  onProgress?: (message: string) => void;
}

interface EstimatorRow {
  id: number;
  name: string;
  created_at: string;
}

/** WHERE over episodes `e` for the selected runs and split selection. */
function runFilter(runIds: readonly number[], split?: string): string {
  const parts: string[] = [];
  if (runIds.length) parts.push(`e.run_id IN (${runIds.map((r) => Number(r)).join(',')})`);
  const inSplit = splitCondition('e.split', split);
  if (inSplit) parts.push(inSplit);
  return parts.length ? `WHERE ${parts.join(' AND ')}` : '';
}

/** Covered turn counts of every estimator over the selected turns. */
function estimatorCoverage(db: Db, runIds: readonly number[], split: string | undefined): Map<number, number> {
  const rows = db
    .prepare(`SELECT s.estimator_id AS id, COUNT(DISTINCT s.turn_id) AS n FROM estimates s
      JOIN turns t ON t.id = s.turn_id JOIN episodes e ON e.id = t.episode_id ${runFilter(runIds, split)} GROUP BY s.estimator_id`)
    .all() as { id: number; n: number }[];
  return new Map(rows.map((r) => [r.id, r.n]));
}

export function pickEstimator(
  db: Db, runIds: readonly number[], nTurns: number, wanted: number | undefined, notes: string[], split?: string,
): EstimatorRow | null {
  const all = db.prepare('SELECT id, name, created_at FROM estimators ORDER BY created_at DESC, id DESC').all() as EstimatorRow[];
  if (wanted === undefined && all.length === 0) return null;
  const coverage = estimatorCoverage(db, runIds, split);
  if (wanted !== undefined) {
    const est = all.find((e) => e.id === wanted);
    if (!est) throw new ReplayError(`no estimator with id ${wanted}${all.length ? ` (known: ${all.map((e) => e.id).join(', ')})` : ' (score first: routelens score --db F --model M.onnx)'}`);
    const n = coverage.get(est.id) ?? 0;
    if (n < nTurns) throw new ReplayError(`estimator ${est.id} (${est.name}) has ŝ for ${n} of the ${nTurns} selected turns: score these runs with it first`);
    return est;
  }
  // The database's estimator in use (inUse.ts) when it covers every turn; else the newest that does, said in a note.
  const inUse = estimatorInUse(db);
  const covers = (e: EstimatorRow) => (coverage.get(e.id) ?? 0) >= nTurns;
  const full = all.find((e) => e.id === inUse?.id && covers(e)) ?? all.find(covers);
  const inUseSkipped = inUse !== null && full !== undefined && full.id !== inUse.id;
  if (inUseSkipped) notes.push(`the estimator in use, ${inUse.name}, has ŝ for ${coverage.get(inUse.id) ?? 0} of ${nTurns} turns; ŝ here is from ${full.name}`);
  const partial = all.filter((e) => e !== full && !(inUseSkipped && e.id === inUse.id) && (coverage.get(e.id) ?? 0) > 0);
  for (const e of partial) notes.push(`estimator ${e.id} (${e.name}) covers ${coverage.get(e.id)} of ${nTurns} turns and was not used`);
  return full ?? null;
}

/**
 * The last load per database, reused while the data and the request are the same: the policy lab replays,
 * diffs and steps through the same runs in turn, and reading ŝ dominates a replay (~4 s for 800k estimates
 * on this 2-core machine under load, against ~0.3 s per policy pass).
 */
const lastLoad = new WeakMap<Db, { key: string; data: ReplayData }>();

function dataVersion(db: Db): string {
  const row = db
    .prepare(`SELECT (SELECT MAX(id) FROM turns) AS t, (SELECT COUNT(*) FROM turns) AS n, (SELECT MAX(rowid) FROM estimates) AS s,
      (SELECT MAX(id) FROM estimators) AS e, (SELECT MAX(id) FROM models) AS m`)
    .get() as Record<string, number | null>;
  return Object.values(row).join(':');
}

export function loadReplayData(db: Db, options: LoadOptions = {}): ReplayData {
  const key = JSON.stringify([dataVersion(db), [...new Set(options.runIds ?? [])].sort((a, b) => a - b), options.split ?? null, options.estimator ?? null, options.episodeId ?? null, [...(options.models ?? [])].sort()]);
  const hit = lastLoad.get(db);
  if (hit && hit.key === key) return hit.data;
  const data = load(db, options);
  lastLoad.set(db, { key, data });
  return data;
}

function load(db: Db, options: LoadOptions): ReplayData {
  const notes: string[] = [];
  const allRuns = db.prepare('SELECT id, name FROM runs ORDER BY id').all() as { id: number; name: string }[];
  const runIds = [...new Set(options.runIds ?? [])];
  for (const r of runIds) if (!allRuns.some((x) => x.id === r)) throw new ReplayError(`no run with id ${r}`);
  const runs = runIds.length === 0 ? allRuns : allRuns.filter((r) => runIds.includes(r.id));
  const runWhere = runFilter(runIds, options.split);
  if (options.split !== undefined && db.prepare(`SELECT COUNT(*) FROM episodes e ${runWhere}`).pluck().get() === 0) {
    const known = db.prepare('SELECT DISTINCT split FROM episodes WHERE split IS NOT NULL ORDER BY split').pluck().all() as string[];
    throw new ReplayError(`no episode of the selected runs is in split "${options.split}" (splits here: ${known.join(', ') || 'none'})`);
  }
  const where = options.episodeId === undefined ? runWhere : `${runWhere ? `${runWhere} AND` : 'WHERE'} e.id = ${Number(options.episodeId)}`;

  options.onProgress?.('reading episodes');
  const eps = db
    .prepare(`SELECT e.id, e.ext_id, e.task_id, e.run_id, e.score_norm, e.expected_steps, e.task_type, e.task_category,
        CASE WHEN e.parent_ext_id IS NULL THEN NULL ELSE (SELECT p.id FROM episodes p WHERE p.run_id = e.run_id AND p.ext_id = e.parent_ext_id) END
      FROM episodes e ${where} ORDER BY e.id`)
    .raw()
    .all() as [number, string, string | null, number, number | null, number | null, string | null, string | null, number | null][];
  const nEp = eps.length;
  const episodeIndex = new Map<number, number>();
  const episodeId = new Int32Array(nEp);
  const runOf = new Int32Array(nEp);
  const score = new Float64Array(nEp);
  const expectedSteps = new Int32Array(nEp);
  const extId: string[] = [];
  const taskId: (string | null)[] = [];
  const parentIds: [number, number][] = [];
  eps.forEach(([id, ext, task, run, s, n, type, category, parentId], e) => {
    if (parentId !== null && parentId !== id) parentIds.push([e, parentId]);
    episodeIndex.set(id, e);
    episodeId[e] = id;
    runOf[e] = run;
    score[e] = s ?? Number.NaN;
    expectedSteps[e] = storedExpectedSteps({ expected_steps: n, task_type: type, task_category: category });
    extId.push(ext);
    taskId.push(task);
  });
  const parent = rootsOf(nEp, episodeIndex, parentIds);

  options.onProgress?.(`reading turns of ${nEp} episodes`);
  const nTurns = db.prepare(`SELECT COUNT(*) FROM turns t JOIN episodes e ON e.id = t.episode_id ${where}`).pluck().get() as number;
  const turnId = new Int32Array(nTurns);
  const tOf = new Int32Array(nTurns);
  const loggedId = new Int32Array(nTurns);
  const propensity = new Float64Array(nTurns);
  const tokIn = new Float64Array(nTurns);
  const tokOut = new Float64Array(nTurns);
  const tokCached = new Float64Array(nTurns);
  const loggedCost = new Float64Array(nTurns);
  const turnStart = new Int32Array(nEp + 1);
  const turnIndex = new Map<number, number>();
  let i = 0;
  let last = -1;
  // turns.cost holds 0 for an unknown cost (cost_source 'none'): read it as unknown.
  for (const [id, episode, t, model, p, tin, tout, tcached, cost] of db
    .prepare(`SELECT t.id, t.episode_id, t.t, t.model_id, t.propensity, t.tokens_in, t.tokens_out, t.tokens_cached,
        CASE WHEN t.cost_source = 'none' THEN NULL ELSE t.cost END
      FROM turns t JOIN episodes e ON e.id = t.episode_id ${where} ORDER BY t.episode_id, t.t`)
    .raw()
    .iterate() as Iterable<[number, number, number, number, number | null, number | null, number | null, number | null, number | null]>) {
    const e = episodeIndex.get(episode) as number;
    while (last < e) turnStart[++last] = i;
    turnId[i] = id;
    turnIndex.set(id, i);
    tOf[i] = t;
    loggedId[i] = model;
    propensity[i] = p !== null && p > 0 ? p : Number.NaN;
    tokIn[i] = tin ?? Number.NaN;
    tokOut[i] = tout ?? Number.NaN;
    tokCached[i] = tcached ?? 0;
    loggedCost[i] = cost ?? Number.NaN;
    i++;
  }
  while (last < nEp) turnStart[++last] = i;

  const runTurns =
    options.episodeId === undefined ? nTurns : (db.prepare(`SELECT COUNT(*) FROM turns t JOIN episodes e ON e.id = t.episode_id ${runWhere}`).pluck().get() as number);
  const est = pickEstimator(db, runIds, runTurns, options.estimator, notes, options.split);
  let sHatSource: SHatSource = 'none';
  let scoreRows: [number, number, number][];
  if (est) {
    options.onProgress?.(`reading ŝ of estimator ${est.id}`);
    sHatSource = 'estimator';
    // A range scan of the primary key (estimator_id, turn_id, …) filtered through turnIndex: ~4× faster than
    // joining turns and episodes per estimate at 800k estimates. Turns of a run are imported with contiguous ids.
    let lo = Infinity;
    let hi = -Infinity;
    for (let j = 0; j < nTurns; j++) {
      lo = Math.min(lo, turnId[j] as number);
      hi = Math.max(hi, turnId[j] as number);
    }
    scoreRows = [];
    if (nTurns > 0) {
      for (const row of db
        .prepare('SELECT turn_id, model_id, s_hat FROM estimates WHERE estimator_id = ? AND turn_id BETWEEN ? AND ?')
        .raw()
        .iterate(est.id, lo, hi) as Iterable<[number, number, number]>) {
        if (turnIndex.has(row[0])) scoreRows.push(row);
      }
    }
  } else {
    scoreRows = db
      .prepare(`SELECT c.turn_id, c.model_id, c.logged_score FROM turn_candidates c JOIN turns t ON t.id = c.turn_id
        JOIN episodes e ON e.id = t.episode_id ${where}`)
      .raw()
      .all() as [number, number, number][];
    if (scoreRows.length > 0) sHatSource = 'logged_candidates';
  }

  // Columns: logged models, scored models, then models the policies name.
  const modelRows = db.prepare('SELECT id, name, price_in_per_m, price_out_per_m, price_cached_per_m FROM models').raw().all() as [
    number, string, number | null, number | null, number | null,
  ][];
  const byId = new Map(modelRows.map((r) => [r[0], r]));
  const byName = new Map(modelRows.map((r) => [r[1], r[0]]));
  const column = new Map<number, number>();
  const addColumn = (id: number): void => {
    if (!column.has(id)) column.set(id, column.size);
  };
  // The action space is every model the runs logged (episode_models keeps this per episode, no turn scan).
  const spaceIds = db.prepare(`SELECT DISTINCT em.model_id FROM episode_models em JOIN episodes e ON e.id = em.episode_id ${runWhere} ORDER BY em.model_id`).pluck().all() as number[];
  for (const id of spaceIds) addColumn(id);
  for (let j = 0; j < nTurns; j++) addColumn(loggedId[j] as number);
  const actionSpace = [...column.values()];
  for (const r of scoreRows) addColumn(r[1]);
  for (const name of options.models ?? []) {
    const id = byName.get(name);
    if (id === undefined) {
      const known = [...column.keys()].map((k) => byId.get(k)?.[1]).filter((n): n is string => !!n);
      throw new ReplayError(`no model named "${name}" (models in these runs: ${known.join(', ') || 'none'})`);
    }
    addColumn(id);
  }
  const K = column.size;
  const modelIds = [...column.keys()];
  const models = modelIds.map((id) => byId.get(id)?.[1] ?? String(id));
  const logged = new Int32Array(nTurns);
  for (let j = 0; j < nTurns; j++) logged[j] = column.get(loggedId[j] as number) as number;

  let sHat: Float64Array | null = null;
  if (sHatSource !== 'none') {
    sHat = new Float64Array(nTurns * K).fill(Number.NaN);
    for (const [tid, mid, s] of scoreRows) {
      const j = turnIndex.get(tid);
      if (j !== undefined) sHat[j * K + (column.get(mid) as number)] = s;
    }
  }

  options.onProgress?.('pricing turns');
  const ratios = learnOutputRatios(db);
  const outputRatio = Float64Array.from(modelIds, (id) => ratios.ratio.get(id) ?? 1);
  for (const [k, id] of modelIds.entries()) if (!ratios.ratio.has(id)) notes.push(noOutputNote(models[k] as string));
  const prices = modelIds.map((id) => {
    const r = byId.get(id);
    const pin = r?.[2] ?? null;
    return { pin, pout: r?.[3] ?? null, pcached: r?.[4] ?? pin };
  });
  const priced = priceTurns({ logged, tokIn, tokOut, tokCached, loggedCost }, K, prices, outputRatio);
  notes.push(...pricingNotes(priced.unpriced, priced.unknownLogged, nTurns));

  return {
    ...candidateLists(sHat, nTurns, K, actionSpace),
    runs,
    models,
    modelIds,
    K,
    episodeId,
    extId,
    taskId,
    runOf,
    score,
    parent,
    expectedSteps,
    turnStart,
    turnId,
    t: tOf,
    logged,
    propensity,
    cost: priced.cost,
    sHat,
    actionSpace,
    sHatSource,
    estimator: est ? { id: est.id, name: est.name, created_at: est.created_at } : null,
    outputRatio,
    notes,
  };
}

export const noOutputNote = (model: string): string => `${model}: no logged output to learn its output length from (ratio 1)`;

/** What a replay says of turns it cannot price, from the counts of priceTurns (summed over parts, on a store). */
export function pricingNotes(unpriced: number, unknownLogged: number, turns: number): string[] {
  const notes: string[] = [];
  if (unpriced > 0) notes.push(`${unpriced.toLocaleString('en-US')} turn × model pairs have no price or no token counts: their cost is unknown, and episodes where a policy chooses one are left out of its cost`);
  if (unknownLogged > 0) notes.push(`${unknownLogged.toLocaleString('en-US')} of ${turns.toLocaleString('en-US')} logged turns have an unknown cost (the log gives none and the model has no price)`);
  return notes;
}

export interface ModelPrice {
  pin: number | null;
  pout: number | null;
  pcached: number | null;
}

/**
 * Each turn's cost with every model (row-major turn × K): the logged cost for the logged model, else its tokens
 * at the model's prices with the output scaled by the two models' output-length ratios; NaN when unknown.
 */
export function priceTurns(
  turns: { logged: Int32Array; tokIn: Float64Array; tokOut: Float64Array; tokCached: Float64Array; loggedCost: Float64Array },
  K: number, prices: readonly ModelPrice[], outputRatio: Float64Array,
): { cost: Float64Array; unpriced: number; unknownLogged: number } {
  const { logged, tokIn, tokOut, tokCached, loggedCost } = turns;
  const nTurns = logged.length;
  const cost = new Float64Array(nTurns * K);
  let unpriced = 0;
  for (let j = 0; j < nTurns; j++) {
    const lg = logged[j] as number;
    const tin = tokIn[j] as number;
    const tout = tokOut[j] as number;
    const cached = Math.min(tokCached[j] as number, Number.isFinite(tin) ? tin : 0);
    for (let k = 0; k < K; k++) {
      if (k === lg) {
        cost[j * K + k] = loggedCost[j] as number;
        continue;
      }
      const p = prices[k]!;
      if (p.pin === null || p.pout === null || !(Number.isFinite(tin) || Number.isFinite(tout))) {
        cost[j * K + k] = Number.NaN;
        unpriced++;
        continue;
      }
      const inUsd = Number.isFinite(tin) ? (tin - cached) * p.pin + cached * (p.pcached ?? p.pin) : 0;
      const outTokens = Number.isFinite(tout) ? (tout * (outputRatio[k] as number)) / (outputRatio[lg] as number) : 0;
      cost[j * K + k] = (inUsd + outTokens * p.pout) / 1e6;
    }
  }
  let unknownLogged = 0;
  for (let j = 0; j < nTurns; j++) if (Number.isNaN(loggedCost[j] as number)) unknownLogged++;
  return { cost, unpriced, unknownLogged };
}

/**
 * The root (a loaded episode that names no loaded parent) of each child episode's parent chain, -1 for the roots
 * themselves; members of a cycle (hostile ids) stand alone.
 */
export function rootsOf(nEp: number, episodeIndex: Map<number, number>, parentIds: [number, number][]): Int32Array {
  const parent = new Int32Array(nEp).fill(-1);
  const direct = new Map<number, number>();
  for (const [e, id] of parentIds) {
    const p = episodeIndex.get(id);
    if (p !== undefined) direct.set(e, p);
  }
  for (const e of direct.keys()) {
    let root = e;
    for (let steps = 0; direct.has(root) && steps <= direct.size; steps++) root = direct.get(root) as number;
    if (root !== e && !direct.has(root)) parent[e] = root;
  }
  return parent;
}

/** Candidate columns of turn i: those with ŝ, or the action space when the turn has none (a view; do not keep). */
export function candidatesOf(data: ReplayData, i: number): Int32Array {
  return data.candCols.subarray(data.candStart[i] as number, data.candStart[i + 1] as number);
}

/** The candidate lists of every turn, built once (CSR): policies ask for them several times per turn. */
export function candidateLists(sHat: Float64Array | null, N: number, K: number, actionSpace: readonly number[]): { candStart: Int32Array; candCols: Int32Array } {
  const candStart = new Int32Array(N + 1);
  const cols: number[] = [];
  for (let i = 0; i < N; i++) {
    candStart[i] = cols.length;
    const before = cols.length;
    if (sHat) for (let k = 0; k < K; k++) if (!Number.isNaN(sHat[i * K + k] as number)) cols.push(k);
    if (cols.length === before) cols.push(...actionSpace);
  }
  candStart[N] = cols.length;
  return { candStart, candCols: Int32Array.from(cols) };
}
