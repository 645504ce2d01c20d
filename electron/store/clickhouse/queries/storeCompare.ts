/**
 * Compare (electron/compare) on a ClickHouse store: each run of the two sides is read with two aggregations on
 * the shards, its sessions' outcomes and costs (one row per episode) and its calls summed per (episode, model)
 * (as SQLite keeps them in episode_models), and the comparison itself is the same code as on SQLite
 * (compareWith). What crosses the network grows with the runs' episodes, never with their turns.
 *
 * The counterfactual cost ("every call on model X") prices every call, so it streams the runs' calls in parts.
 */
import { CompareInput, type CompareResult } from '../../../../shared/apiCompare.ts';
import { describeIssue } from '../../../../shared/canonical.ts';
import { compareWith } from '../../../compare/compare.ts';
import { isRest } from '../../../compare/costAttribution.ts';
import { CompareError, type CompareReads, type CounterfactualCosts, type EpisodeModels, type RunEpisodes, type WholeRunCost } from '../../../compare/compareReads.ts';
import { aliasKey, loadPool, shippedModelPrice } from '../../../db/models.ts';
import { counterfactualAssumption, SessionCostsOn, type CallRow } from '../../../compare/counterfactualCost.ts';
import { storeOutputRatios } from './storeOutputRatios.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { visibleRows } from '../schema/schema.ts';
import { runNamesById, storeModelOrder } from './storeEpisodes.ts';

const num = (x: unknown): number => Number(x);

export async function compareOnStore(store: ClickHouseStore, request: CompareInput): Promise<CompareResult> {
  const parsed = CompareInput.safeParse(request);
  if (!parsed.success) throw new CompareError(describeIssue(parsed.error));
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
      if (!counterfactual) throw new CompareError('the counterfactual cost was not read from the store');
      return counterfactual;
    },
  };
  // The counterfactual streams every call of the sides' runs, so it is read here, before the comparison proper.
  const wanted = parsed.data.counterfactual_model;
  const counterfactual = wanted ? await counterfactualOnStore(store, [...runs.values()], wanted, reads.modelName(wanted)) : null;
  return compareWith(reads, parsed.data);
}

/** Calls read per part of a run when pricing them on another model: what is in memory at once. */
const CALLS_PER_PART = 200_000;

/** Each session's cost with every call on the model, the runs' calls streamed in parts (counterfactualCost.ts). */
async function counterfactualOnStore(store: ClickHouseStore, runs: RunEpisodes[], asked: string, name: string | undefined): Promise<CounterfactualCosts> {
  if (name === undefined) throw new CompareError(`no model named ${JSON.stringify(asked)} for the counterfactual cost (see routelens models)`);
  const model = shippedModelPrice(name);
  const ratios = await storeOutputRatios(store);
  const target = ratios.get(name) ?? 1;
  const sessionCost = new Map<number, Float64Array>();
  for (const data of runs) {
    const acc = new SessionCostsOn(data, model, (logged) => logged === name, (logged) => ratios.get(logged as string) ?? 1, target);
    const [size] = await store.query<{ n: string }>(`SELECT count() AS n FROM ${store.table('turns')} WHERE ${visibleRows(store)} AND run = {run:String}`, { run: data.runName });
    const parts = Math.max(1, Math.ceil(num(size?.n ?? 0) / CALLS_PER_PART));
    for (let p = 0; p < parts; p++) {
      const rows = await store.query<{ k: string; model: string; tin: string | null; tout: string | null; cached: string | null; written: string | null; cost: number | null }>(
        `SELECT episode_key AS k, model, tokens_in AS tin, tokens_out AS tout, tokens_cached AS cached, tokens_cache_write AS written, cost
         FROM ${store.table('turns')} WHERE ${visibleRows(store)} AND run = {run:String} AND episode_key % ${parts} = ${p}`,
        { run: data.runName },
      );
      const orNull = (x: string | number | null): number | null => (x === null ? null : num(x));
      acc.add(rows.map((r): CallRow => [num(r.k), r.model, orNull(r.tin), orNull(r.tout), orNull(r.cached), orNull(r.written), orNull(r.cost)]));
    }
    sessionCost.set(data.runId, acc.finish());
  }
  return { model, sessionCost, assumption: counterfactualAssumption(name) };
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
