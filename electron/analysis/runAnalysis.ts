/**
 * One entry point for every analysis: an `AnalysisRequest` (shared/analysisResults.ts) → its result. The API
 * (`runAnalysis`, `exportFigure`) and `routelens export` call this, so a figure in the window and the file a
 * script writes come from the same numbers. Besides what `routelens analyze --json` prints, it fills the
 * figure-only fields: `by_run` (runs side by side) and the run / turn an episode-level mark links to.
 */
import { SIDE_BY_SIDE_MAX, type AnalysisRequest, type AnalysisResponse, type PlanDagEpisodeResult } from '../../shared/analysisResults.ts';
import type { Db } from '../db/dbHandle.ts';
import { findEpisodeIds } from '../db/episodeQueries.ts';
import { columnar, selectEpisodes } from './columnar.ts';
import { drawnRunsOf, paretoTaskTypes } from './drawnRunsOf.ts';
import { budgetModesAnalysis, confusionAnalysis, usageRatioAnalysis } from './controllerAnalyses.ts';
import { ScorerError } from '../estimator/scorerError.ts';
import { errorRecoveryAnalysis } from './errorRecovery.ts';
import { liftAnalysis } from './lift.ts';
import { paretoAnalysis } from './pareto.ts';
import { planDagEpisode, planDagSummary } from './planDag.ts';
import { switchCostAnalysis } from './switchCost.ts';
import { episodeTargets } from './targets.ts';
import { usageByTurnAnalysis } from './usageByTurn.ts';

/** The request cannot be answered as given (unknown run, missing episode): the caller's mistake. */
export class AnalysisInputError extends Error {}

/** No such episode (or several with that id across runs). */
export class AnalysisNotFoundError extends Error {}

/**
 * The runs a request names that have episodes, by name, in name order. A request that names no run pools
 * every run and draws no side-by-side panels (26 mostly empty heatmaps helped nobody).
 */
function namedRuns(db: Db, runs: string[] | undefined, split: string | undefined): string[] {
  if (!runs) return [];
  const data = columnar(db);
  const names = new Set<string>();
  for (const e of selectEpisodes(data, runs, split)) names.add(data.runs.get(data.episodeRun[e] as number) ?? '');
  return [...names].sort((a, b) => a.localeCompare(b));
}

/** The one model a run's turns all ran on, or null when they used several (or none). */
function onlyModel(db: Db, run: string): string | null {
  const data = columnar(db);
  let model = -1;
  for (const e of selectEpisodes(data, [run])) {
    for (let i = data.turnStart[e] as number; i < (data.turnStart[e + 1] as number); i++) {
      const m = data.turnModel[i] as number;
      if (model === -1) model = m;
      else if (m !== model) return null;
    }
  }
  return model === -1 ? null : (data.models.get(model) ?? String(model));
}

/**
 * Side-by-side panels: each named run (in name order) that is drawn (`drawn`, shared/drawnRuns.ts: at most
 * SIDE_BY_SIDE_MAX) and has something to draw, computed one by one so runs not drawn cost nothing; the named
 * runs not drawn are listed as omitted. None unless at least `minPanels` have data.
 */
export async function sideBySide<T>(
  names: string[], drawn: readonly string[], compute: (run: string) => T | null | Promise<T | null>, minPanels = 2,
): Promise<{ by_run?: (T & { run: string })[]; by_run_omitted?: string[] }> {
  const shown: (T & { run: string })[] = [];
  const omitted: string[] = [];
  for (const run of names) {
    if (!drawn.includes(run) || shown.length >= SIDE_BY_SIDE_MAX) {
      omitted.push(run);
      continue;
    }
    const value = await compute(run);
    if (value !== null) shown.push({ run, ...value });
  }
  if (shown.length < minPanels) return {};
  return omitted.length ? { by_run: shown, by_run_omitted: omitted } : { by_run: shown };
}

function episodeOf(db: Db, extId: string, runs: string[] | undefined): { id: number; run: string } {
  if (runs && runs.length > 1) throw new AnalysisInputError('an episode-level analysis takes at most one run');
  const hits = findEpisodeIds(db, extId, runs?.[0]);
  if (hits.length === 0) throw new AnalysisNotFoundError(`no episode "${extId}"${runs?.[0] ? ` in run "${runs[0]}"` : ''}`);
  if (hits.length > 1) throw new AnalysisNotFoundError(`episode "${extId}" is in several runs (${hits.map((h) => h.run).join(', ')}): name one run`);
  return hits[0] as { id: number; run: string };
}

/** The turn index t that planned each round, so a DAG node opens its turn. */
function roundTurns(db: Db, episodeId: number, result: PlanDagEpisodeResult): PlanDagEpisodeResult {
  const rows = db
    .prepare('SELECT p.round, MIN(t.t) AS t FROM plan_nodes p JOIN turns t ON t.id = p.turn_id WHERE p.episode_id = ? GROUP BY p.round')
    .all(episodeId) as { round: number; t: number | null }[];
  const byRound = new Map(rows.map((r) => [r.round, r.t]));
  return { ...result, rounds: result.rounds.map((r) => ({ ...r, turn: byRound.get(r.round) ?? null })) };
}

async function compute(db: Db, request: AnalysisRequest, drawn: readonly string[]): Promise<AnalysisResponse> {
  const runs = request.runs && request.runs.length > 0 ? request.runs : undefined;
  const split = request.split;
  const named = (): string[] => namedRuns(db, runs, split);
  switch (request.id) {
    case 'targets': {
      if (!request.episode) throw new AnalysisInputError('targets needs an episode');
      if (split !== undefined) throw new AnalysisInputError('targets is one episode: a split does not apply');
      const ep = episodeOf(db, request.episode, runs);
      return { request: { ...request, id: 'targets' }, result: { episode: request.episode, ...episodeTargets(db, ep.id), run: ep.run } };
    }
    case 'plan-dag': {
      if (request.episode) {
        const ep = episodeOf(db, request.episode, runs);
        return { request: { ...request, id: 'plan-dag' }, result: { ...roundTurns(db, ep.id, planDagEpisode(db, ep.id, request.episode)), run: ep.run } };
      }
      return { request: { ...request, id: 'plan-dag' }, result: planDagSummary(db, { runs, split }) };
    }
    case 'lift': {
      const minCount = request.minN;
      const result = liftAnalysis(db, { runs, split, minCount });
      const names = named();
      if (names.length < 2) return { request: { ...request, id: 'lift' }, result };
      // A run on one model has lift 1 for every tool: it gets a line in the figure, not a panel (nor a bootstrap).
      const single = names.map((run) => ({ run, model: onlyModel(db, run) }));
      const several = single.filter((r) => r.model === null).map((r) => r.run);
      const one = single.filter((r): r is { run: string; model: string } => r.model !== null);
      const panels = await sideBySide(several, drawn, (run) => ({ cells: liftAnalysis(db, { runs: [run], split, minCount }).cells }), 1);
      return {
        request: { ...request, id: 'lift' },
        result: { ...result, ...panels, ...(one.length ? { by_run_single_model: one } : {}) },
      };
    }
    case 'error-recovery':
      return { request: { ...request, id: 'error-recovery' }, result: errorRecoveryAnalysis(db, { runs, split }) };
    case 'usage-by-turn':
      return { request: { ...request, id: 'usage-by-turn' }, result: usageByTurnAnalysis(db, { runs, split }) };
    case 'switch-cost':
      return { request: { ...request, id: 'switch-cost' }, result: switchCostAnalysis(db, { runs, split }) };
    case 'pareto': {
      const result = paretoAnalysis(db, { runs, split, reference: request.reference });
      const types = paretoTaskTypes(db, runs, split);
      return { request: { ...request, id: 'pareto' }, result: { ...result, points: result.points.map((p) => ({ ...p, task_types: types.get(p.run) ?? [] })) } };
    }
    case 'budget-modes': {
      const result = budgetModesAnalysis(db, { runs, split });
      const each = await sideBySide(named(), drawn, (run) => {
        const modes = budgetModesAnalysis(db, { runs: [run], split }).modes;
        return modes.length > 0 ? { modes } : null;
      });
      return { request: { ...request, id: 'budget-modes' }, result: { ...result, ...each } };
    }
    case 'usage-ratio':
      return { request: { ...request, id: 'usage-ratio' }, result: usageRatioAnalysis(db, { runs, split, rho: request.rho }) };
    case 'confusion': {
      const result = confusionAnalysis(db, { runs, split });
      const each = await sideBySide(named(), drawn, (run) => {
        const tables = confusionAnalysis(db, { runs: [run], split });
        return tables.routing.length > 0 || Object.values(tables.verification).some((k) => k > 0) ? tables : null;
      });
      return { request: { ...request, id: 'confusion' }, result: { ...result, ...each } };
    }
    // The estimator's analyses load its modules (and, for embeddings, ONNX Runtime) only when asked for.
    case 'calibration': {
      const { calibrationAnalysis } = await import('./calibration.ts');
      return { request: { ...request, id: 'calibration' }, result: calibrationAnalysis(db, { runs, split, estimator: request.estimator, bins: request.bins }) };
    }
    case 'embeddings': {
      if (split !== undefined) throw new AnalysisInputError('embeddings maps the models and a sample of all selected runs: a split does not apply');
      const options = { runs, estimator: request.estimator, color: request.color, sample: request.sample, seed: request.seed };
      const { embeddingsAnalysis } = await import('./embeddings.ts');
      return { request: { ...request, id: 'embeddings' as const }, result: await embeddingsAnalysis(db, options) };
    }
  }
}

/** Asynchronous because `embeddings` reads z_a through ONNX Runtime; every other analysis answers at once. */
/** Analyses whose figures draw runs answer which runs they draw (`draw`); one episode's, and the embedding map of models, draw none. */
export function drawsRuns(request: AnalysisRequest): boolean {
  return request.id !== 'targets' && request.id !== 'embeddings' && !(request.id === 'plan-dag' && request.episode);
}

export async function runAnalysis(db: Db, request: AnalysisRequest): Promise<AnalysisResponse> {
  try {
    if (!drawsRuns(request)) return await compute(db, request, []);
    const runs = request.runs && request.runs.length > 0 ? request.runs : undefined;
    const drawn = drawnRunsOf(db, runs, request.split, request.draw);
    const response = await compute(db, request, drawn);
    return { ...response, request: { ...response.request, draw: drawn } } as AnalysisResponse;
  } catch (e) {
    // The analyses throw RangeError for an unknown run or reference, ScorerError for an estimator file that is
    // not one: the request's fault.
    if (e instanceof RangeError || e instanceof ScorerError) throw new AnalysisInputError(e.message);
    throw e;
  }
}
