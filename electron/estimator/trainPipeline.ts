/**
 * `routelens train` end to end (issue 5 item 2): training rows from a database → the trainer → ONNX export →
 * held-out evaluation through the exported file itself (ONNX Runtime, so the metrics describe the artefact
 * users ship) → the model card beside the .onnx → the `estimators` row. Runs in a worker thread
 * (trainWorker.ts) for the CLI and the window; this module is plain and synchronous apart from ORT.
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { openDatabase, type Db } from '../db/database.ts';
import { assertTrainable, splitRows, TrainingDataError, type TrainingSet } from './dataset.ts';
import { decisionQuality, PlantedTruth, type DecisionQuality, type HeldOutTurn } from './decisionQuality.ts';
import { buildEncodedTrainingSet } from './encodedDataset.ts';
import { HASH_ENCODER } from './hashEncoder.ts';
import { openHistoryEncoder, type EncoderCard, type HistoryEncoder } from './historyEncoder.ts';
import { DEFAULT_INPUT_PROFILE, type InputProfileName } from './inputProfile.ts';
import { MTROUTER_TRAIN_CONFIG } from './mtrouterTraining.ts';
import { MODEL_CARD_SCHEMA, modelCardPath, writeModelCard, type ModelCard } from './modelCard.ts';
import { trainingTaskTypes } from './trainingDomain.ts';
import { sha256, writeOnnx } from './onnxExport.ts';
import { openScorer } from './ortScoring.ts';
import { registerEstimator } from './scoreDatabase.ts';
import { spearman, TRAIN_DEFAULTS, trainEstimator, type EpochProgress } from './train.ts';

export interface TrainRequest {
  dbPath: string;
  out: string;
  encoder?: string;
  /** Input profile (inputProfile.ts); default routelens. */
  profile?: InputProfileName;
  seed?: number;
  maxEpochs?: number;
  patience?: number;
  runs?: string[];
  /** Only episodes of this split selection (shared/splits.ts). */
  split?: string;
  maxHistoryTokens?: number;
  /** A simulator `.truth.json`: adds the decision-quality section to the card. */
  truthPath?: string;
  name?: string;
}

export type TrainProgress =
  | { phase: 'dataset'; fraction: number; rows: number }
  | { phase: 'training'; fraction: number; epoch: number; maxEpochs: number; last: EpochProgress | null }
  | { phase: 'evaluating' | 'exporting'; fraction: number };

export interface TrainOutcome {
  card: ModelCard;
  cardPath: string;
  onnxPath: string;
  estimatorId: number;
}

export function readTruth(path: string): PlantedTruth {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new RangeError(`${path}: cannot read the truth file (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
  const parsed = PlantedTruth.safeParse(raw);
  if (!parsed.success) throw new RangeError(`${path}: not a turn-routed simulator truth file (needs models, categories, skill, error_rate, recover, best_model)`);
  return parsed.data;
}

/** Dense history rows ([rows.length × historyDim]) from the training set's sparse text and structured features. */
export function denseRows(data: TrainingSet, rows: Int32Array): Float32Array {
  const D = data.historyDim;
  const S = D - data.textDim;
  const out = new Float32Array(rows.length * D);
  rows.forEach((r, i) => {
    for (let k = data.textIndptr[r] as number; k < (data.textIndptr[r + 1] as number); k++) {
      out[i * D + (data.textIndices[k] as number)] = data.textValues[k] as number;
    }
    out.set(data.structured.subarray(r * S, (r + 1) * S), i * D + data.textDim);
  });
  return out;
}

/** What decisionQuality.ts needs of each row: its tool category and whether the turn before it erred. */
export function heldOutTurns(db: Db, data: TrainingSet, rows: Int32Array): HeldOutTurn[] {
  const toolOf = db.prepare('SELECT COALESCE(tool, action_type) FROM turns WHERE id = ?').pluck();
  // Read from the turns, not the structured features: the mtrouter profile has none.
  const previousSeverity = db
    .prepare('SELECT p.max_severity FROM turns t JOIN turns p ON p.episode_id = t.episode_id AND p.t = t.t - 1 WHERE t.id = ?')
    .pluck();
  return Array.from(rows, (r) => ({
    category: (toolOf.get(data.turnId[r]) as string | null) ?? null,
    previousErred: ((previousSeverity.get(data.turnId[r]) as number | undefined) ?? 0) > 0,
  }));
}

export async function trainToFile(req: TrainRequest, onProgress: (p: TrainProgress) => void = () => {}): Promise<TrainOutcome> {
  const truth = req.truthPath ? readTruth(req.truthPath) : null;
  const db = openDatabase(req.dbPath);
  let enc: HistoryEncoder | null = null;
  try {
    const profile = req.profile ?? DEFAULT_INPUT_PROFILE;
    enc = await openHistoryEncoder(req.encoder ?? HASH_ENCODER, { profile });
    const maxTokens = req.maxHistoryTokens ?? enc.historyTokens;
    const data = await buildEncodedTrainingSet(db, enc, {
      runs: req.runs,
      split: req.split,
      seed: req.seed ?? 0,
      maxHistoryTokens: maxTokens,
      onProgress: (p) => onProgress({ phase: 'dataset', fraction: p.episodes ? p.episodesDone / p.episodes : 1, rows: p.rows }),
      onEncodeProgress: (p) => onProgress({ phase: 'dataset', fraction: p.of ? p.rows / p.of : 1, rows: p.rows }),
    });
    const encoderCard: EncoderCard = await enc.describe();
    assertTrainable(data);
    // The mtrouter profile also trains the reference's network (two-layer attribute MLP, zero residuals, its L2).
    const network = profile === 'mtrouter' ? { ...TRAIN_DEFAULTS, ...MTROUTER_TRAIN_CONFIG } : TRAIN_DEFAULTS;
    const maxEpochs = req.maxEpochs ?? network.maxEpochs;
    const patience = req.patience ?? network.patience;
    let last: EpochProgress | null = null;
    const { weights, metrics } = trainEstimator(data, {
      ...network,
      seed: req.seed ?? 0,
      maxEpochs,
      patience,
      onEpoch: (p) => {
        last = p;
        onProgress({ phase: 'training', fraction: p.epoch / maxEpochs, epoch: p.epoch, maxEpochs, last: p });
      },
      onBatch: (b) => onProgress({ phase: 'training', fraction: (b.epoch - 1 + b.fraction) / maxEpochs, epoch: b.epoch, maxEpochs, last }),
    });

    onProgress({ phase: 'exporting', fraction: 0 });
    const onnxPath = resolve(req.out);
    writeOnnx(weights, onnxPath);
    const bytes = readFileSync(onnxPath);

    onProgress({ phase: 'evaluating', fraction: 0 });
    let quality: DecisionQuality | null = null;
    let heldOutSpearman: number | null = metrics.validationRows > 1 ? metrics.valSpearman : null;
    const { validation } = splitRows(data);
    if (validation.length > 0) {
      const scorer = await openScorer(bytes, { ep: 'cpu' });
      try {
        const K = data.models.length;
        const scores = new Float32Array(validation.length * K);
        const step = 4096;
        for (let i = 0; i < validation.length; i += step) {
          const rows = validation.subarray(i, Math.min(i + step, validation.length));
          scores.set(await scorer.score(denseRows(data, rows), rows.length), i * K);
          onProgress({ phase: 'evaluating', fraction: Math.min(1, (i + step) / validation.length) });
        }
        // ŝ of the logged model vs S̃, from the exported graph (the trainer's own figure is from its float64 net).
        const logged = Float64Array.from(validation, (r, i) => scores[i * K + (data.model[r] as number)] as number);
        const targets = Float64Array.from(validation, (r) => data.target[r] as number);
        if (validation.length > 1) heldOutSpearman = spearman(logged, targets);
        if (truth) quality = decisionQuality(data.models, scores, heldOutTurns(db, data, validation), truth);
      } finally {
        await scorer.close();
      }
    }

    const runs = req.runs?.length ? req.runs : (db.prepare('SELECT name FROM runs ORDER BY id').pluck().all() as string[]);
    const card: ModelCard = {
      schema: MODEL_CARD_SCHEMA,
      name: req.name ?? basename(onnxPath).replace(/\.onnx$/i, ''),
      created_at: new Date().toISOString(),
      onnx_file: basename(onnxPath),
      onnx_sha256: sha256(bytes),
      encoder: { name: enc.spec, history_dim: data.historyDim, max_history_tokens: maxTokens },
      profile,
      models: data.models,
      config: {
        ...network,
        seed: req.seed ?? 0,
        maxEpochs,
        patience,
        encoder: encoderCard,
        model_features: data.modelFeatureStats,
      },
      data: {
        database: basename(req.dbPath),
        runs,
        ...(req.split === undefined ? {} : { split: req.split }),
        task_types: trainingTaskTypes(db, req.runs ?? [], req.split),
        episodes: data.summary.episodes,
        train_episodes: data.summary.trainEpisodes,
        validation_episodes: data.summary.validationEpisodes,
        train_rows: data.summary.trainRows,
        validation_rows: data.summary.validationRows,
        skipped_episodes_no_outcome: data.summary.skippedEpisodesNoOutcome,
        skipped_turns_outside_pool: data.summary.skippedTurnsOutsidePool,
      },
      metrics: {
        val_mae: metrics.valMae,
        val_spearman: heldOutSpearman !== null && Number.isFinite(heldOutSpearman) ? heldOutSpearman : null,
        baseline_mae: Number.isFinite(metrics.baselineMae) ? metrics.baselineMae : null,
        train_mae: metrics.trainMae,
        epochs: metrics.epochs,
        best_epoch: metrics.bestEpoch,
        stopped: metrics.stopped,
        train_rows_per_second: metrics.rowsPerSecond,
        seconds: metrics.seconds,
        history: metrics.history.map((h) => ({ epoch: h.epoch, trainLoss: h.trainLoss, valMae: h.valMae, lr: h.lr, bestEpoch: h.bestEpoch, seconds: h.seconds })),
      },
      decision_quality: quality,
    };
    const cardPath = modelCardPath(onnxPath);
    writeModelCard(cardPath, card);
    const estimatorId = registerEstimator(db, onnxPath, bytes);
    return { card, cardPath, onnxPath, estimatorId };
  } catch (e) {
    // Said against the database the user named, so the one line says where the data falls short.
    if (e instanceof TrainingDataError) throw new TrainingDataError(`${req.dbPath}: ${e.message}`);
    throw e;
  } finally {
    await enc?.close();
    db.close();
  }
}
