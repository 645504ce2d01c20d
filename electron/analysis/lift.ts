/**
 * `lift` (DESIGN §8, MTRouter Fig. 6): lift(m, c) = P(m | c) / P(m) over all turns of the selected runs,
 * c = the turn's tool, else its action type. 95% intervals by an episode bootstrap (turns of one episode are
 * not independent); cells with fewer than `minCount` turns are left out.
 */
import { lift as liftOf } from '../../shared/formulas.ts';
import type { LiftCell, LiftResult } from '../../shared/analysisResults.ts';
import { columnar, selectEpisodes, type ColumnarData } from './columnar.ts';
import type { Db } from '../db/database.ts';

export type { LiftCell } from '../../shared/analysisResults.ts';

export interface LiftOptions {
  runs?: string[];
  minCount?: number;
  bootstrap?: number;
  seed?: number;
}

/** Counts per (model, category) over the given episodes, each weighted by how often it was drawn. */
function counts(data: ColumnarData, episodes: Int32Array, weights: Uint16Array | null, modelIndex: Map<number, number>) {
  const nModels = modelIndex.size;
  const nCats = data.categories.length;
  const mc = new Float64Array(nModels * nCats);
  for (let k = 0; k < episodes.length; k++) {
    const w = weights ? (weights[k] as number) : 1;
    if (w === 0) continue;
    const e = episodes[k] as number;
    for (let i = data.turnStart[e] as number; i < (data.turnStart[e + 1] as number); i++) {
      const j = (modelIndex.get(data.turnModel[i] as number) as number) * nCats + (data.turnCategory[i] as number);
      mc[j] = (mc[j] as number) + w;
    }
  }
  return mc;
}

function liftTable(mc: Float64Array, nModels: number, nCats: number): Float64Array {
  const byModel = new Float64Array(nModels);
  const byCat = new Float64Array(nCats);
  let total = 0;
  for (let m = 0; m < nModels; m++) {
    for (let c = 0; c < nCats; c++) {
      const v = mc[m * nCats + c] as number;
      byModel[m] = (byModel[m] as number) + v;
      byCat[c] = (byCat[c] as number) + v;
      total += v;
    }
  }
  const out = new Float64Array(nModels * nCats);
  for (let m = 0; m < nModels; m++) {
    for (let c = 0; c < nCats; c++) out[m * nCats + c] = liftOf(mc[m * nCats + c] as number, byCat[c] as number, byModel[m] as number, total);
  }
  return out;
}

/** A small seeded PRNG (mulberry32): the same seed gives the same intervals. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

export function liftAnalysis(db: Db, options: LiftOptions = {}): LiftResult {
  const data = columnar(db);
  const episodes = selectEpisodes(data, options.runs);
  const minCount = options.minCount ?? 30;
  const B = options.bootstrap ?? 200;
  const modelIds = new Set<number>();
  for (const e of episodes) for (let i = data.turnStart[e] as number; i < (data.turnStart[e + 1] as number); i++) modelIds.add(data.turnModel[i] as number);
  const models = [...modelIds].sort((a, b) => a - b);
  const modelIndex = new Map(models.map((id, k) => [id, k]));
  const nCats = data.categories.length;
  const mc = counts(data, episodes, null, modelIndex);
  const point = liftTable(mc, models.length, nCats);

  const samples: number[][] = Array.from({ length: models.length * nCats }, () => []);
  const random = seededRandom(options.seed ?? 1);
  const weights = new Uint16Array(episodes.length);
  for (let b = 0; b < B; b++) {
    weights.fill(0);
    for (let k = 0; k < episodes.length; k++) {
      const pick = Math.floor(random() * episodes.length);
      weights[pick] = (weights[pick] as number) + 1;
    }
    const table = liftTable(counts(data, episodes, weights, modelIndex), models.length, nCats);
    table.forEach((v, j) => {
      if (Number.isFinite(v)) samples[j]?.push(v);
    });
  }
  const cells: LiftCell[] = [];
  for (let m = 0; m < models.length; m++) {
    for (let c = 0; c < nCats; c++) {
      const j = m * nCats + c;
      const n = mc[j] as number;
      if (n < minCount) continue;
      const s = (samples[j] as number[]).sort((a, b) => a - b);
      cells.push({
        model: data.models.get(models[m] as number) ?? String(models[m]),
        category: data.categories[c] as string,
        lift: point[j] as number,
        ci: [quantile(s, 0.025), quantile(s, 0.975)],
        n,
      });
    }
  }
  return { cells };
}
