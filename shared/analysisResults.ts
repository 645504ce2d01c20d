/**
 * What every analysis of DESIGN §8 returns, as zod schemas with inferred types, and the one request that
 * names an analysis with its parameters. The pure functions in electron/analysis/ return these types, the
 * CLI prints them (`routelens analyze ID --json` prints exactly the `result`), the API carries them
 * (`runAnalysis`), and the chart layouts in shared/charts/layouts/ read them. Changing a shape here changes
 * the CLI's JSON, so these follow the functions, not the other way round.
 */
import { z } from 'zod';
import { BEHAVIOUR_MODES } from './behaviourModes.ts';
import { nameRecord } from './nameRecord.ts';

const interval = z.tuple([z.number(), z.number()]);
const share = z.number().nullable();

/**
 * Most runs one figure draws (in run colours, or side by side in `by_run`): more panels than this are too
 * small to read and too slow to compute (lift bootstraps each), and the run palette has this many colours.
 * Only runs the request names are put side by side: the drawn ones (`draw`), and the rest are listed in
 * `by_run_omitted` so the figure can say so.
 */
export const SIDE_BY_SIDE_MAX = 6;
/** Compared runs left out of `by_run` (past SIDE_BY_SIDE_MAX); they still count in the pooled table. */
const byRunOmitted = z.array(z.string()).optional();

/**
 * What an episode-level analysis could not use (issue 15): outcomes and costs that the logs do not give are
 * unknown, never failure or $0, so those episodes are left out of success rates, score means and cost means,
 * and counted here for the figure's note. Sessions only: a child episode (subagent, compaction) is part of its
 * parent's session, its cost folded into the parent's.
 */
export const EpisodeCoverage = z.object({
  /** Sessions the analysis looked at (after its own filter, e.g. successful ones for switch-cost). */
  episodes: z.number().int(),
  /** Of them, with no outcome: left out of scores and success rates, not counted as failures. */
  unknown_outcome: z.number().int(),
  /** Of them, with an unknown cost: left out of cost means (pareto and switch-cost: among those with the outcome they use). */
  unknown_cost: z.number().int(),
});
export type EpisodeCoverage = z.infer<typeof EpisodeCoverage>;
const coverage = EpisodeCoverage.optional();

// ---- lift (MTRouter Fig. 6) ----
export const LiftCell = z.object({
  model: z.string(),
  /** The turn's tool, else its action type. */
  category: z.string(),
  lift: z.number(),
  /** Episode-bootstrap 95% interval. */
  ci: interval,
  /** Turns with this model and category. */
  n: z.number(),
});
export type LiftCell = z.infer<typeof LiftCell>;
export const LiftResult = z.object({
  /** Over all selected runs together. */
  cells: z.array(LiftCell),
  /**
   * The same table per run, for side-by-side figures: filled by `runAnalysis` (API, export) when the request
   * names several runs; `routelens analyze lift --json` leaves it out.
   */
  by_run: z.array(z.object({ run: z.string(), cells: z.array(LiftCell) })).optional(),
  by_run_omitted: byRunOmitted,
  /** Named runs whose turns all ran on one model (lift 1 for every tool): listed instead of drawn as panels. */
  by_run_single_model: z.array(z.object({ run: z.string(), model: z.string() })).optional(),
});
export type LiftResult = z.infer<typeof LiftResult>;

// ---- error-recovery (MTRouter Fig. 4) ----
export const RecoveryGroup = z.object({
  run: z.string(),
  /** Pairs (t, t+1) whose turn t has an error. */
  n: z.number().int(),
  p_switch: share,
  p_recover: share,
  p_recover_stay: share,
  p_recover_switch: share,
  n_stay: z.number().int(),
  n_switch: z.number().int(),
  /** Wilson 95% intervals. */
  ci: z.object({ p_switch: interval, p_recover: interval, p_recover_stay: interval, p_recover_switch: interval }),
});
export type RecoveryGroup = z.infer<typeof RecoveryGroup>;
export const ErrorRecoveryResult = z.object({ groups: z.array(RecoveryGroup) });
export type ErrorRecoveryResult = z.infer<typeof ErrorRecoveryResult>;

// ---- usage-by-turn (MTRouter Fig. 5) ----
export const UsageByTurnRun = z.object({
  run: z.string(),
  /** Shares of each model at turn index t; they sum to 1 per index. */
  turns: z.array(z.object({ t: z.number().int(), n: z.number().int(), shares: nameRecord(z.number()) })),
});
export type UsageByTurnRun = z.infer<typeof UsageByTurnRun>;
export const UsageByTurnResult = z.object({ runs: z.array(UsageByTurnRun) });
export type UsageByTurnResult = z.infer<typeof UsageByTurnResult>;

// ---- switch-cost (MTRouter Fig. 3) ----
export const SwitchCostRun = z.object({
  run: z.string(),
  /** Successful episodes: `episode` is the log's episode id (ext_id). */
  episodes: z.array(z.object({ episode: z.string(), switches: z.number().int(), cost: z.number(), turns: z.number().int() })),
  /**
   * Mean over the successful episodes still running at t of their cost up to and including turn t; an episode
   * with a turn of unknown cost is left out of the curve (its later sums would be lower bounds).
   */
  mean_cumulative_cost: z.array(z.object({ t: z.number().int(), mean: z.number(), n: z.number().int() })),
});
export type SwitchCostRun = z.infer<typeof SwitchCostRun>;
export const SwitchCostResult = z.object({
  runs: z.array(SwitchCostRun),
  /** Sessions of the selection; unknown_cost counts successful ones left out of the scatter (cost unknown). */
  coverage,
});
export type SwitchCostResult = z.infer<typeof SwitchCostResult>;

// ---- pareto ----
export const ParetoPoint = z.object({
  run: z.string(),
  /** Sessions with both a known outcome and a known cost: the means are over these. */
  n: z.number().int(),
  mean_score: z.number(),
  mean_cost: z.number(),
  /** No other run scores at least as well for no more cost (and strictly better in one). */
  frontier: z.boolean(),
  /** 1 − mean_cost / reference mean_cost; null without a reference. */
  savings_vs_reference: z.number().nullable(),
  score_delta_vs_reference: z.number().nullable(),
  /**
   * The task types (benchmarks) of the run's sessions with a known outcome, by name: scores of different
   * task types are on scales of their own, and the figure says so when it mixes them. Filled by `runAnalysis`.
   */
  task_types: z.array(z.string()).optional(),
});
export type ParetoPoint = z.infer<typeof ParetoPoint>;
export const ParetoResult = z.object({
  reference: z.string().nullable(),
  points: z.array(ParetoPoint),
  /** unknown_outcome: sessions without a score; unknown_cost: scored sessions whose cost is unknown. */
  coverage,
});
export type ParetoResult = z.infer<typeof ParetoResult>;

// ---- budget-modes (CoRL) ----
const modeSummary = {
  n: z.number().int(),
  /** Over the sessions with a score; null when none has one. */
  mean_score: z.number().nullable(),
  /** Over the sessions with a known cost; null when none has one. */
  mean_cost: z.number().nullable(),
  /** Share of episodes with at least one call to a model other than the episode's first. */
  expert_call_ratio: z.number(),
  /**
   * 95% intervals: the means by an episode bootstrap (shared/bootstrapMean.ts; null under its minimum of values),
   * the ratio by Wilson's interval (null when there is no session).
   */
  ci: z.object({ mean_score: interval.nullable(), mean_cost: interval.nullable(), expert_call_ratio: interval.nullable() }),
};
export const BudgetModeRow = z.object({
  mode: z.string(),
  ...modeSummary,
  by_train_step: z.array(z.object({ train_step: z.number().int(), ...modeSummary })),
});
export type BudgetModeRow = z.infer<typeof BudgetModeRow>;
export const BudgetModesResult = z.object({
  /** Over all selected runs together. */
  modes: z.array(BudgetModeRow),
  /** Per run with budget modes, for side-by-side figures (filled by `runAnalysis` when several runs are compared). */
  by_run: z.array(z.object({ run: z.string(), modes: z.array(BudgetModeRow) })).optional(),
  by_run_omitted: byRunOmitted,
  /** Selected runs with sessions but none with a budget mode, by name: the figure names them as not drawn. */
  runs_without_modes: z.array(z.string()).optional(),
  /** Sessions with a budget mode: unknown_outcome have no score, unknown_cost an unknown cost. */
  coverage,
});
export type BudgetModesResult = z.infer<typeof BudgetModesResult>;

// ---- usage-ratio (critique-and-route controller) ----
export const UsageRatioRun = z.object({
  run: z.string(),
  calls: z.number().int(),
  usage: z.array(
    z.object({
      model: z.string(), calls: z.number().int(), ratio: z.number(), rho: z.number().nullable(), over_target: z.boolean().nullable(),
      /** Where ρ comes from: the request (set by the user), or the run's log (policy.usage_targets). Absent without ρ. */
      rho_from: z.enum(['request', 'log']).optional(),
    }),
  ),
  accuracy_by_max_turns: z.array(z.object({ max_turns: z.number().int(), n: z.number().int(), accuracy: z.number().nullable() })),
  /** Share of episodes with a turn limit that used all of it; null when none has a limit. */
  exhausted_turn_budget: z.number().nullable(),
  /** The usage targets ρ the run's episodes log (policy.usage_targets), when they state one set; absent otherwise. */
  logged_rho: nameRecord(z.number()).optional(),
});
export type UsageRatioRun = z.infer<typeof UsageRatioRun>;
export const UsageRatioResult = z.object({
  runs: z.array(UsageRatioRun),
  /** Sessions with a turn limit; unknown_outcome are left out of accuracy_by_max_turns. No cost is used. */
  coverage,
});
export type UsageRatioResult = z.infer<typeof UsageRatioResult>;

// ---- confusion (critique-and-route controller) ----
const confusionTables = {
  /** Per difficulty level: calls (n) and each model's share of them. */
  routing: z.array(z.object({ difficulty: z.number(), n: z.number().int(), shares: nameRecord(z.number()) })),
  /** Verdicts × whether the draft was correct, counts of turns. */
  verification: z.object({
    stop_correct: z.number().int(),
    stop_incorrect: z.number().int(),
    continue_correct: z.number().int(),
    continue_incorrect: z.number().int(),
  }),
};
export const ConfusionResult = z.object({
  ...confusionTables,
  /** Per run with data, for side-by-side figures (filled by `runAnalysis` when several runs are compared). */
  by_run: z.array(z.object({ run: z.string(), ...confusionTables })).optional(),
  by_run_omitted: byRunOmitted,
});
export type ConfusionResult = z.infer<typeof ConfusionResult>;

// ---- plan-dag (Uno-Orchestra) ----
export const BehaviourModeSchema = z.enum(BEHAVIOUR_MODES);
export const PlanRound = z.object({
  round: z.number().int(),
  nodes: z.array(z.object({ id: z.string(), model: z.string().nullable(), primitive: z.string().nullable(), status: z.string().nullable() })),
  /** depends_on edges, [src, dst]: dst depends on src. */
  edges: z.array(z.tuple([z.string(), z.string()])),
  /** Index t of the turn that planned this round (filled by `runAnalysis`, so a node click opens that turn). */
  turn: z.number().int().nullable().optional(),
});
export type PlanRound = z.infer<typeof PlanRound>;
/** One episode's plan: `plan-dag --episode ID`. */
export const PlanDagEpisodeResult = z.object({
  episode: z.string(),
  mode: BehaviourModeSchema.nullable(),
  rounds: z.array(PlanRound),
  /** The episode's run (filled by `runAnalysis`). */
  run: z.string().optional(),
});
export type PlanDagEpisodeResult = z.infer<typeof PlanDagEpisodeResult>;
export const PlanDagRunSummary = z.object({
  run: z.string(),
  episodes: z.number().int(),
  /** Share of the run's episodes in each behaviour mode, and 'none' for those in no mode. */
  mode_shares: nameRecord(z.number()),
  model_primitive: z.array(z.object({ model: z.string().nullable(), primitive: z.string().nullable(), n: z.number().int() })),
  mean_rounds_per_planned_episode: z.number(),
  mean_subtasks_per_round: z.number(),
});
export type PlanDagRunSummary = z.infer<typeof PlanDagRunSummary>;
/** Across runs: `plan-dag` without an episode. */
export const PlanDagSummaryResult = z.object({ runs: z.array(PlanDagRunSummary) });
export type PlanDagSummaryResult = z.infer<typeof PlanDagSummaryResult>;
export const PlanDagResult = z.union([PlanDagEpisodeResult, PlanDagSummaryResult]);
export type PlanDagResult = z.infer<typeof PlanDagResult>;
export const isPlanDagEpisode = (r: PlanDagResult): r is PlanDagEpisodeResult => 'rounds' in r;

// ---- targets (DESIGN §5) ----
export const TargetTurn = z.object({ t: z.number().int(), s_tilde: z.number().nullable(), penalty: z.number(), errors: z.array(z.string()) });
export type TargetTurn = z.infer<typeof TargetTurn>;
/** `episode` is the episode id the user gave (ext_id). */
export const TargetsResult = z.object({
  episode: z.string(),
  turns: z.array(TargetTurn),
  /** The episode's run (filled by `runAnalysis`, so a click on a turn opens it unambiguously). */
  run: z.string().optional(),
});
export type TargetsResult = z.infer<typeof TargetsResult>;

// ---- calibration (DESIGN §8: estimator ŝ against realised S̃) ----
export const CalibrationBin = z.object({
  /** ŝ range of the bin, [lo, hi) (the last bin includes hi; ŝ outside [0, 1] falls in the end bins). */
  lo: z.number(),
  hi: z.number(),
  /** Turns whose ŝ of the logged model falls in the bin. */
  n: z.number().int(),
  mean_s_hat: z.number().nullable(),
  mean_s_tilde: z.number().nullable(),
  /** Normal 95% interval of the mean S̃ (null below 2 turns). */
  ci: interval.nullable(),
});
export type CalibrationBin = z.infer<typeof CalibrationBin>;
const calibrationFit = {
  /** Turns with ŝ of their logged model and a known S̃ (episodes without an outcome have none). */
  n: z.number().int(),
  /** Mean |ŝ(h_t, a_t) − S̃_t|. */
  mae: z.number().nullable(),
  /** Spearman rank correlation of ŝ and S̃ (ties averaged). */
  spearman: z.number().nullable(),
  bins: z.array(CalibrationBin),
};
export const CalibrationRun = z.object({
  run: z.string(),
  ...calibrationFit,
  /**
   * The estimator was trained on this run of this database (its model card says so): the fit is in-sample.
   * Null when unknown (no card, or a card from another database).
   */
  in_training: z.boolean().nullable(),
});
export type CalibrationRun = z.infer<typeof CalibrationRun>;
export const CalibrationResult = z.object({
  /** The estimator whose ŝ is checked; null when none has scored the selected runs. */
  estimator: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  /** Why there is nothing to show, and what to do about it. */
  note: z.string().nullable(),
  /** The reason behind `note`, for views that word it themselves (absent: there is something to show). */
  reason: z.enum(['no_estimator', 'not_scored', 'model_not_candidate', 'no_outcome']).optional(),
  /** Task types of the selected runs the estimator never saw in training: its ŝ there is extrapolation. */
  outside_training: z.array(z.string()).optional(),
  /** Over all selected runs together. */
  overall: z.object(calibrationFit),
  runs: z.array(CalibrationRun),
  /** Sessions of the selection; unknown_outcome have no S̃ to check ŝ against. No cost is used. */
  coverage,
});
export type CalibrationResult = z.infer<typeof CalibrationResult>;

// ---- embeddings (MTRouter Fig. 7; DESIGN §8) ----
export const EmbeddingModelPoint = z.object({
  model: z.string(),
  /** Price tier from models/pool.json (budget, mid, premium); null when unknown. */
  tier: z.string().nullable(),
  x: z.number(),
  y: z.number(),
  /** Turns logged on this model in the selected runs. */
  turns: z.number().int(),
  price_in_per_m: z.number().nullable(),
  price_out_per_m: z.number().nullable(),
});
export type EmbeddingModelPoint = z.infer<typeof EmbeddingModelPoint>;
export const EmbeddingHistoryPoint = z.object({
  /** The log's episode id (ext_id), its database id (for the link) and run. */
  episode: z.string(),
  episode_id: z.number().int(),
  run: z.string(),
  turn: z.number().int(),
  /** The model the log chose at this turn. */
  model: z.string(),
  /** The episode's normalised final score; null when unknown. */
  outcome: z.number().nullable(),
  success: z.boolean().nullable(),
  x: z.number(),
  y: z.number(),
});
export type EmbeddingHistoryPoint = z.infer<typeof EmbeddingHistoryPoint>;
export const EmbeddingsResult = z.object({
  /** Whose z_a: an estimator of this database, or the default model shipped in models/. Null: none at all. */
  estimator: z.object({ id: z.number().int().nullable(), name: z.string(), source: z.enum(['database', 'default']) }).nullable(),
  note: z.string().nullable(),
  seed: z.number().int(),
  /** t-SNE of the estimator's model embeddings z_a (one point per candidate model). */
  models: z.object({ perplexity: z.number().nullable(), kl: z.number().nullable(), points: z.array(EmbeddingModelPoint) }),
  /** t-SNE of a seeded sample of the turns' 64-d history sketches (written by `routelens score`). */
  histories: z.object({
    color: z.enum(['model', 'outcome']),
    /** Sketched turns in the selected runs (the sample is drawn from these). */
    sketched: z.number().int(),
    perplexity: z.number().nullable(),
    kl: z.number().nullable(),
    points: z.array(EmbeddingHistoryPoint),
  }),
});
export type EmbeddingsResult = z.infer<typeof EmbeddingsResult>;

/**
 * Every analysis id, in the order of DESIGN §8 (`calibration` and `embeddings` read the estimator's output).
 */
export const ANALYSIS_IDS = [
  'pareto', 'switch-cost', 'error-recovery', 'usage-by-turn', 'lift', 'plan-dag', 'budget-modes', 'usage-ratio', 'confusion', 'targets',
  'calibration', 'embeddings',
] as const;
export const AnalysisId = z.enum(ANALYSIS_IDS);
export type AnalysisId = z.infer<typeof AnalysisId>;

/**
 * Note on `by_run`, `by_run_omitted`, `run` and `turn` fields: `runAnalysis` (API, export) adds them so figures
 * can put runs side by side and link marks to episodes; `routelens analyze --json` prints the analysis functions'
 * results without them. Everything else is identical.
 */

/** Result schema per analysis id. */
export const ANALYSIS_RESULTS = {
  pareto: ParetoResult,
  'switch-cost': SwitchCostResult,
  'error-recovery': ErrorRecoveryResult,
  'usage-by-turn': UsageByTurnResult,
  lift: LiftResult,
  'plan-dag': PlanDagResult,
  'budget-modes': BudgetModesResult,
  'usage-ratio': UsageRatioResult,
  confusion: ConfusionResult,
  targets: TargetsResult,
  calibration: CalibrationResult,
  embeddings: EmbeddingsResult,
} as const satisfies Record<AnalysisId, z.ZodType>;

export type AnalysisResultOf<A extends AnalysisId> = z.infer<(typeof ANALYSIS_RESULTS)[A]>;

const name = z.string().min(1).max(300);

/**
 * One analysis with its parameters, as the CLI flags, the window's controls and the exporter give it.
 * Parameters an analysis does not use are ignored by it.
 */
/** calibration's ŝ bins and embeddings' sample of histories: when a request names none, and their bounds. */
export const DEFAULT_CALIBRATION_BINS = 10;
export const MIN_CALIBRATION_BINS = 2;
export const MAX_CALIBRATION_BINS = 50;
export const DEFAULT_EMBEDDING_SAMPLE = 1000;
export const MAX_EMBEDDING_SAMPLE = 2000;

export const AnalysisRequest = z.object({
  id: AnalysisId,
  /** Run names; empty or absent = every run. */
  runs: z.array(name).max(1000).optional(),
  /** Only episodes of these data splits (shared/splits.ts: names or the groups `id` / `ood`, comma-separated). */
  split: z.string().min(1).max(200).optional(),
  /** lift: cells with fewer turns are left out (default 30). */
  minN: z.number().int().min(1).optional(),
  /** pareto: the run savings are measured against. */
  reference: name.optional(),
  /**
   * The runs figures draw in run colours or side by side, at most SIDE_BY_SIDE_MAX: the user's choice among the
   * selected runs. `runAnalysis` answers with the runs it drew (shared/drawnRuns.ts): these, or by default the
   * selected runs with the most scored sessions. Every figure of one selection draws and colours the same runs.
   */
  draw: z.array(name).max(SIDE_BY_SIDE_MAX).optional(),
  /** pareto: the cost axis, linear (default) or logarithmic (runs whose costs differ by orders of magnitude). Drawing only. */
  costAxis: z.enum(['linear', 'log']).optional(),
  /** usage-ratio: target usage share ρ_k per model. */
  rho: nameRecord(z.number().min(0).max(1), name).optional(),
  /** targets (required) and plan-dag (one episode's DAGs instead of the summary): the log's episode id. */
  episode: z.string().min(1).max(300).optional(),
  /** calibration, embeddings: the estimator (id in `estimators`); default the one that scored last. */
  estimator: z.number().int().nonnegative().optional(),
  /** calibration: equal-width ŝ bins over [0, 1] (default 10). */
  bins: z.number().int().min(MIN_CALIBRATION_BINS).max(MAX_CALIBRATION_BINS).optional(),
  /** embeddings: colour the turn histories by the chosen model (default) or the episode's outcome. */
  color: z.enum(['model', 'outcome']).optional(),
  /** embeddings: how many sketched turns to map (default 1,000; 0 maps the models only). */
  sample: z.number().int().min(0).max(MAX_EMBEDDING_SAMPLE).optional(),
  /** embeddings: seed of the sample and of t-SNE (default 0). */
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
});
export type AnalysisRequest = z.infer<typeof AnalysisRequest>;

const responseOf = <A extends AnalysisId>(a: A) =>
  z.object({ request: AnalysisRequest.extend({ id: z.literal(a) }), result: ANALYSIS_RESULTS[a] as (typeof ANALYSIS_RESULTS)[A] });

/** What `runAnalysis` answers: the request as understood, and the result of its analysis (narrowed by `request.id`). */
export const AnalysisResponse = z.union([
  responseOf('pareto'), responseOf('switch-cost'), responseOf('error-recovery'), responseOf('usage-by-turn'), responseOf('lift'),
  responseOf('plan-dag'), responseOf('budget-modes'), responseOf('usage-ratio'), responseOf('confusion'), responseOf('targets'),
  responseOf('calibration'), responseOf('embeddings'),
]);
export type AnalysisResponse = z.infer<typeof AnalysisResponse>;
