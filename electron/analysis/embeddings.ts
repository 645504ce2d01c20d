/**
 * The `embeddings` analysis (DESIGN §8, MTRouter Fig. 7): two t-SNE maps.
 *
 * 1. The estimator's model embeddings z_a (the ONNX graph's `model_embeddings` output, read through ORT by
 *    ortScoring.ts), one point per candidate model, coloured by price tier. Which estimator: the one asked
 *    for, else the one that scored the selected runs last, else the newest with an ONNX file, else the
 *    default model shipped in models/ (z_a is a property of the model, not of the data).
 * 2. A seeded sample of the selected runs' turn histories, as the 64-d sketches `routelens score` writes
 *    (electron/estimator/historyRows.ts), coloured by the model the log chose or by the episode's outcome;
 *    every point links to its turn.
 *
 * t-SNE is O(n²) an iteration (tsne.ts), so the history map is cached per database state, sample and seed:
 * drawing the figure again, re-colouring it or exporting it does not recompute it.
 */
import { existsSync } from 'node:fs';
import { DEFAULT_EMBEDDING_SAMPLE, MAX_EMBEDDING_SAMPLE, type EmbeddingHistoryPoint, type EmbeddingModelPoint, type EmbeddingsResult } from '../../shared/analysisResults.ts';
import { estimatorInUse } from '../estimator/inUse.ts';
import type { Db } from '../db/dbHandle.ts';
import { SKETCH_DIM } from '../estimator/historyRows.ts';
import { openScorer } from '../estimator/ortScoring.ts';
import { SeededRandom } from '../estimator/seededRandom.ts';
import { DEFAULT_ESTIMATOR_PATH } from '../estimator/whatIf.ts';
import { MODEL_EMBED_DIM } from '../estimator/weights.ts';
import { tsne, type TsneResult } from './tsne.ts';

export interface EmbeddingsOptions {
  runs?: readonly string[];
  estimator?: number;
  color?: 'model' | 'outcome';
  /** Sketched turns to map (default 1,000, at most 2,000; 0: the models only). */
  sample?: number;
  seed?: number;
  /** Where the default model lives (tests point it elsewhere). */
  defaultModelPath?: string;
  /** t-SNE of n points (tests may count calls); default tsne.ts. */
  project?: (x: Float32Array, n: number, d: number, seed: number) => TsneResult | Promise<TsneResult>;
}

interface EstimatorFile {
  id: number | null;
  name: string;
  path: string;
  source: 'database' | 'default';
}

function chooseEstimator(db: Db, wanted: number | undefined, runIds: number[], defaultPath: string): EstimatorFile | null {
  const usable = (rows: { id: number; name: string; onnx_path: string | null }[]): EstimatorFile | null => {
    const row = rows.find((r) => r.onnx_path && existsSync(r.onnx_path));
    return row ? { id: row.id, name: row.name, path: row.onnx_path as string, source: 'database' } : null;
  };
  if (wanted !== undefined) {
    const row = db.prepare('SELECT id, name, onnx_path FROM estimators WHERE id = ?').get(wanted) as { id: number; name: string; onnx_path: string | null } | undefined;
    if (!row) throw new RangeError(`no estimator with id ${wanted}`);
    const file = usable([row]);
    if (!file) throw new RangeError(`estimator ${wanted} (${row.name}) has no ONNX file here (${row.onnx_path ?? 'no path'})`);
    return file;
  }
  const filter = runIds.length ? ` AND ep.run_id IN (${runIds.map(() => '?').join(', ')})` : '';
  const scored = db
    .prepare(`SELECT e.id, e.name, e.onnx_path FROM estimators e WHERE EXISTS (SELECT 1 FROM estimates s JOIN turns t ON t.id = s.turn_id
      JOIN episodes ep ON ep.id = t.episode_id WHERE s.estimator_id = e.id${filter}) ORDER BY e.scored_at DESC, e.id DESC`)
    .all(...runIds) as { id: number; name: string; onnx_path: string | null }[];
  const newest = db.prepare('SELECT id, name, onnx_path FROM estimators ORDER BY created_at DESC, id DESC').all() as typeof scored;
  // The database's estimator in use first (inUse.ts), as every other view reads ŝ.
  const inUse = estimatorInUse(db);
  const found = usable(newest.filter((r) => r.id === inUse?.id)) ?? usable(scored) ?? usable(newest);
  if (found) return found;
  return existsSync(defaultPath) ? { id: null, name: 'default estimator (models/)', path: defaultPath, source: 'default' } : null;
}

function runIdsOf(db: Db, names: readonly string[]): Map<number, string> {
  const all = db.prepare('SELECT id, name FROM runs').all() as { id: number; name: string }[];
  if (names.length === 0) return new Map(all.map((r) => [r.id, r.name]));
  const byName = new Map(all.map((r) => [r.name, r.id]));
  const out = new Map<number, string>();
  for (const name of names) {
    const id = byName.get(name);
    if (id === undefined) throw new RangeError(`no run named "${name}"`);
    out.set(id, name);
  }
  return out;
}

/** The history map of sketches `x` (a row per point of `meta`), of `sketched` sketched turns in all. */
export async function projectHistories(
  x: Float32Array, meta: Omit<EmbeddingHistoryPoint, 'x' | 'y'>[], sketched: number, seed: number, project: NonNullable<EmbeddingsOptions['project']>,
): Promise<HistoryMap> {
  const take = meta.length;
  const map = take > 0 ? await project(x, take, SKETCH_DIM, seed) : null;
  return {
    sketched,
    perplexity: map && take > 2 ? map.perplexity : null,
    kl: map && take > 2 ? map.kl : null,
    points: meta.map((m, i) => ({ ...m, x: map ? (map.y[2 * i] as number) : 0, y: map ? (map.y[2 * i + 1] as number) : 0 })),
  };
}

export interface HistoryMap {
  sketched: number;
  perplexity: number | null;
  kl: number | null;
  points: EmbeddingHistoryPoint[];
}

/** Cached history maps per database: key = sketches' state + runs + sample + seed. */
const historyCache = new WeakMap<Db, Map<string, HistoryMap>>();
const CACHE_ENTRIES = 8;

export const defaultProject = (x: Float32Array, n: number, d: number, seed: number): TsneResult => tsne(x, n, d, { seed });

async function historyMap(db: Db, runIds: number[], runNames: Map<number, string>, sample: number, seed: number, project: NonNullable<EmbeddingsOptions['project']>): Promise<HistoryMap> {
  const filter = runIds.length ? ` WHERE e.run_id IN (${runIds.map(() => '?').join(', ')})` : '';
  const state = db.prepare("SELECT COUNT(*) || ':' || COALESCE(MAX(turn_id), 0) || ':' || (SELECT COUNT(*) FROM episodes) FROM history_sketches").pluck().get() as string;
  const key = JSON.stringify([state, runIds, sample, seed]);
  let cache = historyCache.get(db);
  const hit = cache?.get(key);
  if (hit) return hit;

  const ids = db
    .prepare(`SELECT s.turn_id FROM history_sketches s JOIN turns t ON t.id = s.turn_id JOIN episodes e ON e.id = t.episode_id${filter} ORDER BY s.turn_id`)
    .pluck()
    .all(...runIds) as number[];
  // A seeded partial Fisher–Yates picks the sample; sorted back by turn id so the map's input order is stable.
  const rng = new SeededRandom(seed, 11);
  const take = Math.min(sample, ids.length);
  for (let i = 0; i < take; i++) {
    const j = i + rng.int(ids.length - i);
    const tmp = ids[i] as number;
    ids[i] = ids[j] as number;
    ids[j] = tmp;
  }
  const chosen = ids.slice(0, take).sort((a, b) => a - b);
  const read = db.prepare(`SELECT s.vec, t.t, m.name AS model, e.id AS episode_id, e.ext_id, e.run_id, e.score_norm, e.success
    FROM history_sketches s JOIN turns t ON t.id = s.turn_id JOIN episodes e ON e.id = t.episode_id JOIN models m ON m.id = t.model_id
    WHERE s.turn_id = ?`);
  const x = new Float32Array(take * SKETCH_DIM);
  const meta: Omit<EmbeddingHistoryPoint, 'x' | 'y'>[] = [];
  chosen.forEach((turnId, i) => {
    const r = read.get(turnId) as { vec: Buffer; t: number; model: string; episode_id: number; ext_id: string; run_id: number; score_norm: number | null; success: number | null };
    x.set(new Float32Array(r.vec.buffer.slice(r.vec.byteOffset, r.vec.byteOffset + SKETCH_DIM * 4)), i * SKETCH_DIM);
    meta.push({
      episode: r.ext_id,
      episode_id: r.episode_id,
      run: runNames.get(r.run_id) ?? String(r.run_id),
      turn: r.t,
      model: r.model,
      outcome: r.score_norm,
      success: r.success === null ? null : r.success === 1,
    });
  });
  const result = await projectHistories(x, meta, ids.length, seed, project);
  if (!cache) historyCache.set(db, (cache = new Map()));
  cache.set(key, result);
  while (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  return result;
}

/** What a model map says of each model besides its place: its tier and prices, and its turns in the selection. */
export type ModelFacts = Omit<EmbeddingModelPoint, 'model' | 'x' | 'y'>;

/** t-SNE of an estimator file's model embeddings z_a, one point per candidate model with the facts `factsOf` gives. */
export async function modelMap(
  path: string, seed: number, project: NonNullable<EmbeddingsOptions['project']>, factsOf: (model: string) => ModelFacts,
): Promise<EmbeddingsResult['models']> {
  const scorer = await openScorer(path, { ep: 'cpu', threads: 1 });
  let z: Float32Array;
  let names: readonly string[];
  try {
    z = scorer.modelEmbeddings.slice();
    names = scorer.models;
  } finally {
    await scorer.close();
  }
  const K = names.length;
  const map = await project(z, K, MODEL_EMBED_DIM, seed);
  const points: EmbeddingModelPoint[] = names.map((model, a) => {
    const f = factsOf(model);
    return { model, tier: f.tier, x: map.y[2 * a] as number, y: map.y[2 * a + 1] as number, turns: f.turns, price_in_per_m: f.price_in_per_m, price_out_per_m: f.price_out_per_m };
  });
  return { perplexity: K > 2 ? map.perplexity : null, kl: K > 2 ? map.kl : null, points };
}

/** The options every embedding map reads, defaulted and checked. */
export function embeddingsSettings(options: Pick<EmbeddingsOptions, 'seed' | 'color' | 'sample' | 'project'>): {
  seed: number; color: 'model' | 'outcome'; sample: number; project: NonNullable<EmbeddingsOptions['project']>;
} {
  const sample = options.sample ?? DEFAULT_EMBEDDING_SAMPLE;
  if (!Number.isInteger(sample) || sample < 0 || sample > MAX_EMBEDDING_SAMPLE) throw new RangeError(`sample must be a whole number from 0 to ${MAX_EMBEDDING_SAMPLE}, got ${sample}`);
  return { seed: options.seed ?? 0, color: options.color ?? 'model', sample, project: options.project ?? defaultProject };
}

export async function embeddingsAnalysis(db: Db, options: EmbeddingsOptions = {}): Promise<EmbeddingsResult> {
  const { seed, color, sample, project } = embeddingsSettings(options);
  const runNames = runIdsOf(db, options.runs ?? []);
  const runIds = options.runs?.length ? [...runNames.keys()] : [];
  const dbArg = db.name && db.name !== ':memory:' ? db.name : 'FILE';
  const notes: string[] = [];

  // Models: z_a of the chosen estimator, projected.
  const est = chooseEstimator(db, options.estimator, runIds, options.defaultModelPath ?? DEFAULT_ESTIMATOR_PATH);
  let models: EmbeddingsResult['models'] = { perplexity: null, kl: null, points: [] };
  if (!est) {
    notes.push(`No estimator to take model embeddings from: train one (routelens train --db ${dbArg} --out model.onnx) or restore models/default-estimator.onnx.`);
  } else {
    const info = db.prepare('SELECT id, tier, price_in_per_m, price_out_per_m FROM models WHERE name = ?');
    // One pass over the turns for every model's count (a COUNT per model would scan K times).
    const filter = runIds.length ? ` WHERE e.run_id IN (${runIds.map(() => '?').join(', ')})` : '';
    const counts = new Map(
      (db.prepare(`SELECT t.model_id, COUNT(*) FROM turns t JOIN episodes e ON e.id = t.episode_id${filter} GROUP BY t.model_id`).raw().all(...runIds) as [number, number][]),
    );
    models = await modelMap(est.path, seed, project, (model) => {
      const m = info.get(model) as { id: number; tier: string | null; price_in_per_m: number | null; price_out_per_m: number | null } | undefined;
      return { tier: m?.tier ?? null, turns: m ? (counts.get(m.id) ?? 0) : 0, price_in_per_m: m?.price_in_per_m ?? null, price_out_per_m: m?.price_out_per_m ?? null };
    });
  }

  const histories = await historyMap(db, runIds, runNames, sample, seed, project);
  if (histories.sketched === 0 && sample > 0) {
    const runArgs = (options.runs ?? []).map((r) => ` --run ${/^[\w.-]+$/.test(r) ? r : JSON.stringify(r)}`).join('');
    notes.push(`No turn history of the selected runs is sketched yet; scoring writes the sketches: routelens score --db ${dbArg}${runArgs}`);
  }
  return embeddingsResult(est, notes, seed, color, models, histories);
}

/** The answer of either store from its parts. */
export function embeddingsResult(
  est: { id: number | null; name: string; source: 'database' | 'default' } | null, notes: string[], seed: number, color: 'model' | 'outcome',
  models: EmbeddingsResult['models'], histories: HistoryMap,
): EmbeddingsResult {
  return {
    estimator: est ? { id: est.id, name: est.name, source: est.source } : null,
    note: notes.length ? notes.join(' ') : null,
    seed,
    models,
    histories: { color, sketched: histories.sketched, perplexity: histories.perplexity, kl: histories.kl, points: histories.points },
  };
}
