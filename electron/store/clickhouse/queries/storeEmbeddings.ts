/**
 * The `embeddings` analysis (DESIGN §8, MTRouter Fig. 7) on a ClickHouse store, as embeddings.ts draws it from a
 * SQLite database: a t-SNE map of an estimator's model embeddings z_a and one of a seeded sample of turn histories.
 *
 * - z_a is read from an ONNX file, and a store knows an estimator by its file's hash alone: the shipped default
 *   is found by its hash; another estimator's file is not here, and the map says so and shows the default's.
 * - The store keeps no history sketches: the cluster draws the sample (turns ordered by a seeded hash, the first
 *   `sample` taken), only those turns' sessions are read, and each chosen turn's 64-d sketch is made as
 *   `routelens score` makes it on SQLite (the hash-1024 history over the mapped estimator's window, then
 *   `sketchOf`), so every turn can be mapped,
 *   scored or not. The sample is not SQLite's (its draw is over row ids), so the two history maps differ in
 *   which turns they show, not in how a turn is placed from its sketch.
 */
import type { EmbeddingHistoryPoint, EmbeddingsResult } from '../../../../shared/analysisResults.ts';
import { embeddingsResult, embeddingsSettings, modelMap, projectHistories, type EmbeddingsOptions, type HistoryMap } from '../../../analysis/embeddings.ts';
import { storedExpectedSteps } from '../../../analysis/storedExpectedSteps.ts';
import { DEFAULT_HISTORY_TOKENS } from '../../../estimator/historyText.ts';
import { HASH_HISTORY_DIM } from '../../../estimator/hashEncoder.ts';
import { hashedHistoryRows, SKETCH_DIM, sketchOf } from '../../../estimator/historyRows.ts';
import { cardBeside } from '../../../estimator/modelCard.ts';
import { DEFAULT_ESTIMATOR_PATH } from '../../../estimator/whatIf.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { visibleRows } from '../schema/schema.ts';
import { selectionFilter } from './storeAnalyses.ts';
import { listModelsOnStore } from './storeEpisodes.ts';
import { completedScorings, fileSha, scoringOf } from './storeEstimators.ts';
import { readSessionsPart, WHOLE_STORE } from './storeSessionsPart.ts';

export type StoreEmbeddingsOptions = Omit<EmbeddingsOptions, 'runs'> & { runs?: string[] };

const num = (x: unknown): number => Number(x);

/** The file whose z_a is mapped, and how the result names it; a note when it is not the estimator in use. */
async function chooseFile(store: ClickHouseStore, wanted: number | undefined, defaultPath: string): Promise<{ file: { id: number | null; name: string; path: string; source: 'database' | 'default' } | null; note: string | null }> {
  const defaultSha = fileSha(defaultPath);
  const fallback = defaultSha ? { id: null, name: 'default estimator (models/)', path: defaultPath, source: 'default' as const } : null;
  const pick = scoringOf(await completedScorings(store), wanted);
  if (!pick) return { file: fallback, note: null };
  if (pick.sha === defaultSha) return { file: { id: pick.id, name: pick.name, path: defaultPath, source: 'database' }, note: null };
  if (wanted !== undefined) throw new RangeError(`estimator ${wanted} (${pick.name}) has no ONNX file here: a store knows it by its hash, and only the shipped default is found by it`);
  return {
    file: fallback,
    note: `The estimator in use, ${pick.name}, is known to this store by its file's hash, and its ONNX file is not here: the model map shows the shipped default's embeddings.`,
  };
}

/** Cached history maps per store state, runs, sample and seed (t-SNE is O(n²) an iteration). */
const historyCache = new Map<string, HistoryMap>();
const CACHE_ENTRIES = 8;

async function historyMapOnStore(
  store: ClickHouseStore, runs: string[], sample: number, seed: number, window: number, project: NonNullable<EmbeddingsOptions['project']>,
): Promise<HistoryMap> {
  const f = await selectionFilter(store, { runs });
  const [size] = await store.query<{ n: string; v: string }>(
    `SELECT count() AS n, (SELECT count() FROM ${store.database}.imports) AS v FROM ${store.table('turns')} WHERE ${visibleRows(store)} AND ${f.sql}`, f.params,
  );
  const turns = num(size?.n ?? 0);
  const key = JSON.stringify([store.shown, size?.v, turns, runs, sample, seed, window]);
  const hit = historyCache.get(key);
  if (hit) return hit;
  const chosen = sample === 0 ? [] : await store.query<{ k: string; pos: number; t: number; model: string }>(
    `SELECT episode_key AS k, pos, t, model FROM ${store.table('turns')} WHERE ${visibleRows(store)} AND ${f.sql}
     ORDER BY cityHash64(episode_key, pos, {seed:UInt32}), episode_key, pos LIMIT {sample:UInt32}`,
    { ...f.params, seed, sample },
  );
  chosen.sort((a, b) => (a.k === b.k ? num(a.pos) - num(b.pos) : BigInt(a.k) < BigInt(b.k) ? -1 : 1));
  // Keys are 52-bit (episodeRows.ts), whole numbers a query parameter takes.
  const keys = [...new Set(chosen.map((c) => num(c.k)))];
  const x = new Float32Array(chosen.length * SKETCH_DIM);
  const meta: Omit<EmbeddingHistoryPoint, 'x' | 'y'>[] = [];
  if (keys.length) {
    const where = `${visibleRows(store)} AND has({keys:Array(UInt64)}, episode_key)`;
    const sessions = await readSessionsPart(store, { where, params: { keys }, part: WHOLE_STORE });
    const facts = new Map((await store.query<{ k: string; ext_id: string; success: number | null }>(
      `SELECT episode_key AS k, ext_id, success FROM ${store.table('episodes')} WHERE ${where}`, { keys },
    )).map((e) => [e.k, e]));
    const rowOf = new Map(chosen.map((c, i) => [`${c.k}:${num(c.pos)}`, i]));
    let history = new Float32Array(HASH_HISTORY_DIM);
    for (const s of sessions) {
      const rows = s.turns.map((turn) => rowOf.get(`${s.key}:${turn.pos}`));
      if (!rows.some((r) => r !== undefined)) continue;
      if (history.length < s.turns.length * HASH_HISTORY_DIM) history = new Float32Array(s.turns.length * HASH_HISTORY_DIM);
      hashedHistoryRows(s.episode.task_text, s.turns, storedExpectedSteps(s.episode), window, (t) => ({ out: history, offset: t * HASH_HISTORY_DIM }), (t) => {
        const r = rows[t];
        if (r !== undefined) sketchOf(history, t * HASH_HISTORY_DIM, x, r * SKETCH_DIM);
      });
    }
    for (const c of chosen) {
      const e = facts.get(c.k);
      const session = sessions.find((s) => s.key === c.k);
      meta.push({
        episode: e?.ext_id ?? '', episode_id: num(c.k), run: session?.run ?? '', turn: num(c.t), model: c.model,
        outcome: session?.episode.score_norm ?? null, success: e?.success === null || e?.success === undefined ? null : num(e.success) === 1,
      });
    }
  }
  const result = await projectHistories(x, meta, turns, seed, project);
  historyCache.set(key, result);
  while (historyCache.size > CACHE_ENTRIES) historyCache.delete(historyCache.keys().next().value as string);
  return result;
}

export async function embeddingsOnStore(store: ClickHouseStore, options: StoreEmbeddingsOptions = {}): Promise<EmbeddingsResult> {
  const { seed, color, sample, project } = embeddingsSettings(options);
  const runs = options.runs ?? [];
  const f = await selectionFilter(store, { runs });
  const notes: string[] = [];
  const { file, note } = await chooseFile(store, options.estimator, options.defaultModelPath ?? DEFAULT_ESTIMATOR_PATH);
  if (note) notes.push(note);
  let models: EmbeddingsResult['models'] = { perplexity: null, kl: null, points: [] };
  if (!file) {
    notes.push('No estimator to take model embeddings from: restore models/default-estimator.onnx (a store finds an estimator by its file, and the default is the one it can find).');
  } else {
    const info = new Map((await listModelsOnStore(store)).map((m) => [m.name, m]));
    const counts = new Map((await store.query<{ model: string; n: string }>(
      `SELECT model, count() AS n FROM ${store.table('turns')} WHERE ${visibleRows(store)} AND ${f.sql} GROUP BY model`, f.params,
    )).map((r) => [r.model, num(r.n)]));
    models = await modelMap(file.path, seed, project, (model) => {
      const m = info.get(model);
      return { tier: m?.tier ?? null, turns: counts.get(model) ?? 0, price_in_per_m: m?.price_in_per_m ?? null, price_out_per_m: m?.price_out_per_m ?? null };
    });
  }
  // The history window of the estimator mapped (its card says it), as its scoring would sketch on SQLite.
  const window = (file ? cardBeside(file.path)?.encoder.max_history_tokens : undefined) ?? DEFAULT_HISTORY_TOKENS;
  const histories = await historyMapOnStore(store, runs, sample, seed, window, project);
  return embeddingsResult(file, notes, seed, color, models, histories);
}
