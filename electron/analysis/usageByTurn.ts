/** `usage-by-turn` (DESIGN §8, MTRouter Fig. 5): each run's share of each model at each turn index; shares sum to 1 per index. */
import type { Db } from '../db/database.ts';
import type { UsageByTurnResult } from '../../shared/analysisResults.ts';
import { columnar, selectEpisodes } from './columnar.ts';

export type { UsageByTurnRun } from '../../shared/analysisResults.ts';

export function usageByTurnAnalysis(db: Db, options: { runs?: string[]; maxTurn?: number } = {}): UsageByTurnResult {
  const data = columnar(db);
  const episodes = selectEpisodes(data, options.runs);
  const maxTurn = options.maxTurn ?? Number.POSITIVE_INFINITY;
  const byRun = new Map<number, Map<number, Map<number, number>>>(); // run → t → model → count
  for (const e of episodes) {
    const run = data.episodeRun[e] as number;
    let perT = byRun.get(run);
    if (!perT) byRun.set(run, (perT = new Map()));
    const start = data.turnStart[e] as number;
    for (let i = start; i < (data.turnStart[e + 1] as number); i++) {
      const t = i - start;
      if (t > maxTurn) break;
      let perModel = perT.get(t);
      if (!perModel) perT.set(t, (perModel = new Map()));
      const m = data.turnModel[i] as number;
      perModel.set(m, (perModel.get(m) ?? 0) + 1);
    }
  }
  const runs = [...byRun].map(([run, perT]) => ({
    run: data.runs.get(run) ?? String(run),
    turns: [...perT]
      .sort((a, b) => a[0] - b[0])
      .map(([t, perModel]) => {
        const n = [...perModel.values()].reduce((a, b) => a + b, 0);
        const shares: Record<string, number> = {};
        for (const [m, k] of [...perModel].sort((a, b) => a[0] - b[0])) shares[data.models.get(m) ?? String(m)] = k / n;
        return { t, n, shares };
      }),
  }));
  return { runs: runs.sort((a, b) => a.run.localeCompare(b.run)) };
}
