/**
 * Compare (electron/compare) on a ClickHouse store: each run of the two sides is read with two aggregations on
 * the shards, its sessions' outcomes and costs (one row per episode) and its calls summed per (episode, model)
 * (as SQLite keeps them in episode_models), and the comparison itself is the same code as on SQLite
 * (compareWith). What crosses the network grows with the runs' episodes, never with their turns.
 *
 * Not on a store yet: the counterfactual cost ("every call on model X"), which prices every call's tokens.
 */
import { CompareInput, type CompareResult } from '../../../shared/apiCompare.ts';
import { describeIssue } from '../../../shared/canonical.ts';
import { compareWith } from '../../compare/compare.ts';
import { isRest } from '../../compare/costAttribution.ts';
import { CompareError, type CompareReads, type EpisodeModels, type RunEpisodes, type WholeRunCost } from '../../compare/compareSides.ts';
import { aliasKey, loadPool } from '../../db/models.ts';
import type { ClickHouseStore } from './connection.ts';
import { visibleRows } from './schema.ts';
import { runNamesById, storeModelOrder } from './storeEpisodes.ts';

const num = (x: unknown): number => Number(x);

export async function compareOnStore(store: ClickHouseStore, request: CompareInput): Promise<CompareResult> {
  const parsed = CompareInput.safeParse(request);
  if (!parsed.success) throw new CompareError(describeIssue(parsed.error));
  if (parsed.data.counterfactual_model) {
    throw new CompareError('the counterfactual cost prices every call\'s tokens, which a ClickHouse store does not do yet: compare on a SQLite database (--db) for it');
  }
  const names = await runNamesById(store);
  const order = await storeModelOrder(store);
  const modelId = new Map(order.map((m, i) => [m, i]));
  const modelNames = new Map(order.map((m, i) => [i, m]));
  const runs = new Map<number, RunEpisodes>();
  for (const runId of new Set([...parsed.data.a.runIds, ...parsed.data.b.runIds])) {
    const name = names.get(runId);
    if (name === undefined) throw new CompareError(`no run with id ${runId}`);
    runs.set(runId, await readRun(store, runId, name, modelId, modelNames));
  }
  const reads: CompareReads = {
    runEpisodes: (runId) => {
      const data = runs.get(runId);
      if (!data) throw new CompareError(`no run with id ${runId}`);
      return data;
    },
    episodeModelsOf: (data) => data.models as EpisodeModels,
    policyOf: (data) => data.policy as (string | null)[],
    modelName: (alias) => {
      const key = aliasKey(alias);
      const pooled = loadPool().find((m) => aliasKey(m.name) === key || m.aliases.some((a) => aliasKey(a) === key));
      return pooled?.name ?? order.find((m) => aliasKey(m) === key);
    },
    wholeRunCost: (data) => data.wholeRunCost as WholeRunCost,
    counterfactual: () => {
      throw new CompareError('the counterfactual cost is not computed on a ClickHouse store yet');
    },
  };
  return compareWith(reads, parsed.data);
}

/** One run as Compare reads it, episodes in import order (SQLite's id order), with its calls per (episode, model). */
async function readRun(store: ClickHouseStore, runId: number, run: string, modelId: Map<string, number>, modelNames: Map<number, string>): Promise<RunEpisodes> {
  const rows = await store.query<{
    k: string; root: string; ext_id: string; task_id: string | null; success: number | null; score_norm: number | null; total_cost: number;
    unpriced_turns: number; budget_mode: string | null; split: string | null; named: number; policy_name: string | null;
  }>(
    `SELECT episode_key AS k, root_key AS root, ext_id, task_id, success, score_norm, total_cost, unpriced_turns, budget_mode, split,
       isNotNull(parent_ext_id) AS named, policy_name
     FROM ${store.table('episodes')} WHERE ${visibleRows(store)} AND run = {run:String} ORDER BY import_id, file_ord`,
    { run },
  );
  const n = rows.length;
  const index = new Map(rows.map((r, i) => [r.k, i]));
  const data: RunEpisodes = {
    runId,
    runName: run,
    id: Float64Array.from(rows, (r) => num(r.k)),
    extId: rows.map((r) => r.ext_id),
    taskId: rows.map((r) => r.task_id),
    success: Int8Array.from(rows, (r) => (r.success === null ? -1 : num(r.success))),
    score: Float64Array.from(rows, (r) => (r.score_norm === null ? Number.NaN : num(r.score_norm))),
    cost: Float64Array.from(rows, (r) => num(r.total_cost)),
    unpriced: Int32Array.from(rows, (r) => num(r.unpriced_turns)),
    // The store resolved each episode's session at import (root_key), by the rule rootsOf applies on SQLite.
    root: Int32Array.from(rows, (r) => (r.root === r.k ? -1 : (index.get(r.root) ?? -1))),
    plainChildren: true,
    budgetMode: rows.map((r) => r.budget_mode),
    split: rows.map((r) => r.split),
    policy: rows.map((r) => r.policy_name),
    models: null,
    wholeRunCost: null,
    modelNames,
  };
  for (let i = 0; i < n && data.plainChildren; i++) data.plainChildren = (data.root[i] as number) >= 0 === (num(rows[i]?.named) === 1);

  const groups = await store.query<{ k: string; model: string; calls: string; first_t: number; tin: string; tout: string; cached: string; written: string; cost: number; unknown: string }>(
    `SELECT episode_key AS k, model, count() AS calls, min(t) AS first_t, sum(ifNull(tokens_in, 0)) AS tin, sum(ifNull(tokens_out, 0)) AS tout,
       sum(ifNull(tokens_cached, 0)) AS cached, sum(ifNull(tokens_cache_write, 0)) AS written, sum(ifNull(cost, 0)) AS cost,
       countIf(cost_source = 'none') AS unknown
     FROM ${store.table('turns')} WHERE ${visibleRows(store)} AND run = {run:String} GROUP BY episode_key, model ORDER BY episode_key, model`,
    { run },
  );
  const kept = groups.filter((g) => index.has(g.k));
  const m = kept.length;
  const em: EpisodeModels = {
    episode: new Int32Array(m), model: new Int32Array(m), calls: new Float64Array(m), tokensIn: new Float64Array(m), tokensOut: new Float64Array(m),
    tokensCached: new Float64Array(m), tokensCacheWrite: new Float64Array(m), cost: new Float64Array(m), unknown: new Float64Array(m),
    mainModel: new Int32Array(n).fill(-1),
  };
  const mainCalls = new Float64Array(n);
  const mainFirst = new Float64Array(n).fill(Infinity);
  kept.forEach((g, r) => {
    const e = index.get(g.k) as number;
    const model = modelId.get(g.model) ?? -1;
    em.episode[r] = e;
    em.model[r] = model;
    em.calls[r] = num(g.calls);
    em.tokensIn[r] = num(g.tin);
    em.tokensOut[r] = num(g.tout);
    em.tokensCached[r] = num(g.cached);
    em.tokensCacheWrite[r] = num(g.written);
    em.cost[r] = num(g.cost);
    em.unknown[r] = num(g.unknown);
    // The main model: most calls, ties to the one called first (as episodeModelsOf decides on SQLite).
    const calls = num(g.calls);
    const first = num(g.first_t);
    if (calls > (mainCalls[e] as number) || (calls === mainCalls[e] && first < (mainFirst[e] as number))) {
      mainCalls[e] = calls;
      mainFirst[e] = first;
      em.mainModel[e] = model;
    }
  });
  data.models = em;
  data.wholeRunCost = wholeRunCostOfRows(data, em, rows.map((r) => num(r.named) === 1));
  return data;
}

/** The whole run's cost by model and the episodes' rests, from the per-(episode, model) rows (on SQLite: SQL). */
function wholeRunCostOfRows(data: RunEpisodes, em: EpisodeModels, child: boolean[]): WholeRunCost {
  const sums = new Map<string, WholeRunCost['sums'][number]>();
  const callCost = new Float64Array(data.id.length);
  const models = new Int32Array(data.id.length);
  const maxModel = new Int32Array(data.id.length).fill(-1);
  for (let r = 0; r < em.episode.length; r++) {
    const e = em.episode[r] as number;
    const model = em.model[r] as number;
    const c = child[e] ? 1 : 0;
    const key = `${model}:${c}`;
    const row = sums.get(key) ?? (sums.set(key, [model, c, 0, 0, 0, 0, 0, 0, 0]).get(key) as WholeRunCost['sums'][number]);
    row[2] += em.calls[r] as number;
    row[3] += em.tokensIn[r] as number;
    row[4] += em.tokensOut[r] as number;
    row[5] += em.tokensCached[r] as number;
    row[6] += em.tokensCacheWrite[r] as number;
    row[7] += em.cost[r] as number;
    // A call without a cost is unknown only when the episode's total is (no logged total covers it).
    row[8] += (data.unpriced[e] as number) > 0 ? (em.unknown[r] as number) : 0;
    callCost[e] = (callCost[e] as number) + (em.cost[r] as number);
    models[e] = (models[e] as number) + 1;
    maxModel[e] = Math.max(maxModel[e] as number, model);
  }
  const rests: WholeRunCost['rests'] = [];
  for (let e = 0; e < data.id.length; e++) {
    if ((data.unpriced[e] as number) > 0) continue;
    const rest = (data.cost[e] as number) - (callCost[e] as number);
    if (isRest(rest, data.cost[e] as number)) rests.push([child[e] ? 1 : 0, models[e] as number, models[e] ? (maxModel[e] as number) : null, rest]);
  }
  return { sums: [...sums.values()], rests };
}
