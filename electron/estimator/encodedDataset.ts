/**
 * Training rows with any history encoder (historyEncoder.ts): the dataset of dataset.ts — same rows, targets,
 * structured features, candidate pool and episode-level split — with the text features of `encoder`.
 *
 * hash-1024 returns `buildTrainingSet` unchanged (its incremental sparse path is exact and fast). Any other
 * encoder is async and batched, so the rows are built by `buildTrainingSet` first and each row's h_t is then
 * serialised again (historyText.ts, one episode's turns read at a time, no statement held open across an
 * await) and encoded in batches. The dense embeddings go into the same CSR fields the trainer reads (every
 * index present), so train.ts needs no change: a row is [embedding ; structured], as `encoder.encode` gives
 * at scoring time.
 *
 * The history budget defaults to `encoder.historyTokens` (for onnx-text: the model's max length), so the
 * window the model reads is the serialiser's, oldest turns dropped first.
 */
import type { Db } from '../db/database.ts';
import { HASH_ENCODER } from './hashEncoder.ts';
import { buildTrainingSet, type DatasetOptions, type TrainingSet } from './dataset.ts';
import { EncoderError, type EncodableHistory, type HistoryEncoder } from './historyEncoder.ts';
import { STRUCTURED_DIM, serialiseHistory, type HistoryTurn } from './historyText.ts';

export interface EncodedDatasetOptions extends DatasetOptions {
  /** Histories per encoder call (default 256; the encoder splits them into its own ORT batches). */
  encodeBatch?: number;
  onEncodeProgress?: (p: { rows: number; of: number; seconds: number }) => void;
}

interface TurnText {
  id: number;
  action: string | null;
  observation: string | null;
}

export async function buildEncodedTrainingSet(db: Db, encoder: HistoryEncoder, options: EncodedDatasetOptions = {}): Promise<TrainingSet> {
  const started = performance.now();
  const maxHistoryTokens = options.maxHistoryTokens ?? encoder.historyTokens;
  const base = buildTrainingSet(db, { ...options, maxHistoryTokens });
  if (encoder.name === HASH_ENCODER) return base;

  const D = encoder.textDim;
  if (D > 65536) throw new EncoderError(`${encoder.spec}: ${D} features do not fit the dataset's 16-bit feature index`);
  const rows = base.rows;
  const values = new Float32Array(rows * D);
  const batchSize = options.encodeBatch ?? 256;
  const taskOf = db.prepare('SELECT task_text FROM episode_text WHERE episode_id = ?').pluck();
  const turnsOf = db.prepare(
    'SELECT t.id, x.action, x.observation FROM turns t LEFT JOIN turn_text x ON x.turn_id = t.id WHERE t.episode_id = ? ORDER BY t.t',
  );

  let pending: EncodableHistory[] = [];
  let firstPending = 0;
  let done = 0;
  const flush = async (): Promise<void> => {
    if (!pending.length) return;
    values.set(await encoder.encodeText(pending), firstPending * D);
    done += pending.length;
    firstPending += pending.length;
    pending = [];
    options.onEncodeProgress?.({ rows: done, of: rows, seconds: (performance.now() - started) / 1000 });
  };

  let r = 0;
  while (r < rows) {
    const episode = base.episodeId[r] as number;
    const task = (taskOf.get(episode) as string | null | undefined) ?? null;
    const turns = turnsOf.all(episode) as TurnText[];
    const index = new Map(turns.map((t, i) => [t.id, i]));
    for (; r < rows && base.episodeId[r] === episode; r++) {
      const t = index.get(base.turnId[r] as number);
      if (t === undefined) throw new Error(`turn ${base.turnId[r]} vanished from episode ${episode} while encoding`);
      pending.push(serialiseHistory(task, turns.slice(0, t) as HistoryTurn[], maxHistoryTokens));
      if (pending.length >= batchSize) await flush();
    }
  }
  await flush();

  const indptr = new Int32Array(rows + 1);
  for (let i = 0; i <= rows; i++) indptr[i] = i * D;
  const indices = new Uint16Array(rows * D);
  for (let i = 0; i < rows; i++) for (let j = 0; j < D; j++) indices[i * D + j] = j;
  return {
    ...base,
    encoder: encoder.name,
    textDim: D,
    historyDim: D + STRUCTURED_DIM,
    textIndptr: indptr,
    textIndices: indices,
    textValues: values,
    summary: { ...base.summary, meanNonZero: rows ? D : 0, seconds: (performance.now() - started) / 1000 },
  };
}
