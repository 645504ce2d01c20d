/**
 * `routelens train` end to end (issue 5 item 2): training rows from a database → the trainer → ONNX export →
 * held-out evaluation through the exported file itself (ONNX Runtime, so the metrics describe the artefact
 * users ship) → the model card beside the .onnx → the `estimators` row. Runs in a worker thread
 * (trainWorker.ts) for the CLI and the window; this module is plain and synchronous apart from ORT.
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { assertTrainable, TrainingDataError, type DatasetSummary, type TrainingRows, type TrainingSet } from './dataset.ts';
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
import { spearman, TRAIN_DEFAULTS, trainOnParts, type EpochProgress } from './train.ts';
import { wholeSet, type TrainingParts } from './trainingParts.ts';
import type { ModelFeatureStats } from './modelFeatures.ts';
import type { TrainingTaskType } from '../../shared/estimatorDomain.ts';
import { describeStore, type ClickHouseStoreUrl } from '../store/storeUrl.ts';

interface TrainRequestCommon {
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
  /** The simulation that made the database (preset, seed, episodes written), recorded on the card as data.simulated. */
  simulated?: ModelCard['data']['simulated'];
  name?: string;
}

/** Training from a SQLite database, or streamed from a ClickHouse store (storeTraining.ts) in bounded memory. */
export type TrainRequest = TrainRequestCommon &
  (
    | { dbPath: string; store?: undefined }
    | {
        store: ClickHouseStoreUrl;
        dbPath?: undefined;
        /** Turns read and encoded at once (storeTraining.ts). */
        partTurns?: number;
        /** The most held-out turns kept in memory. */
        maxValidationTurns?: number;
        /** Where the part files go while training. */
        spillDir?: string;
      }
  );

export type TrainProgress =
  | { phase: 'dataset'; fraction: number; rows: number; /** On a store: the part being read, of how many. */ part?: number; parts?: number }
  | { phase: 'training'; fraction: number; epoch: number; maxEpochs: number; last: EpochProgress | null }
  | { phase: 'evaluating' | 'exporting'; fraction: number };

export interface TrainOutcome {
  card: ModelCard;
  cardPath: string;
  onnxPath: string;
  /** The database's estimators row; null for a store, which keeps no estimators. */
  estimatorId: number | null;
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
export function denseRows(data: TrainingRows, rows: Int32Array): Float32Array {
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

/** What training needs from either store once the rows are built. */
interface PreparedRows {
  parts: TrainingParts;
  models: string[];
  modelFeatureStats: ModelFeatureStats;
  historyDim: number;
  summary: DatasetSummary;
  /** For decision quality: each held-out row's tool category and whether the turn before erred. */
  heldOut: (rows: Int32Array) => HeldOutTurn[];
  /** The card's `data.database`. */
  database: string;
  runs: string[];
  taskTypes: TrainingTaskType[];
  /** Registers the written estimator; null where the store keeps no estimators. */
  register: (onnxPath: string, bytes: Buffer) => number | null;
}

export async function trainToFile(req: TrainRequest, onProgress: (p: TrainProgress) => void = () => {}): Promise<TrainOutcome> {
  const truth = req.truthPath ? readTruth(req.truthPath) : null;
  if (req.store) return trainFromStore(req, truth, onProgress);
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
    assertTrainable(data);
    const runs = req.runs?.length ? req.runs : (db.prepare('SELECT name FROM runs ORDER BY id').pluck().all() as string[]);
    return await fitAndWrite(
      {
        parts: wholeSet(data),
        models: data.models,
        modelFeatureStats: data.modelFeatureStats,
        historyDim: data.historyDim,
        summary: data.summary,
        heldOut: (rows) => heldOutTurns(db, data, rows),
        database: basename(req.dbPath),
        runs,
        taskTypes: trainingTaskTypes(db, req.runs ?? [], req.split),
        register: (onnxPath, bytes) => registerEstimator(db, onnxPath, bytes),
      },
      enc, maxTokens, req, truth, onProgress,
    );
  } catch (e) {
    // Said against the database the user named, so the one line says where the data falls short.
    if (e instanceof TrainingDataError) throw new TrainingDataError(`${req.dbPath}: ${e.message}`);
    throw e;
  } finally {
    await enc?.close();
    db.close();
  }
}

/** Training streamed from a ClickHouse store: the rows built part by part and spilled, then trained on a part at a time. */
async function trainFromStore(
  req: Extract<TrainRequest, { store: ClickHouseStoreUrl }>, truth: PlantedTruth | null, onProgress: (p: TrainProgress) => void,
): Promise<TrainOutcome> {
  const profile = req.profile ?? DEFAULT_INPUT_PROFILE;
  const encoderSpec = req.encoder ?? HASH_ENCODER;
  if (encoderSpec !== HASH_ENCODER || profile !== DEFAULT_INPUT_PROFILE) {
    throw new TrainingDataError(
      `${describeStore(req.store)}: a ClickHouse store trains with the ${HASH_ENCODER} encoder and the ${DEFAULT_INPUT_PROFILE} profile ` +
        '(other encoders and profiles lay every history out again through the encoder, which is not streamed yet): train those on a SQLite database (--db)',
    );
  }
  const { ClickHouseStore } = await import('../store/clickhouse/schema/connection.ts');
  const { requireSchema } = await import('../store/clickhouse/schema/schema.ts');
  const { buildStoreTrainingSet } = await import('../store/clickhouse/queries/storeTraining.ts');
  const store = new ClickHouseStore(req.store);
  let enc: HistoryEncoder | null = null;
  let set: Awaited<ReturnType<typeof buildStoreTrainingSet>> | null = null;
  try {
    await requireSchema(store);
    enc = await openHistoryEncoder(encoderSpec, { profile });
    const maxTokens = req.maxHistoryTokens ?? enc.historyTokens;
    set = await buildStoreTrainingSet(store, {
      runs: req.runs,
      split: req.split,
      seed: req.seed ?? 0,
      maxHistoryTokens: maxTokens,
      profile: enc.profile,
      partTurns: req.partTurns,
      maxValidationTurns: req.maxValidationTurns,
      spillDir: req.spillDir,
      onProgress: (p) => onProgress({ phase: 'dataset', fraction: p.parts ? p.part / p.parts : 1, rows: p.rows, part: p.part, parts: p.parts }),
    });
    const built = set;
    assertTrainable({ models: built.models, summary: built.summary });
    return await fitAndWrite(
      {
        parts: built.parts,
        models: built.models,
        modelFeatureStats: built.modelFeatureStats,
        historyDim: built.parts.shape.historyDim,
        summary: built.summary,
        heldOut: (rows) => Array.from(rows, (r) => built.heldOut[r] as HeldOutTurn),
        database: store.shown,
        runs: built.runs,
        taskTypes: built.taskTypes,
        register: () => null,
      },
      enc, maxTokens, req, truth, onProgress,
    );
  } catch (e) {
    if (e instanceof TrainingDataError && !e.message.startsWith(store.shown)) throw new TrainingDataError(`${store.shown}: ${e.message}`);
    throw e;
  } finally {
    set?.parts.remove();
    await enc?.close();
    await store.close();
  }
}

/** Trains on the prepared rows, writes the ONNX file, scores the held-out rows through it and writes the card. */
async function fitAndWrite(
  prep: PreparedRows, enc: HistoryEncoder, maxTokens: number, req: TrainRequest, truth: PlantedTruth | null, onProgress: (p: TrainProgress) => void,
): Promise<TrainOutcome> {
  const profile = req.profile ?? DEFAULT_INPUT_PROFILE;
  const encoderCard: EncoderCard = await enc.describe();
  // The mtrouter profile also trains the reference's network (two-layer attribute MLP, zero residuals, its L2).
  const network = profile === 'mtrouter' ? { ...TRAIN_DEFAULTS, ...MTROUTER_TRAIN_CONFIG } : TRAIN_DEFAULTS;
  const maxEpochs = req.maxEpochs ?? network.maxEpochs;
  const patience = req.patience ?? network.patience;
  let last: EpochProgress | null = null;
  const { weights, metrics } = trainOnParts(prep.parts, {
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
  const { data, rows: validation } = prep.parts.validation;
  if (validation.length > 0) {
    const scorer = await openScorer(bytes, { ep: 'cpu' });
    try {
      const K = prep.models.length;
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
      if (truth) quality = decisionQuality(prep.models, scores, prep.heldOut(validation), truth);
    } finally {
      await scorer.close();
    }
  }

  const card: ModelCard = {
    schema: MODEL_CARD_SCHEMA,
    name: req.name ?? basename(onnxPath).replace(/\.onnx$/i, ''),
    created_at: new Date().toISOString(),
    onnx_file: basename(onnxPath),
    onnx_sha256: sha256(bytes),
    encoder: { name: enc.spec, history_dim: prep.historyDim, max_history_tokens: maxTokens },
    profile,
    models: prep.models,
    config: {
      ...network,
      seed: req.seed ?? 0,
      maxEpochs,
      patience,
      encoder: encoderCard,
      model_features: prep.modelFeatureStats,
    },
    data: {
      database: prep.database,
      runs: prep.runs,
      ...(req.split === undefined ? {} : { split: req.split }),
      task_types: prep.taskTypes,
      episodes: prep.summary.episodes,
      train_episodes: prep.summary.trainEpisodes,
      validation_episodes: prep.summary.validationEpisodes,
      train_rows: prep.summary.trainRows,
      validation_rows: prep.summary.validationRows,
      skipped_episodes_no_outcome: prep.summary.skippedEpisodesNoOutcome,
      skipped_turns_outside_pool: prep.summary.skippedTurnsOutsidePool,
      ...(req.simulated ? { simulated: req.simulated } : {}),
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
  const estimatorId = prep.register(onnxPath, bytes);
  return { card, cardPath, onnxPath, estimatorId };
}
