/**
 * `routelens score` (DESIGN §6, issue 5 item 4): ŝ for every turn × candidate model of a database, written to
 * `estimates`, with each turn's history sketch (historyRows.ts) for what-if's neighbour search.
 *
 * The estimator is identified by the sha256 of its ONNX file: scoring the same file again replaces its
 * estimates instead of adding a second estimator. Histories are read on a second, read-only connection (WAL
 * lets it read while the writer commits), because better-sqlite3 forbids writes on a connection that is
 * iterating a query. Each batch (4096 turns) is one transaction, so an interrupted run leaves whole batches.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { HASH_ENCODER } from './hashEncoder.ts';
import { openHistoryEncoder, type HistoryEncoder } from './historyEncoder.ts';
import type { HistoryTurn } from './historyText.ts';
import { countTurns, encodedHistoryRows, historyRows, SKETCH_DIM, type HistoryBatch } from './historyRows.ts';
import { modelCardPath, readModelCard } from './modelCard.ts';
import { sha256 } from './onnxExport.ts';
import { openScorer, type ProviderAttempt, type ProviderChoice, type Provider } from './ortScoring.ts';
import { ScorerError } from './scorerError.ts';

export interface ScoreProgress {
  rows: number;
  total: number;
  rowsPerSec: number;
  provider: Provider;
}

export interface ScoreDatabaseOptions {
  ep?: ProviderChoice;
  /** Only turns of these runs; default every turn. */
  runIds?: readonly number[];
  batchRows?: number;
  onProgress?: (p: ScoreProgress) => void;
  /** Checked between batches; scoring stops with the batches written so far kept. */
  signal?: AbortSignal;
}

export interface ScoreDatabaseResult {
  estimatorId: number;
  estimator: string;
  provider: Provider;
  attempts: readonly ProviderAttempt[];
  models: string[];
  rows: number;
  seconds: number;
  /** Turns per second through encoding, ORT and the inserts together. */
  rowsPerSec: number;
  /** Turns per second of the ORT runs alone. */
  ortRowsPerSec: number;
  cancelled: boolean;
}

/** The `estimators` row for this ONNX file (by content hash), created on first use. */
export function registerEstimator(db: Db, modelPath: string, bytes: Uint8Array): number {
  const hash = sha256(bytes);
  const found = db.prepare('SELECT id FROM estimators WHERE onnx_sha256 = ?').pluck().get(hash) as number | undefined;
  if (found !== undefined) {
    db.prepare('UPDATE estimators SET onnx_path = ? WHERE id = ?').run(resolve(modelPath), found);
    return found;
  }
  const card = existsSync(modelCardPath(modelPath)) ? readModelCard(modelCardPath(modelPath)) : null;
  const info = db
    .prepare(`INSERT INTO estimators (name, created_at, encoder, config_json, metrics_json, onnx_path, onnx_sha256)
      VALUES (?, ?, ?, ?, ?, ?, ?)`)
    .run(
      card?.name ?? basename(modelPath).replace(/\.onnx$/i, ''),
      card?.created_at ?? new Date().toISOString(),
      card?.encoder.name ?? HASH_ENCODER,
      JSON.stringify(card?.config ?? {}),
      card ? JSON.stringify(card.metrics) : null,
      resolve(modelPath),
      hash,
    );
  return Number(info.lastInsertRowid);
}

/** An estimator's ONNX file and a scorer for it; a file that cannot be read is the user's to fix. */
export async function openEstimatorFile(modelPath: string, ep: ProviderChoice = 'auto'): Promise<{ bytes: Buffer; scorer: Awaited<ReturnType<typeof openScorer>> }> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(modelPath);
  } catch (e) {
    throw new ScorerError(`cannot read ${modelPath}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return { bytes, scorer: await openScorer(bytes, { ep }) };
}

export async function scoreDatabase(dbPath: string, modelPath: string, options: ScoreDatabaseOptions = {}): Promise<ScoreDatabaseResult> {
  const { bytes, scorer } = await openEstimatorFile(modelPath, options.ep);
  const db = openDatabase(dbPath);
  const reader = openDatabase(dbPath, { readonly: true });
  let encoder: HistoryEncoder | null = null;
  try {
    encoder = await encoderFor(modelPath, scorer.historyDim, options.ep);
    const estimatorId = registerEstimator(db, modelPath, bytes);
    const idOf = db.prepare('SELECT id FROM models WHERE name = ?').pluck();
    const addModel = db.prepare('INSERT INTO models (name) VALUES (?)');
    const modelIds = scorer.models.map((name) => (idOf.get(name) as number | undefined) ?? Number(addModel.run(name).lastInsertRowid));
    const runIds = options.runIds ?? [];
    const total = countTurns(reader, runIds);
    const inRuns = runIds.length ? ` AND turn_id IN (SELECT t.id FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.run_id IN (${runIds.map(() => '?').join(', ')}))` : '';
    db.prepare(`DELETE FROM estimates WHERE estimator_id = ?${inRuns}`).run(estimatorId, ...runIds);

    const insertEstimate = db.prepare('INSERT OR REPLACE INTO estimates (estimator_id, turn_id, model_id, s_hat) VALUES (?, ?, ?, ?)');
    const insertSketch = db.prepare('INSERT OR REPLACE INTO history_sketches (turn_id, vec) VALUES (?, ?)');
    const K = scorer.models.length;
    const write = db.transaction((turnIds: Int32Array, n: number, scores: Float32Array, sketch: Float32Array) => {
      for (let r = 0; r < n; r++) {
        const turn = turnIds[r] as number;
        for (let a = 0; a < K; a++) insertEstimate.run(estimatorId, turn, modelIds[a], scores[r * K + a]);
        insertSketch.run(turn, Buffer.from(sketch.buffer, sketch.byteOffset + r * SKETCH_DIM * 4, SKETCH_DIM * 4));
      }
    });

    const started = performance.now();
    let ortSeconds = 0;
    let rows = 0;
    let cancelled = false;
    // The incremental path is the routelens layout hashed; any other profile or encoder lays out and encodes each turn.
    const batches: Iterable<HistoryBatch> | AsyncIterable<HistoryBatch> =
      encoder.name === HASH_ENCODER && encoder.profile.name === 'routelens'
        ? historyRows(reader, { runIds, batchRows: options.batchRows, maxHistoryTokens: encoder.historyTokens })
        : encodedHistoryRows(reader, encoder, { runIds, batchRows: options.batchRows, maxHistoryTokens: encoder.historyTokens });
    for await (const batch of batches) {
      if (options.signal?.aborted) {
        cancelled = true;
        break;
      }
      const t0 = performance.now();
      const scores = await scorer.score(batch.history, batch.n);
      ortSeconds += (performance.now() - t0) / 1000;
      write(batch.turnId, batch.n, scores, batch.sketch);
      rows += batch.n;
      const seconds = (performance.now() - started) / 1000;
      options.onProgress?.({ rows, total, rowsPerSec: rows / seconds, provider: scorer.provider });
    }
    db.prepare('UPDATE estimators SET provider = ?, scored_at = ? WHERE id = ?').run(scorer.provider, new Date().toISOString(), estimatorId);
    const seconds = (performance.now() - started) / 1000;
    return {
      estimatorId,
      estimator: db.prepare('SELECT name FROM estimators WHERE id = ?').pluck().get(estimatorId) as string,
      provider: scorer.provider,
      attempts: scorer.attempts,
      models: [...scorer.models],
      rows,
      seconds,
      rowsPerSec: seconds > 0 ? rows / seconds : 0,
      ortRowsPerSec: ortSeconds > 0 ? rows / ortSeconds : 0,
      cancelled,
    };
  } finally {
    await encoder?.close();
    reader.close();
    db.close();
    await scorer.close();
  }
}

/**
 * The history encoder an estimator was trained with: its card's encoder, input profile and history budget;
 * without a card, hash-1024 under the routelens profile when the dimensions match. `historyTokens` of the
 * result is the budget to lay histories out with.
 */
export async function encoderFor(modelPath: string, historyDim: number, ep?: ProviderChoice): Promise<HistoryEncoder> {
  const card = existsSync(modelCardPath(modelPath)) ? readModelCard(modelCardPath(modelPath)) : null;
  const encoder = await openHistoryEncoder(card?.encoder.name ?? HASH_ENCODER, { ep, profile: card?.profile });
  const budget = card?.encoder.max_history_tokens ?? encoder.historyTokens;
  if (encoder.dim !== historyDim) {
    await encoder.close();
    throw new ScorerError(`${modelPath} reads ${historyDim}-d histories; its encoder ${encoder.spec} (${encoder.profile.name} profile) gives ${encoder.dim}`);
  }
  return Object.assign(Object.create(Object.getPrototypeOf(encoder) as object) as HistoryEncoder, encoder, {
    historyTokens: budget,
    history: (task: string | null, earlier: readonly HistoryTurn[], maxTokens = budget) => encoder.history(task, earlier, maxTokens),
  });
}
