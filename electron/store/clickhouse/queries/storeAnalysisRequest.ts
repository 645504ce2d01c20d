/**
 * `runAnalysis` on the ClickHouse store: the same request and response as electron/analysis/runAnalysis.ts, with
 * the figure-only fields (runs side by side, the turn each plan round opens), so the Analyses pages and figure
 * export draw from the store exactly as from a SQLite database. Calibration reads the ŝ of `score --store`; the
 * embedding map sketches its sample of turns as it draws it (storeEmbeddings.ts).
 */
import type { AnalysisRequest, AnalysisResponse, PlanDagEpisodeResult } from '../../../../shared/analysisResults.ts';
import { splitValues } from '../../../../shared/splits.ts';
import { pickDrawnRuns } from '../../../../shared/drawnRuns.ts';
import { AnalysisInputError, AnalysisNotFoundError, drawsRuns, sideBySide } from '../../../analysis/runAnalysis.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { visibleRows } from '../schema/schema.ts';
import { episodeKey } from '../import/episodeRows.ts';
import { calibrationOnStore } from './storeCalibration.ts';
import { embeddingsOnStore } from './storeEmbeddings.ts';
import {
  budgetModesOnStore, confusionOnStore, errorRecoveryOnStore, liftOnStore, paretoOnStore, paretoTaskTypesOnStore, planDagEpisodeOnStore, planDagSummaryOnStore,
  runWeightsOnStore, switchCostOnStore, targetsOnStore, usageByTurnOnStore, usageRatioOnStore,
} from './storeAnalyses.ts';

/** The runs a request names that have an episode in its split, in name order (none named: none, and no panels). */
async function namedRuns(store: ClickHouseStore, runs: string[] | undefined, split: string | undefined): Promise<string[]> {
  if (!runs) return [];
  const rows = await store.query<{ run: string }>(
    `SELECT DISTINCT run FROM ${store.table('episodes')} WHERE ${visibleRows(store)} AND has({runs:Array(String)}, run)
     ${split === undefined ? '' : 'AND split IS NOT NULL AND has({splits:Array(String)}, assumeNotNull(split))'}`,
    { runs, ...(split === undefined ? {} : { splits: splitValues(split) }) },
  );
  return rows.map((r) => r.run).sort((a, b) => a.localeCompare(b));
}

/** Each run's one model, or null when its turns used several. */
async function onlyModels(store: ClickHouseStore, runs: string[]): Promise<Map<string, string | null>> {
  const rows = await store.query<{ run: string; n: string; one_model: string }>(
    `SELECT run, uniqExact(model) AS n, any(model) AS one_model FROM ${store.table('turns')}
     WHERE ${visibleRows(store)} AND has({runs:Array(String)}, run) GROUP BY run`,
    { runs },
  );
  return new Map(rows.map((r) => [r.run, Number(r.n) === 1 ? r.one_model : null]));
}

/** The turn number that planned each round, so a DAG node opens its turn. */
async function roundTurns(store: ClickHouseStore, result: PlanDagEpisodeResult, extId: string): Promise<PlanDagEpisodeResult> {
  const key = { k: episodeKey(result.run ?? '', extId) };
  const [planned, turns] = await Promise.all([
    store.query<{ round: number; pos: number }>(
      `SELECT DISTINCT round, pos FROM ${store.table('plan_nodes')} WHERE ${visibleRows(store)} AND episode_key = {k:UInt64} AND pos IS NOT NULL`, key,
    ),
    store.query<{ pos: number; t: number }>(`SELECT pos, t FROM ${store.table('turns')} WHERE ${visibleRows(store)} AND episode_key = {k:UInt64}`, key),
  ]);
  const turnAt = new Map(turns.map((x) => [Number(x.pos), Number(x.t)]));
  const byRound = new Map<number, number>();
  for (const p of planned) {
    const t = turnAt.get(Number(p.pos));
    if (t !== undefined) byRound.set(Number(p.round), Math.min(byRound.get(Number(p.round)) ?? t, t));
  }
  return { ...result, rounds: result.rounds.map((r) => ({ ...r, turn: byRound.get(r.round) ?? null })) };
}

async function compute(store: ClickHouseStore, request: AnalysisRequest, drawn: readonly string[]): Promise<AnalysisResponse> {
  const runs = request.runs && request.runs.length > 0 ? request.runs : undefined;
  const split = request.split;
  const sel = { runs, split };
  switch (request.id) {
    case 'targets': {
      if (!request.episode) throw new AnalysisInputError('targets needs an episode');
      if (split !== undefined) throw new AnalysisInputError('targets is one episode: a split does not apply');
      if (runs && runs.length > 1) throw new AnalysisInputError('an episode-level analysis takes at most one run');
      return { request: { ...request, id: 'targets' }, result: await targetsOnStore(store, request.episode, runs?.[0]) };
    }
    case 'plan-dag': {
      if (request.episode) {
        if (runs && runs.length > 1) throw new AnalysisInputError('an episode-level analysis takes at most one run');
        const result = await planDagEpisodeOnStore(store, request.episode, runs?.[0]);
        return { request: { ...request, id: 'plan-dag' }, result: await roundTurns(store, result, request.episode) };
      }
      return { request: { ...request, id: 'plan-dag' }, result: await planDagSummaryOnStore(store, sel) };
    }
    case 'lift': {
      const minCount = request.minN;
      const result = await liftOnStore(store, { ...sel, minCount });
      const names = await namedRuns(store, runs, split);
      if (names.length < 2) return { request: { ...request, id: 'lift' }, result };
      // A run on one model has lift 1 for every tool: a line in the figure, not a panel (nor a bootstrap).
      const only = await onlyModels(store, names);
      const several = names.filter((run) => (only.get(run) ?? null) === null);
      const one = names.flatMap((run) => {
        const model = only.get(run);
        return model ? [{ run, model }] : [];
      });
      const panels = await sideBySide(several, drawn, async (run) => ({ cells: (await liftOnStore(store, { runs: [run], split, minCount })).cells }), 1);
      return { request: { ...request, id: 'lift' }, result: { ...result, ...panels, ...(one.length ? { by_run_single_model: one } : {}) } };
    }
    case 'error-recovery':
      return { request: { ...request, id: 'error-recovery' }, result: await errorRecoveryOnStore(store, sel) };
    case 'usage-by-turn':
      return { request: { ...request, id: 'usage-by-turn' }, result: await usageByTurnOnStore(store, sel) };
    case 'switch-cost':
      return { request: { ...request, id: 'switch-cost' }, result: await switchCostOnStore(store, sel) };
    case 'pareto': {
      const [result, types] = await Promise.all([paretoOnStore(store, { ...sel, reference: request.reference }), paretoTaskTypesOnStore(store, sel)]);
      return { request: { ...request, id: 'pareto' }, result: { ...result, points: result.points.map((p) => ({ ...p, task_types: types.get(p.run) ?? [] })) } };
    }
    case 'budget-modes': {
      const result = await budgetModesOnStore(store, sel);
      const each = await sideBySide(await namedRuns(store, runs, split), drawn, async (run) => {
        const modes = (await budgetModesOnStore(store, { runs: [run], split })).modes;
        return modes.length > 0 ? { modes } : null;
      });
      return { request: { ...request, id: 'budget-modes' }, result: { ...result, ...each } };
    }
    case 'usage-ratio':
      return { request: { ...request, id: 'usage-ratio' }, result: await usageRatioOnStore(store, { ...sel, rho: request.rho }) };
    case 'confusion': {
      const result = await confusionOnStore(store, sel);
      const each = await sideBySide(await namedRuns(store, runs, split), drawn, async (run) => {
        const tables = await confusionOnStore(store, { runs: [run], split });
        return tables.routing.length > 0 || Object.values(tables.verification).some((k) => k > 0) ? tables : null;
      });
      return { request: { ...request, id: 'confusion' }, result: { ...result, ...each } };
    }
    case 'calibration':
      return { request: { ...request, id: 'calibration' }, result: await calibrationOnStore(store, { ...sel, estimator: request.estimator, bins: request.bins }) };
    case 'embeddings': {
      if (split !== undefined) throw new AnalysisInputError('embeddings maps the models and a sample of all selected runs: a split does not apply');
      const options = { runs, estimator: request.estimator, color: request.color, sample: request.sample, seed: request.seed };
      return { request: { ...request, id: 'embeddings' }, result: await embeddingsOnStore(store, options) };
    }
  }
}

export async function runAnalysisOnStore(store: ClickHouseStore, request: AnalysisRequest): Promise<AnalysisResponse> {
  try {
    if (!drawsRuns(request)) return await compute(store, request, []);
    const sel = { runs: request.runs && request.runs.length > 0 ? request.runs : undefined, split: request.split };
    const drawn = pickDrawnRuns(await runWeightsOnStore(store, sel), request.draw);
    const response = await compute(store, request, drawn);
    return { ...response, request: { ...response.request, draw: drawn } } as AnalysisResponse;
  } catch (e) {
    if (e instanceof RangeError) {
      throw /^no episode|in several runs/.test(e.message) ? new AnalysisNotFoundError(e.message) : new AnalysisInputError(e.message);
    }
    throw e;
  }
}
