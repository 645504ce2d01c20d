/**
 * One entry point for every analysis: an `AnalysisRequest` (shared/analysisResults.ts) → its result. The API
 * (`runAnalysis`, `exportFigure`) and `routelens export` call this, so a figure in the window and the file a
 * script writes come from the same numbers. Besides what `routelens analyze --json` prints, it fills the
 * figure-only fields: `by_run` (runs side by side) and the run / turn an episode-level mark links to.
 */
import type { AnalysisRequest, AnalysisResponse, PlanDagEpisodeResult } from '../../shared/analysisResults.ts';
import type { Db } from '../db/database.ts';
import { findEpisodeIds } from '../db/episodeQueries.ts';
import { columnar, selectEpisodes } from './columnar.ts';
import { budgetModesAnalysis, confusionAnalysis, usageRatioAnalysis } from './controllerAnalyses.ts';
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

/** The runs a request compares, by name, in name order: the ones it lists, or every run with episodes. */
function comparedRuns(db: Db, runs: string[] | undefined): string[] {
  const data = columnar(db);
  const names = new Set<string>();
  for (const e of selectEpisodes(data, runs)) names.add(data.runs.get(data.episodeRun[e] as number) ?? '');
  return [...names].sort((a, b) => a.localeCompare(b));
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

function compute(db: Db, request: AnalysisRequest): AnalysisResponse {
  const runs = request.runs && request.runs.length > 0 ? request.runs : undefined;
  const sideBySide = (): string[] => {
    const names = comparedRuns(db, runs);
    return names.length > 1 ? names : [];
  };
  switch (request.id) {
    case 'targets': {
      if (!request.episode) throw new AnalysisInputError('targets needs an episode');
      const ep = episodeOf(db, request.episode, runs);
      return { request: { ...request, id: 'targets' }, result: { episode: request.episode, ...episodeTargets(db, ep.id), run: ep.run } };
    }
    case 'plan-dag': {
      if (request.episode) {
        const ep = episodeOf(db, request.episode, runs);
        return { request: { ...request, id: 'plan-dag' }, result: { ...roundTurns(db, ep.id, planDagEpisode(db, ep.id, request.episode)), run: ep.run } };
      }
      return { request: { ...request, id: 'plan-dag' }, result: planDagSummary(db, { runs }) };
    }
    case 'lift': {
      const minCount = request.minN;
      const result = liftAnalysis(db, { runs, minCount });
      const each = sideBySide();
      return {
        request: { ...request, id: 'lift' },
        result: each.length ? { ...result, by_run: each.map((run) => ({ run, cells: liftAnalysis(db, { runs: [run], minCount }).cells })) } : result,
      };
    }
    case 'error-recovery':
      return { request: { ...request, id: 'error-recovery' }, result: errorRecoveryAnalysis(db, { runs }) };
    case 'usage-by-turn':
      return { request: { ...request, id: 'usage-by-turn' }, result: usageByTurnAnalysis(db, { runs }) };
    case 'switch-cost':
      return { request: { ...request, id: 'switch-cost' }, result: switchCostAnalysis(db, { runs }) };
    case 'pareto':
      return { request: { ...request, id: 'pareto' }, result: paretoAnalysis(db, { runs, reference: request.reference }) };
    case 'budget-modes': {
      const result = budgetModesAnalysis(db, { runs });
      const each = sideBySide()
        .map((run) => ({ run, modes: budgetModesAnalysis(db, { runs: [run] }).modes }))
        .filter((r) => r.modes.length > 0);
      return { request: { ...request, id: 'budget-modes' }, result: each.length > 1 ? { ...result, by_run: each } : result };
    }
    case 'usage-ratio':
      return { request: { ...request, id: 'usage-ratio' }, result: usageRatioAnalysis(db, { runs, rho: request.rho }) };
    case 'confusion': {
      const result = confusionAnalysis(db, { runs });
      const each = sideBySide()
        .map((run) => ({ run, ...confusionAnalysis(db, { runs: [run] }) }))
        .filter((r) => r.routing.length > 0 || Object.values(r.verification).some((k) => k > 0));
      return { request: { ...request, id: 'confusion' }, result: each.length > 1 ? { ...result, by_run: each } : result };
    }
  }
}

export function runAnalysis(db: Db, request: AnalysisRequest): AnalysisResponse {
  try {
    return compute(db, request);
  } catch (e) {
    // The analyses throw RangeError for an unknown run or reference: the request's fault.
    if (e instanceof RangeError) throw new AnalysisInputError(e.message);
    throw e;
  }
}
