/**
 * The note under an episode-level figure saying what it could not use (issue 15): sessions without an outcome
 * and sessions whose cost is unknown are left out of its means, never read as failures or $0, and the figure
 * says how many.
 */
import type { AnalysisResponse, EpisodeCoverage } from '../../../shared/analysisResults.ts';

const episodes = (n: number): string => `${n.toLocaleString('en-US')} episode${n === 1 ? '' : 's'}`;

/** What the unknown cost of this analysis keeps out of: pareto and switch-cost place episodes by their cost. */
const COST_USE: Partial<Record<AnalysisResponse['request']['id'], string>> = {
  pareto: 'left out of the points',
  'switch-cost': 'left out of the scatter',
  'budget-modes': 'left out of the mean cost',
};

const OUTCOME_USE: Partial<Record<AnalysisResponse['request']['id'], string>> = {
  pareto: 'left out of the points',
  'switch-cost': 'not counted as successes or failures',
  'budget-modes': 'left out of the mean score',
  'usage-ratio': 'left out of the accuracy',
  calibration: 'their turns have no target to check ŝ against',
};

export function coverageNote(response: AnalysisResponse | null): string | null {
  if (!response) return null;
  const coverage = (response.result as { coverage?: EpisodeCoverage }).coverage;
  if (!coverage || coverage.episodes === 0) return null;
  const id = response.request.id;
  const parts: string[] = [];
  if (coverage.unknown_outcome > 0) {
    parts.push(`${coverage.unknown_outcome.toLocaleString('en-US')} of ${episodes(coverage.episodes)} have no outcome: ${OUTCOME_USE[id] ?? 'left out'}.`);
  }
  if (coverage.unknown_cost > 0) {
    parts.push(`${episodes(coverage.unknown_cost)} with an unknown cost (the log gives none and a model has no price): ${COST_USE[id] ?? 'left out of cost means'}, not counted as $0.`);
  }
  return parts.length > 0 ? parts.join(' ') : null;
}
