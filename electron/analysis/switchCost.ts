/**
 * `switch-cost` (DESIGN §8, MTRouter Fig. 3): over successful episodes, switches per episode against the
 * episode's cost (the scatter), and the mean cumulative cost by turn index (the curve), per run. Sessions only
 * (a child episode's cost is in its parent's); an episode without an outcome is not a success, nor a failure:
 * it is counted in `coverage`. An unknown cost keeps an episode out of the scatter, an unknown turn cost out of
 * the curve.
 */
import type { Db } from '../db/dbHandle.ts';
import type { EpisodeCoverage, SwitchCostResult, SwitchCostRun } from '../../shared/analysisResults.ts';
import { columnar, selectEpisodes } from './columnar.ts';

export type { SwitchCostRun } from '../../shared/analysisResults.ts';

export function switchCostAnalysis(db: Db, options: { runs?: string[]; split?: string } = {}): SwitchCostResult {
  const data = columnar(db);
  const extIds = new Map(db.prepare('SELECT id, ext_id FROM episodes').raw().all() as [number, string][]);
  const byRun = new Map<number, { episodes: SwitchCostRun['episodes']; sum: number[]; n: number[] }>();
  const coverage: EpisodeCoverage = { episodes: 0, unknown_outcome: 0, unknown_cost: 0 };
  for (const e of selectEpisodes(data, options.runs, options.split)) {
    if ((data.episodeParent[e] as number) >= 0) continue;
    coverage.episodes++;
    const success = data.episodeSuccess[e] as number;
    if (success === -1) coverage.unknown_outcome++;
    if (success !== 1) continue;
    const run = data.episodeRun[e] as number;
    let g = byRun.get(run);
    if (!g) byRun.set(run, (g = { episodes: [], sum: [], n: [] }));
    const start = data.turnStart[e] as number;
    const end = data.turnStart[e + 1] as number;
    let switches = 0;
    let turnCostsKnown = true;
    for (let i = start; i < end; i++) {
      switches += data.turnSwitched[i] as number;
      if (Number.isNaN(data.turnCost[i] as number)) turnCostsKnown = false;
    }
    if (turnCostsKnown) {
      let cumulative = 0;
      for (let i = start; i < end; i++) {
        const t = i - start;
        cumulative += data.turnCost[i] as number;
        g.sum[t] = (g.sum[t] ?? 0) + cumulative;
        g.n[t] = (g.n[t] ?? 0) + 1;
      }
    }
    const cost = data.episodeCost[e] as number;
    if (Number.isNaN(cost)) coverage.unknown_cost++;
    else g.episodes.push({ episode: extIds.get(data.episodeId[e] as number) ?? '', switches, cost, turns: end - start });
  }
  const runs = [...byRun].map(([run, g]) => ({
    run: data.runs.get(run) ?? String(run),
    episodes: g.episodes,
    mean_cumulative_cost: g.n.map((n, t) => ({ t, mean: (g.sum[t] as number) / n, n })),
  }));
  return { runs: runs.sort((a, b) => a.run.localeCompare(b.run)), coverage };
}
