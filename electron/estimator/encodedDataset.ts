/**
 * Training rows with any history encoder and input profile (historyEncoder.ts, inputProfile.ts): the dataset
 * of dataset.ts — same rows, targets, structured features, candidate pool and episode-level split — with the
 * text features of `encoder` for histories laid out as `encoder.profile` says.
 *
 * hash-1024 under the routelens profile returns `buildTrainingSet` unchanged (its incremental sparse path is
 * exact and fast). Otherwise the rows are built by `buildTrainingSet` first and each row's h_t is then laid
 * out again (`encoder.history`, one episode's turns read at a time, no statement held open across an await)
 * and encoded in batches. The embeddings go into the same CSR fields the trainer reads — every index for a
 * dense embedding, the non-zeros for hash-1024 — so train.ts needs no change: a row is
 * [text features ; structured], as `encoder.encode` gives at scoring time.
 *
 * The history budget defaults to `encoder.historyTokens` (for onnx-text: the model's max length), so the
 * window the model reads is the layout's, oldest turns dropped first.
 */
import type { Db } from '../db/dbHandle.ts';
import { HASH_ENCODER } from './hashEncoder.ts';
import { buildTrainingSet, type DatasetOptions, type TrainingSet } from './dataset.ts';
import { EncoderError, type HistoryEncoder } from './historyEncoder.ts';
import type { EncodableHistory, HistoryTurn } from './historyText.ts';

export interface EncodedDatasetOptions extends Omit<DatasetOptions, 'profile'> {
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
  const base = buildTrainingSet(db, { ...options, maxHistoryTokens, profile: encoder.profile });
  if (encoder.name === HASH_ENCODER && encoder.profile.name === 'routelens') return base;

  const D = encoder.textDim;
  if (D > 65536) throw new EncoderError(`${encoder.spec}: ${D} features do not fit the dataset's 16-bit feature index`);
  const rows = base.rows;
  const sparse = encoder.name === HASH_ENCODER;
  // Dense embeddings are stored whole; hash-1024 rows (~1/4 non-zero) keep their non-zeros, as dataset.ts does.
  let values = new Float32Array(sparse ? Math.max(1024, rows * 64) : rows * D);
  let indices = new Uint16Array(values.length);
  const indptr = new Int32Array(rows + 1);
  let stored = 0;
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
    const encoded = await encoder.encodeText(pending);
    if (!sparse) values.set(encoded, firstPending * D);
    for (let i = 0; i < pending.length; i++) {
      const row = firstPending + i;
      if (sparse) {
        for (let j = 0; j < D; j++) {
          const v = encoded[i * D + j] as number;
          if (v === 0) continue;
          if (stored === values.length) {
            const v2 = new Float32Array(values.length * 2);
            v2.set(values);
            values = v2;
            const i2 = new Uint16Array(values.length);
            i2.set(indices);
            indices = i2;
          }
          values[stored] = v;
          indices[stored++] = j;
        }
      } else {
        for (let j = 0; j < D; j++) indices[row * D + j] = j;
        stored += D;
      }
      indptr[row + 1] = stored;
    }
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
      pending.push(encoder.history(task, turns.slice(0, t) as HistoryTurn[], maxHistoryTokens));
      if (pending.length >= batchSize) await flush();
    }
  }
  await flush();

  return {
    ...base,
    encoder: encoder.name,
    textDim: D,
    historyDim: D + encoder.profile.structured.length,
    textIndptr: indptr,
    textIndices: sparse ? indices.slice(0, stored) : indices,
    textValues: sparse ? values.slice(0, stored) : values,
    summary: { ...base.summary, meanNonZero: rows ? stored / rows : 0, seconds: (performance.now() - started) / 1000 },
  };
}
