/**
 * `pareto` (DESIGN §8): per run, mean normalised score against mean cost per episode, which runs are on the
 * score/cost frontier, and the cost saving against a reference run. A point is a pair of means over the same
 * sessions, so only those with both a known outcome and a known cost count; the others are counted in
 * `coverage` (an unknown outcome is no failure, an unknown cost no $0). Child episodes are inside their
 * parent's session cost.
 */
import type { Db } from '../db/dbHandle.ts';
import type { EpisodeCoverage, ParetoPoint, ParetoResult } from '../../shared/analysisResults.ts';
import { columnar, selectEpisodes } from './columnar.ts';

export type { ParetoPoint } from '../../shared/analysisResults.ts';

export function paretoAnalysis(db: Db, options: { runs?: string[]; split?: string; reference?: string } = {}): ParetoResult {
  const data = columnar(db);
  const acc = new Map<number, { n: number; score: number; cost: number }>();
  const coverage: EpisodeCoverage = { episodes: 0, unknown_outcome: 0, unknown_cost: 0 };
  for (const e of selectEpisodes(data, options.runs, options.split)) {
    if ((data.episodeParent[e] as number) >= 0) continue;
    coverage.episodes++;
    const score = data.episodeScoreNorm[e] as number;
    if (Number.isNaN(score)) {
      coverage.unknown_outcome++;
      continue;
    }
    const cost = data.episodeCost[e] as number;
    if (Number.isNaN(cost)) {
      coverage.unknown_cost++;
      continue;
    }
    const run = data.episodeRun[e] as number;
    const a = acc.get(run) ?? { n: 0, score: 0, cost: 0 };
    a.n++;
    a.score += score;
    a.cost += cost;
    acc.set(run, a);
  }
  const sums = [...acc].map(([run, a]) => ({ run: data.runs.get(run) ?? String(run), ...a }));
  return paretoOfSums(sums, options.reference, coverage);
}

/**
 * The points from each run's sums over its sessions with a known outcome and cost: frontier and savings
 * against the reference. Shared with the ClickHouse store, whose sums come from SQL.
 */
export function paretoOfSums(sums: { run: string; n: number; score: number; cost: number }[], reference: string | undefined, coverage: EpisodeCoverage): ParetoResult {
  const points = sums.map((a) => ({ run: a.run, n: a.n, mean_score: a.score / a.n, mean_cost: a.cost / a.n }));
  const ref = reference ? points.find((p) => p.run === reference) : undefined;
  if (reference && !ref) throw new RangeError(`reference run "${reference}" has no episodes with a known outcome and cost among the selected runs`);
  const out: ParetoPoint[] = points.map((p) => ({
    ...p,
    frontier: !points.some(
      (q) => q !== p && q.mean_score >= p.mean_score && q.mean_cost <= p.mean_cost && (q.mean_score > p.mean_score || q.mean_cost < p.mean_cost),
    ),
    savings_vs_reference: ref && ref.mean_cost > 0 ? 1 - p.mean_cost / ref.mean_cost : null,
    score_delta_vs_reference: ref ? p.mean_score - ref.mean_score : null,
  }));
  return { reference: ref?.run ?? null, points: out.sort((a, b) => a.mean_cost - b.mean_cost), coverage };
}
