/**
 * The episodes Compare reads (issue 18), per run: the episodes, and on demand their turns summed per (episode,
 * model) at import (episode_models). Sessions are what a side counts: a child episode (subagent, compaction)
 * belongs to the root of its parent chain, as in the Runs view and replay (replayData.ts rootsOf); a child whose
 * parent is not in the run stands alone. A run's data is kept until the database changes: the Compare view asks
 * again for every change of side, label or bootstrap.
 */
import type { CompareField, CompareSide } from '../../shared/apiCompare.ts';
import { commitStamp } from '../analysis/columnar.ts';
import type { Db } from '../db/dbHandle.ts';
import { aliasKey } from '../db/models.ts';
import { rootsOf } from '../replay/replayData.ts';
import { wholeRunCostOf } from './costAttribution.ts';
import { CompareError, type CompareReads, type EpisodeModels, type RunEpisodes, type SidePart } from './compareReads.ts';
import { counterfactualCosts } from './counterfactualCost.ts';


export function sqliteReads(db: Db): CompareReads {
  return {
    runEpisodes: (runId) => runEpisodes(db, runId),
    episodeModelsOf: (data) => episodeModelsOf(db, data),
    policyOf: (data) => policyOf(db, data),
    modelName: (alias) =>
      db.prepare('SELECT m.name FROM model_aliases a JOIN models m ON m.id = a.model_id WHERE a.alias = ?').pluck().get(aliasKey(alias)) as string | undefined,
    wholeRunCost: (data) => wholeRunCostOf(db, data),
    counterfactual: (runs, model) => counterfactualCosts(db, runs, model),
  };
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
        CASE WHEN e.parent_ext_id IS NULL THEN NULL ELSE (SELECT p.id FROM episodes p WHERE p.run_id = e.run_id AND p.ext_id = e.parent_ext_id) END,
        e.parent_ext_id IS NOT NULL
      FROM episodes e WHERE e.run_id = ? ORDER BY e.id`)
    .raw()
    .all(runId) as [number, string, string | null, number | null, number | null, number, number, string | null, string | null, number | null, number][];
  const n = rows.length;
  const index = new Map<number, number>();
  const parentIds: [number, number][] = [];
  const namesParent = new Uint8Array(n);
  const data: RunEpisodes = {
    runId,
    runName,
    id: new Float64Array(n),
    extId: new Array<string>(n),
    taskId: new Array<string | null>(n),
    success: new Int8Array(n),
    score: new Float64Array(n),
    cost: new Float64Array(n),
    unpriced: new Int32Array(n),
    root: new Int32Array(n),
    plainChildren: true,
    budgetMode: new Array<string | null>(n),
    split: new Array<string | null>(n),
    policy: null,
    models: null,
    wholeRunCost: null,
    modelNames: new Map(db.prepare('SELECT id, name FROM models').raw().all() as [number, string][]),
  };
  rows.forEach(([id, ext, task, success, score, cost, unpriced, mode, split, parent, named], i) => {
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
    namesParent[i] = named;
    if (parent !== null && parent !== id) parentIds.push([i, parent]);
  });
  data.root = rootsOf(n, index, parentIds);
  for (let i = 0; i < n && data.plainChildren; i++) data.plainChildren = (data.root[i] as number) >= 0 === (namesParent[i] === 1);
  return data;
}

/**
 * The run's per-(episode, model) sums kept at import (episode_models, migration 5), and each episode's main
 * model; read once per run, when a side is split by model or takes part of a run.
 */
export function episodeModelsOf(db: Db, data: RunEpisodes): EpisodeModels {
  if (data.models) return data.models;
  const groups = db
    .prepare(`SELECT em.episode_id, em.model_id, em.n_turns, em.first_t, em.tokens_in, em.tokens_out, em.tokens_cached,
        em.tokens_cache_write, em.cost, em.unknown_turns
      FROM episode_models em JOIN episodes e ON e.id = em.episode_id WHERE e.run_id = ?`)
    .raw()
    .all(data.runId) as [number, number, number, number, number | null, number | null, number | null, number | null, number, number][];
  const n = data.id.length;
  const index = new Map<number, number>();
  data.id.forEach((id, i) => index.set(id, i));
  const m = groups.length;
  const em: EpisodeModels = {
    episode: new Int32Array(m),
    model: new Int32Array(m),
    calls: new Float64Array(m),
    tokensIn: new Float64Array(m),
    tokensOut: new Float64Array(m),
    tokensCached: new Float64Array(m),
    tokensCacheWrite: new Float64Array(m),
    cost: new Float64Array(m),
    unknown: new Float64Array(m),
    mainModel: new Int32Array(n).fill(-1),
  };
  const mainCalls = new Float64Array(n);
  const mainFirst = new Float64Array(n).fill(Infinity);
  groups.forEach(([episode, model, calls, first, tin, tout, cached, written, cost, unknown], r) => {
    const e = index.get(episode) as number;
    em.episode[r] = e;
    em.model[r] = model;
    em.calls[r] = calls;
    em.tokensIn[r] = tin ?? 0;
    em.tokensOut[r] = tout ?? 0;
    em.tokensCached[r] = cached ?? 0;
    em.tokensCacheWrite[r] = written ?? 0;
    em.cost[r] = cost;
    em.unknown[r] = unknown;
    if (calls > (mainCalls[e] as number) || (calls === mainCalls[e] && first < (mainFirst[e] as number))) {
      mainCalls[e] = calls;
      mainFirst[e] = first;
      em.mainModel[e] = model;
    }
  });
  data.models = em;
  return em;
}

/** Each episode's policy (its own, else the run's), read once per run and kept with the run's data. */
export function policyOf(db: Db, data: RunEpisodes): (string | null)[] {
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
    const m = data.models?.mainModel[i] ?? -1;
    return m < 0 ? null : (data.modelNames.get(m) ?? null);
  }
  if (field === 'policy') return data.policy?.[i] ?? null;
  return field === 'budget_mode' ? (data.budgetMode[i] ?? null) : (data.split[i] ?? null);
}

/**
 * The sessions of one side: the sessions of its runs, or those whose field equals the value. A model is named
 * as any of its spellings (the alias table); a value no session has is an error that lists the values there are.
 */
export function selectSide(reads: CompareReads, side: CompareSide, name: 'A' | 'B'): SidePart[] {
  const where = side.where;
  let wanted: string | null = where?.value ?? null;
  if (where?.field === 'model') wanted = reads.modelName(where.value) ?? where.value;
  const values = new Set<string>();
  const parts = [...new Set(side.runIds)].map((runId) => {
    const data = reads.runEpisodes(runId);
    if (where?.field === 'policy') reads.policyOf(data);
    if (where?.field === 'model') reads.episodeModelsOf(data);
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
    return { data, sessions: Int32Array.from(out), whole: !where };
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
