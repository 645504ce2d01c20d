/** `usage-by-turn` (DESIGN §8, MTRouter Fig. 5): each run's share of each model at each turn index; shares sum to 1 per index. */
import type { Db } from '../db/dbHandle.ts';
import type { UsageByTurnResult } from '../../shared/analysisResults.ts';
import { nameKeyed } from '../../shared/nameKeyed.ts';
import { columnar, selectEpisodes, type ColumnarData } from './columnar.ts';

export type { UsageByTurnRun } from '../../shared/analysisResults.ts';

/**
 * One run's counts from its turns' (turn index, model id) keys, `index × models + model id`, sorted: equal keys are
 * one model at one index, and an index's keys come together in model-id order. Memory is one number per turn, so an
 * episode of a million turns over thousands of models costs megabytes (a dense index × model table cost billions of
 * counters and failed).
 */
function turnsOfRun(data: ColumnarData, keys: Float64Array, models: number): UsageByTurnResult['runs'][number]['turns'] {
  keys.sort();
  const turns: UsageByTurnResult['runs'][number]['turns'] = [];
  let i = 0;
  while (i < keys.length) {
    const t = Math.floor((keys[i] as number) / models);
    const counts: [number, number][] = [];
    let n = 0;
    while (i < keys.length && Math.floor((keys[i] as number) / models) === t) {
      const key = keys[i] as number;
      let k = 0;
      while (i < keys.length && keys[i] === key) {
        k++;
        i++;
      }
      counts.push([key - t * models, k]);
      n += k;
    }
    const shares = nameKeyed<number>();
    for (const [model, k] of counts) shares[data.models.get(model) ?? String(model)] = k / n;
    turns.push({ t, n, shares });
  }
  return turns;
}

export function usageByTurnAnalysis(db: Db, options: { runs?: string[]; split?: string; maxTurn?: number } = {}): UsageByTurnResult {
  const data = columnar(db);
  const episodes = selectEpisodes(data, options.runs, options.split);
  // Turn indexes 0…maxTurn are counted.
  const cap = options.maxTurn === undefined ? Number.POSITIVE_INFINITY : Math.max(0, options.maxTurn + 1);
  let models = 1;
  for (const id of data.models.keys()) models = Math.max(models, id + 1);
  const span = (e: number) => {
    const start = data.turnStart[e] as number;
    return { start, end: Math.min(data.turnStart[e + 1] as number, start + cap) };
  };
  const sizes = new Map<number, number>();
  for (const e of episodes) {
    const run = data.episodeRun[e] as number;
    const { start, end } = span(e);
    sizes.set(run, (sizes.get(run) ?? 0) + (end - start));
  }
  const keys = new Map<number, { keys: Float64Array; filled: number }>();
  for (const [run, size] of sizes) keys.set(run, { keys: new Float64Array(size), filled: 0 });
  for (const e of episodes) {
    const into = keys.get(data.episodeRun[e] as number) as { keys: Float64Array; filled: number };
    const { start, end } = span(e);
    for (let i = start; i < end; i++) into.keys[into.filled++] = (i - start) * models + (data.turnModel[i] as number);
  }
  const runs = [...keys].map(([run, { keys: runKeys }]) => ({ run: data.runs.get(run) ?? String(run), turns: turnsOfRun(data, runKeys, models) }));
  return { runs: runs.sort((a, b) => a.run.localeCompare(b.run)) };
}
