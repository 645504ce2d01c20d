/** `usage-by-turn` (DESIGN §8, MTRouter Fig. 5): each run's share of each model at each turn index; shares sum to 1 per index. */
import type { Db } from '../db/dbHandle.ts';
import type { UsageByTurnResult } from '../../shared/analysisResults.ts';
import { columnar, modelSlots, selectEpisodes, sharesOf } from './columnar.ts';

export type { UsageByTurnRun } from '../../shared/analysisResults.ts';

export function usageByTurnAnalysis(db: Db, options: { runs?: string[]; split?: string; maxTurn?: number } = {}): UsageByTurnResult {
  const data = columnar(db);
  const episodes = selectEpisodes(data, options.runs, options.split);
  // Turn indexes 0…maxTurn are counted.
  const cap = options.maxTurn === undefined ? Number.POSITIVE_INFINITY : Math.max(0, options.maxTurn + 1);
  const { slotOf, ids } = modelSlots(data);
  const M = ids.length;
  // Per run: the longest episode (capped), then one [turn index × model slot] count table of that length.
  const longest = new Map<number, number>();
  for (const e of episodes) {
    const run = data.episodeRun[e] as number;
    const len = Math.min(cap, (data.turnStart[e + 1] as number) - (data.turnStart[e] as number));
    longest.set(run, Math.max(longest.get(run) ?? 0, len));
  }
  const tables = new Map<number, Uint32Array>();
  for (const [run, len] of longest) tables.set(run, new Uint32Array(len * M));
  for (const e of episodes) {
    const counts = tables.get(data.episodeRun[e] as number) as Uint32Array;
    const start = data.turnStart[e] as number;
    const end = Math.min(data.turnStart[e + 1] as number, start + cap);
    for (let i = start; i < end; i++) {
      const k = (i - start) * M + (slotOf[data.turnModel[i] as number] as number);
      counts[k] = (counts[k] as number) + 1;
    }
  }
  const runs = [...tables].map(([run, counts]) => {
    const turns: UsageByTurnResult['runs'][number]['turns'] = [];
    for (let t = 0; t * M < counts.length; t++) {
      const { n, shares } = sharesOf(data, ids, counts, t * M);
      if (n > 0) turns.push({ t, n, shares });
    }
    return { run: data.runs.get(run) ?? String(run), turns };
  });
  return { runs: runs.sort((a, b) => a.run.localeCompare(b.run)) };
}
