/**
 * `pareto` (DESIGN §8): per run, mean normalised score against mean cost per episode (episodes with a known
 * outcome only), which runs are on the score/cost frontier, and the cost saving against a reference run.
 */
import type { Db } from '../db/database.ts';
import type { ParetoPoint, ParetoResult } from '../../shared/analysisResults.ts';
import { columnar, selectEpisodes } from './columnar.ts';

export type { ParetoPoint } from '../../shared/analysisResults.ts';

export function paretoAnalysis(db: Db, options: { runs?: string[]; split?: string; reference?: string } = {}): ParetoResult {
  const data = columnar(db);
  const acc = new Map<number, { n: number; score: number; cost: number }>();
  for (const e of selectEpisodes(data, options.runs, options.split)) {
    const score = data.episodeScoreNorm[e] as number;
    if (Number.isNaN(score)) continue;
    const run = data.episodeRun[e] as number;
    const a = acc.get(run) ?? { n: 0, score: 0, cost: 0 };
    a.n++;
    a.score += score;
    a.cost += data.episodeCost[e] as number;
    acc.set(run, a);
  }
  const points = [...acc].map(([run, a]) => ({ run: data.runs.get(run) ?? String(run), n: a.n, mean_score: a.score / a.n, mean_cost: a.cost / a.n }));
  const ref = options.reference ? points.find((p) => p.run === options.reference) : undefined;
  if (options.reference && !ref) throw new RangeError(`reference run "${options.reference}" has no episodes with an outcome among the selected runs`);
  const out: ParetoPoint[] = points.map((p) => ({
    ...p,
    frontier: !points.some(
      (q) => q !== p && q.mean_score >= p.mean_score && q.mean_cost <= p.mean_cost && (q.mean_score > p.mean_score || q.mean_cost < p.mean_cost),
    ),
    savings_vs_reference: ref && ref.mean_cost > 0 ? 1 - p.mean_cost / ref.mean_cost : null,
    score_delta_vs_reference: ref ? p.mean_score - ref.mean_score : null,
  }));
  return { reference: ref?.run ?? null, points: out.sort((a, b) => a.mean_cost - b.mean_cost) };
}
