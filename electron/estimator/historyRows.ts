/**
 * The `hash-1024` history vector h_t of every turn of a database, streamed in batches for scoring (DESIGN §6):
 * one pass over the turns in (episode, t) order with their text, each episode encoded incrementally by
 * dataset.ts's encodeEpisodeHistories, so a turn's text is read once however long the episode.
 *
 * Each batch also carries a 64-d sketch per turn: a seeded signed random projection of the 1024 hashed text
 * features, L2-normalised. Cosine between sketches approximates cosine between the histories' encoder features
 * (error ~1/√64), at 256 bytes a turn instead of 4 kB: what-if's nearest-neighbour search reads these.
 */
import { storedExpectedSteps } from '../analysis/storedExpectedSteps.ts';
import type { Db } from '../db/dbHandle.ts';
import { encodeEpisodeHistories } from './dataset.ts';
import { HASH_DIM, HASH_HISTORY_DIM, countsToFeatures } from './hashEncoder.ts';
import type { HistoryEncoder, HistoryInput } from './historyEncoder.ts';
import { DEFAULT_HISTORY_TOKENS, structuredFeatures, type HistoryTurn } from './historyText.ts';
import { SeededRandom } from './seededRandom.ts';

export const SKETCH_DIM = 64;
const SKETCH_SEED = 20_251_123;

export interface HistoryBatch {
  /** Rows in this batch. */
  n: number;
  turnId: Int32Array;
  /** models.id of the turn's logged model. */
  modelId: Int32Array;
  /** [n × HASH_HISTORY_DIM]. */
  history: Float32Array;
  /** [n × SKETCH_DIM], unit length (all zeros for a history without text). */
  sketch: Float32Array;
}

export interface HistoryRowsOptions {
  /** Only episodes of these run ids; default all. */
  runIds?: readonly number[];
  maxHistoryTokens?: number;
  batchRows?: number;
}

const projections = new Map<number, Float32Array>();
/** [dim × SKETCH_DIM] of ±1/√SKETCH_DIM, the same in every process (seeded). */
function sketchProjection(dim: number): Float32Array {
  let projection = projections.get(dim);
  if (!projection) {
    const rng = new SeededRandom(SKETCH_SEED, 1);
    projection = new Float32Array(dim * SKETCH_DIM);
    const v = 1 / Math.sqrt(SKETCH_DIM);
    for (let i = 0; i < projection.length; i++) projection[i] = rng.next() < 0.5 ? -v : v;
    projections.set(dim, projection);
  }
  return projection;
}

/** The unit-length sketch of text features `x` (`dim` values from `offset`) into out[outOffset …]. */
export function sketchOf(x: Float32Array, offset: number, out: Float32Array, outOffset: number, dim = HASH_DIM): void {
  const p = sketchProjection(dim);
  const acc = new Float64Array(SKETCH_DIM);
  for (let i = 0; i < dim; i++) {
    const v = x[offset + i] as number;
    if (v === 0) continue;
    const row = i * SKETCH_DIM;
    for (let j = 0; j < SKETCH_DIM; j++) acc[j] = (acc[j] as number) + v * (p[row + j] as number);
  }
  let sq = 0;
  for (let j = 0; j < SKETCH_DIM; j++) sq += (acc[j] as number) ** 2;
  const scale = sq > 0 ? 1 / Math.sqrt(sq) : 0;
  for (let j = 0; j < SKETCH_DIM; j++) out[outOffset + j] = (acc[j] as number) * scale;
}

interface TurnTextRow {
  id: number;
  episode_id: number;
  model_id: number;
  model: string;
  switched: number;
  max_severity: number;
  action: string | null;
  observation: string | null;
}

interface EpisodeInfo {
  task_text: string | null;
  n: number;
}

/** A turn as a history row reads it: its text, model, switch and severity. */
export interface HistoryRowTurn extends HistoryTurn {
  switched: number;
  max_severity: number;
}

/**
 * The hash-1024 history row h_t (the hashed text, then the structured features) of every turn of one episode,
 * written where `at(t)` says; `done(t)` follows each row. The one layout scoring uses on both stores.
 */
export function hashedHistoryRows(
  task: string | null, turns: readonly HistoryRowTurn[], expectedSteps: number, maxTokens: number,
  at: (t: number) => { out: Float32Array; offset: number }, done: (t: number) => void,
): void {
  encodeEpisodeHistories(task, turns, maxTokens, (t, counts) => {
    const { out, offset } = at(t);
    countsToFeatures(counts, out, offset);
    const prev = t > 0 ? (turns[t - 1] as HistoryRowTurn) : null;
    structuredFeatures({ t, expectedSteps, previousSeverity: prev?.max_severity ?? 0, previousSwitched: prev?.switched === 1 }, out, offset + HASH_DIM);
    done(t);
  });
}

export function countTurns(db: Db, runIds: readonly number[] = []): number {
  const filter = runIds.length ? ` WHERE e.run_id IN (${runIds.map(() => '?').join(', ')})` : '';
  return db.prepare(`SELECT COUNT(*) FROM turns t JOIN episodes e ON e.id = t.episode_id${filter}`).pluck().get(...runIds) as number;
}

/** Every turn's history vector and sketch, in batches of `batchRows` (the last one shorter). */
export function* historyRows(db: Db, options: HistoryRowsOptions = {}): Generator<HistoryBatch> {
  const maxTokens = options.maxHistoryTokens ?? DEFAULT_HISTORY_TOKENS;
  const batchRows = options.batchRows ?? 4096;
  const runIds = options.runIds ?? [];
  const filter = runIds.length ? ` WHERE e.run_id IN (${runIds.map(() => '?').join(', ')})` : '';
  const episodes = new Map<number, EpisodeInfo>();
  const epRows = db
    .prepare(`SELECT e.id, e.expected_steps, e.task_type, e.task_category, x.task_text FROM episodes e
      LEFT JOIN episode_text x ON x.episode_id = e.id${filter}`)
    .iterate(...runIds) as Iterable<{ id: number; expected_steps: number | null; task_type: string | null; task_category: string | null; task_text: string | null }>;
  for (const e of epRows) {
    episodes.set(e.id, { task_text: e.task_text, n: storedExpectedSteps(e) });
  }

  const D = HASH_HISTORY_DIM;
  const newBatch = (): HistoryBatch => ({
    n: 0,
    turnId: new Int32Array(batchRows),
    modelId: new Int32Array(batchRows),
    history: new Float32Array(batchRows * D),
    sketch: new Float32Array(batchRows * SKETCH_DIM),
  });
  let batch = newBatch();
  const ready: HistoryBatch[] = [];

  const encodeEpisode = (episodeId: number, turns: TurnTextRow[]): void => {
    const info = episodes.get(episodeId) as EpisodeInfo;
    hashedHistoryRows(info.task_text, turns, info.n, maxTokens, () => ({ out: batch.history, offset: batch.n * D }), (t) => {
      const turn = turns[t] as TurnTextRow;
      const r = batch.n;
      sketchOf(batch.history, r * D, batch.sketch, r * SKETCH_DIM);
      batch.turnId[r] = turn.id;
      batch.modelId[r] = turn.model_id;
      batch.n++;
      if (batch.n === batchRows) {
        ready.push(batch);
        batch = newBatch();
      }
    });
  };

  const stream = db.prepare(`SELECT t.id, t.episode_id, t.model_id, m.name AS model, t.switched, t.max_severity, x.action, x.observation
      FROM turns t JOIN episodes e ON e.id = t.episode_id JOIN models m ON m.id = t.model_id LEFT JOIN turn_text x ON x.turn_id = t.id${filter}
      ORDER BY t.episode_id, t.t`);
  let current: TurnTextRow[] = [];
  let currentId = -1;
  for (const row of stream.iterate(...runIds) as Iterable<TurnTextRow>) {
    if (row.episode_id !== currentId) {
      if (current.length) encodeEpisode(currentId, current);
      current = [];
      currentId = row.episode_id;
    }
    current.push(row);
    while (ready.length) yield ready.shift() as HistoryBatch;
  }
  if (current.length) encodeEpisode(currentId, current);
  while (ready.length) yield ready.shift() as HistoryBatch;
  if (batch.n > 0) yield batch;
}

/**
 * The same batches for any history encoder and input profile (historyEncoder.ts): each turn's history is laid
 * out as the encoder's profile says (`encoder.history`) and encoded in batches. One episode's turns are read at a time, so no statement is open
 * across the encoder's awaits.
 */
export async function* encodedHistoryRows(db: Db, encoder: HistoryEncoder, options: HistoryRowsOptions = {}): AsyncGenerator<HistoryBatch> {
  const maxTokens = options.maxHistoryTokens ?? encoder.historyTokens;
  const batchRows = options.batchRows ?? 1024;
  const runIds = options.runIds ?? [];
  const filter = runIds.length ? ` WHERE e.run_id IN (${runIds.map(() => '?').join(', ')})` : '';
  const episodes = db
    .prepare(`SELECT e.id, e.expected_steps, e.task_type, e.task_category, x.task_text FROM episodes e
      LEFT JOIN episode_text x ON x.episode_id = e.id${filter} ORDER BY e.id`)
    .all(...runIds) as { id: number; expected_steps: number | null; task_type: string | null; task_category: string | null; task_text: string | null }[];
  const turnsOf = db.prepare(`SELECT t.id, t.model_id, m.name AS model, t.switched, t.max_severity, x.action, x.observation
    FROM turns t JOIN models m ON m.id = t.model_id LEFT JOIN turn_text x ON x.turn_id = t.id WHERE t.episode_id = ? ORDER BY t.t`);
  const D = encoder.dim;
  let inputs: HistoryInput[] = [];
  let ids: number[] = [];
  let models: number[] = [];
  const flush = async (): Promise<HistoryBatch> => {
    const n = inputs.length;
    const history = await encoder.encode(inputs);
    const sketch = new Float32Array(n * SKETCH_DIM);
    for (let r = 0; r < n; r++) sketchOf(history, r * D, sketch, r * SKETCH_DIM, encoder.textDim);
    const batch = { n, turnId: Int32Array.from(ids), modelId: Int32Array.from(models), history, sketch };
    inputs = [];
    ids = [];
    models = [];
    return batch;
  };
  for (const e of episodes) {
    const n = storedExpectedSteps(e);
    const turns = turnsOf.all(e.id) as (TurnTextRow & HistoryTurn)[];
    for (let t = 0; t < turns.length; t++) {
      const prev = t > 0 ? (turns[t - 1] as TurnTextRow) : null;
      inputs.push({
        history: encoder.history(e.task_text, turns.slice(0, t), maxTokens),
        structured: { t, expectedSteps: n, previousSeverity: prev?.max_severity ?? 0, previousSwitched: prev?.switched === 1 },
      });
      ids.push((turns[t] as TurnTextRow).id);
      models.push((turns[t] as TurnTextRow).model_id);
      if (inputs.length === batchRows) yield await flush();
    }
  }
  if (inputs.length) yield await flush();
}
