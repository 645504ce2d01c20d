/**
 * The estimator part of the API contract (DESIGN §6–7; issue 5): the model card, the estimators of the open
 * database, background training and scoring jobs, and what-if at a turn. `routelens whatif --json` prints the
 * core of a `WhatIfResult`; `routelens train` writes a `ModelCard` beside the ONNX file.
 */
import { z } from 'zod';
import { EstimatorDomain, ExtrapolationReason, TrainingTaskType } from './estimatorDomain.ts';

const id = z.number().int().nonnegative();

/** Bounds of the window's training form: at most this many epochs, and the early-stop patience (epochs). */
export const MAX_TRAIN_EPOCHS = 1000;
/** MTRouter App. A: early stopping with patience 3. */
export const DEFAULT_TRAIN_PATIENCE = 3;

export const MODEL_CARD_SCHEMA = 'routelens-estimator-card/1';

/**
 * What the estimator reads (electron/estimator/inputProfile.ts): `routelens`, our history layout with its
 * structured features and our model features; `mtrouter`, the inputs of MTRouter's published estimator (its
 * history text layout and truncation, no structured features, its model attributes). A card records the
 * profile, and scoring rebuilds the same inputs from it.
 */
export const INPUT_PROFILES = ['routelens', 'mtrouter'] as const;
export type InputProfileName = (typeof INPUT_PROFILES)[number];
export const DEFAULT_INPUT_PROFILE: InputProfileName = 'routelens';

const EpochRecord = z.object({
  epoch: z.number(),
  trainLoss: z.number(),
  valMae: z.number(),
  lr: z.number(),
  bestEpoch: z.number(),
  seconds: z.number(),
});

/** electron/estimator/decisionQuality.ts: the estimator's choices valued under a simulator's planted truth. */
export const DecisionQuality = z.object({
  truth_preset: z.string(),
  turns: z.number(),
  /** Mean planted P(progress) of each policy's choices on the held-out turns; higher is better. */
  policies: z.array(z.object({ policy: z.string(), value: z.number() })),
  estimator_value: z.number(),
  best_other: z.object({ policy: z.string(), value: z.number(), margin: z.number() }),
  beats_every_single_model_and_random: z.boolean(),
  best_model_by_category: z.array(z.object({ category: z.string(), planted: z.string(), learned: z.string(), turns: z.number() })),
  categories_recovered: z.number(),
});
export type DecisionQuality = z.infer<typeof DecisionQuality>;

/** What a trained estimator is: data, encoder, training configuration and held-out metrics. */
export const ModelCard = z.object({
  schema: z.literal(MODEL_CARD_SCHEMA),
  name: z.string(),
  created_at: z.string(),
  onnx_file: z.string(),
  onnx_sha256: z.string(),
  encoder: z.object({ name: z.string(), history_dim: z.number(), max_history_tokens: z.number() }),
  /** Cards written before profiles existed were all `routelens`. */
  profile: z.enum(INPUT_PROFILES).default(DEFAULT_INPUT_PROFILE),
  models: z.array(z.string()),
  config: z.record(z.string(), z.unknown()),
  data: z.object({
    database: z.string(),
    runs: z.array(z.string()),
    /** The split selection (`--split`, shared/splits.ts) the estimator was trained on; absent: every split. */
    split: z.string().nullish(),
    /** Episodes per task type trained on (shared/estimatorDomain.ts); absent on cards written before it was recorded. */
    task_types: z.array(TrainingTaskType).optional(),
    episodes: z.number(),
    train_episodes: z.number(),
    validation_episodes: z.number(),
    train_rows: z.number(),
    validation_rows: z.number(),
    skipped_episodes_no_outcome: z.number(),
    skipped_turns_outside_pool: z.number(),
    /**
     * When the training database was simulated (scripts/train-default.ts): the simulator's preset, its seed and how
     * many episodes it wrote, of which `runs` hold `episodes`. Absent for a database of logs (and on older cards).
     */
    simulated: z.object({ preset: z.string(), seed: z.number().int(), episodes: z.number().int().nonnegative() }).optional(),
  }),
  metrics: z.object({
    /** Mean |ŝ(h_t, a_t) − S̃_t| over the held-out episodes' turns. */
    val_mae: z.number(),
    val_spearman: z.number().nullable(),
    /** The same MAE for a constant predictor (the mean training target): the bar to beat. */
    baseline_mae: z.number().nullable(),
    train_mae: z.number(),
    epochs: z.number(),
    best_epoch: z.number(),
    stopped: z.enum(['early', 'max_epochs']),
    train_rows_per_second: z.number(),
    seconds: z.number(),
    history: z.array(EpochRecord),
  }),
  /** Only for simulated data with its truth file. */
  decision_quality: DecisionQuality.nullable(),
});
export type ModelCard = z.infer<typeof ModelCard>;

export const EstimatorSummary = z.object({
  id,
  name: z.string(),
  created_at: z.string(),
  encoder: z.string(),
  /** Execution provider of the last `score` run (cuda, webgpu or cpu); null if never scored here. */
  provider: z.string().nullable(),
  scored_at: z.string().nullable(),
  scored_turns: z.number().int(),
  onnx_path: z.string().nullable(),
  /** The card beside the ONNX file, when it is there and valid. */
  card: ModelCard.nullable(),
  is_default: z.boolean(),
  /** What it was trained on, from its card (or, for an old card, the task types of its runs in this database). */
  domain: EstimatorDomain.nullable(),
});
export type EstimatorSummary = z.infer<typeof EstimatorSummary>;

export const EstimatorList = z.object({
  estimators: z.array(EstimatorSummary),
  /** The estimator shipped in models/ (what it was trained on is on its card: data.simulated), whether or not this database used it yet. */
  default_model: z.object({ path: z.string(), card: ModelCard.nullable(), domain: EstimatorDomain.nullable() }).nullable(),
  turns: z.number().int(),
  /**
   * The one estimator in use for this database: what-if, the step debugger, calibration and the policy lab
   * read ŝ from it. `chosen` false: nobody picked one, so it is the one that scored last (else the newest).
   * Null: the database has no estimator yet (what-if then registers the shipped default).
   */
  in_use: z.object({ id, chosen: z.boolean() }).nullable(),
});
export type EstimatorList = z.infer<typeof EstimatorList>;

export const EstimatorJobInput = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('train'),
    runs: z.array(z.string().max(300)).max(1000).optional(),
    seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
    maxEpochs: z.number().int().min(1).max(MAX_TRAIN_EPOCHS).optional(),
    /** Epochs without a better validation MAE before training stops. */
    patience: z.number().int().min(1).max(MAX_TRAIN_EPOCHS).optional(),
    name: z.string().regex(/^[\w.-]{1,80}$/, 'letters, digits, _ . - only').optional(),
    profile: z.enum(INPUT_PROFILES).optional(),
  }),
  z.object({
    kind: z.literal('score'),
    /** Omitted: the default estimator from models/. */
    estimatorId: id.optional(),
    ep: z.enum(['auto', 'cpu', 'cuda', 'webgpu']).optional(),
    runIds: z.array(id).max(1000).optional(),
  }),
]);
export type EstimatorJobInput = z.infer<typeof EstimatorJobInput>;

export const EstimatorJob = z.object({
  job: z.number().int(),
  kind: z.enum(['train', 'score']),
  state: z.enum(['running', 'done', 'failed', 'cancelled']),
  phase: z.string(),
  fraction: z.number(),
  message: z.string(),
  /** Training: one entry per finished epoch (the loss curves). */
  epochs: z.array(z.object({ epoch: z.number(), trainLoss: z.number(), valMae: z.number(), bestEpoch: z.number() })),
  provider: z.string().nullable(),
  rowsPerSec: z.number().nullable(),
  estimatorId: z.number().int().nullable(),
  error: z.string().nullable(),
});
export type EstimatorJob = z.infer<typeof EstimatorJob>;

/** Makes an estimator the one in use (stored in the database, so serve, the window and the CLI agree). */
export const SetEstimatorInUseInput = z.union([z.object({ estimatorId: id }), z.object({ default: z.literal(true) })]);
export type SetEstimatorInUseInput = z.infer<typeof SetEstimatorInUseInput>;

/** A new name for an estimator, shown wherever ŝ is (its ONNX file and card keep theirs); no control characters. */
export const RenameEstimatorInput = z.object({
  estimatorId: id,
  name: z.string().trim().min(1, 'a name is needed').max(80).regex(/^[^\p{C}]+$/u, 'no control or invisible characters'),
});
export type RenameEstimatorInput = z.infer<typeof RenameEstimatorInput>;

export const WhatIfInput = z.object({
  episodeId: id,
  turn: z.number().int().nonnegative(),
  estimatorId: id.optional(),
  k: z.number().int().min(1).max(50).optional(),
});

export const WhatIfResult = z.object({
  episode: z.string(),
  episode_id: id,
  turn: z.number().int(),
  logged_model: z.string(),
  /** The episode's task type (null: the log names none). */
  task_type: z.string().nullable(),
  /** The estimator's training domain, and why ŝ here is extrapolation (empty: inside it). */
  domain: EstimatorDomain.nullable(),
  extrapolation: z.array(ExtrapolationReason),
  /** The execution provider that computed ŝ, or 'stored' for estimates of an earlier run with an unknown one. */
  provider: z.string(),
  estimator: z.object({ id, name: z.string() }),
  source: z.enum(['estimates', 'computed']),
  logged_cost_usd: z.number(),
  candidates: z.array(
    z.object({
      model: z.string(),
      s_hat: z.number(),
      delta: z.number().nullable(),
      cost_usd: z.number().nullable(),
      neighbours: z.array(
        z.object({
          episode: z.string(),
          episode_id: id,
          turn: z.number().int(),
          outcome: z.number().nullable(),
          success: z.boolean().nullable(),
          similarity: z.number(),
          /** Whether the neighbour's episode has this turn's task type (those come first). */
          same_task_type: z.boolean(),
        }),
      ),
    }),
  ),
  sketched_turns: z.number().int(),
});
export type WhatIfResult = z.infer<typeof WhatIfResult>;

export const estimatorContract = {
  /** The estimators this database knows, with their model cards, and the shipped default. */
  listEstimators: { input: z.object({}), output: EstimatorList },
  /** Starts training (on the selected runs) or scoring in the background; poll `estimatorJobStatus`. */
  startEstimatorJob: { input: EstimatorJobInput, output: EstimatorJob },
  estimatorJobStatus: { input: z.object({ job: z.number().int().nonnegative() }), output: EstimatorJob },
  cancelEstimatorJob: { input: z.object({ job: z.number().int().nonnegative() }), output: EstimatorJob },
  /** Makes one estimator the one in use; answers the list as it now stands. */
  setEstimatorInUse: { input: SetEstimatorInUseInput, output: EstimatorList },
  /** Gives an estimator a new name; answers the list as it now stands. */
  renameEstimator: { input: RenameEstimatorInput, output: EstimatorList },
  /** For every candidate model at one turn: ŝ, Δŝ vs the logged model, the turn's cost on it, nearest logged evidence. */
  whatIf: { input: WhatIfInput, output: WhatIfResult },
} as const;
