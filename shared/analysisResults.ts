/**
 * What every analysis of DESIGN §8 returns, as zod schemas with inferred types, and the one request that
 * names an analysis with its parameters. The pure functions in electron/analysis/ return these types, the
 * CLI prints them (`routelens analyze ID --json` prints exactly the `result`), the API carries them
 * (`runAnalysis`), and the chart layouts in shared/charts/layouts/ read them. Changing a shape here changes
 * the CLI's JSON, so these follow the functions, not the other way round.
 */
import { z } from 'zod';
import { BEHAVIOUR_MODES } from './behaviourModes.ts';

const interval = z.tuple([z.number(), z.number()]);
const share = z.number().nullable();

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
   * The same table per run, for side-by-side figures: filled by `runAnalysis` (API, export) when several runs
   * are compared; `routelens analyze lift --json` leaves it out.
   */
  by_run: z.array(z.object({ run: z.string(), cells: z.array(LiftCell) })).optional(),
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
  turns: z.array(z.object({ t: z.number().int(), n: z.number().int(), shares: z.record(z.string(), z.number()) })),
});
export type UsageByTurnRun = z.infer<typeof UsageByTurnRun>;
export const UsageByTurnResult = z.object({ runs: z.array(UsageByTurnRun) });
export type UsageByTurnResult = z.infer<typeof UsageByTurnResult>;

// ---- switch-cost (MTRouter Fig. 3) ----
export const SwitchCostRun = z.object({
  run: z.string(),
  /** Successful episodes: `episode` is the log's episode id (ext_id). */
  episodes: z.array(z.object({ episode: z.string(), switches: z.number().int(), cost: z.number(), turns: z.number().int() })),
  /** Mean over the successful episodes still running at t of their cost up to and including turn t. */
  mean_cumulative_cost: z.array(z.object({ t: z.number().int(), mean: z.number(), n: z.number().int() })),
});
export type SwitchCostRun = z.infer<typeof SwitchCostRun>;
export const SwitchCostResult = z.object({ runs: z.array(SwitchCostRun) });
export type SwitchCostResult = z.infer<typeof SwitchCostResult>;

// ---- pareto ----
export const ParetoPoint = z.object({
  run: z.string(),
  n: z.number().int(),
  mean_score: z.number(),
  mean_cost: z.number(),
  /** No other run scores at least as well for no more cost (and strictly better in one). */
  frontier: z.boolean(),
  /** 1 − mean_cost / reference mean_cost; null without a reference. */
  savings_vs_reference: z.number().nullable(),
  score_delta_vs_reference: z.number().nullable(),
});
export type ParetoPoint = z.infer<typeof ParetoPoint>;
export const ParetoResult = z.object({ reference: z.string().nullable(), points: z.array(ParetoPoint) });
export type ParetoResult = z.infer<typeof ParetoResult>;

// ---- budget-modes (CoRL) ----
const modeSummary = {
  n: z.number().int(),
  mean_score: z.number().nullable(),
  mean_cost: z.number(),
  /** Share of episodes with at least one call to a model other than the episode's first. */
  expert_call_ratio: z.number(),
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
});
export type BudgetModesResult = z.infer<typeof BudgetModesResult>;

// ---- usage-ratio (critique-and-route controller) ----
export const UsageRatioRun = z.object({
  run: z.string(),
  calls: z.number().int(),
  usage: z.array(
    z.object({ model: z.string(), calls: z.number().int(), ratio: z.number(), rho: z.number().nullable(), over_target: z.boolean().nullable() }),
  ),
  accuracy_by_max_turns: z.array(z.object({ max_turns: z.number().int(), n: z.number().int(), accuracy: z.number().nullable() })),
  /** Share of episodes with a turn limit that used all of it; null when none has a limit. */
  exhausted_turn_budget: z.number().nullable(),
});
export type UsageRatioRun = z.infer<typeof UsageRatioRun>;
export const UsageRatioResult = z.object({ runs: z.array(UsageRatioRun) });
export type UsageRatioResult = z.infer<typeof UsageRatioResult>;

// ---- confusion (critique-and-route controller) ----
const confusionTables = {
  /** Per difficulty level: calls (n) and each model's share of them. */
  routing: z.array(z.object({ difficulty: z.number(), n: z.number().int(), shares: z.record(z.string(), z.number()) })),
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
  mode_shares: z.record(z.string(), z.number()),
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

/**
 * Every analysis id, in the order of DESIGN §8. `calibration` and `embeddings` join when their functions
 * exist (they need the estimator).
 */
export const ANALYSIS_IDS = [
  'pareto', 'switch-cost', 'error-recovery', 'usage-by-turn', 'lift', 'plan-dag', 'budget-modes', 'usage-ratio', 'confusion', 'targets',
] as const;
export const AnalysisId = z.enum(ANALYSIS_IDS);
export type AnalysisId = z.infer<typeof AnalysisId>;

/**
 * Note on `by_run`, `run` and `turn` fields: `runAnalysis` (API, export) adds them so figures can put runs
 * side by side and link marks to episodes; `routelens analyze --json` prints the analysis functions'
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
} as const satisfies Record<AnalysisId, z.ZodType>;

export type AnalysisResultOf<A extends AnalysisId> = z.infer<(typeof ANALYSIS_RESULTS)[A]>;

const name = z.string().min(1).max(300);

/**
 * One analysis with its parameters, as the CLI flags, the window's controls and the exporter give it.
 * Parameters an analysis does not use are ignored by it.
 */
export const AnalysisRequest = z.object({
  id: AnalysisId,
  /** Run names; empty or absent = every run. */
  runs: z.array(name).max(1000).optional(),
  /** lift: cells with fewer turns are left out (default 30). */
  minN: z.number().int().min(1).optional(),
  /** pareto: the run savings are measured against. */
  reference: name.optional(),
  /** usage-ratio: target usage share ρ_k per model. */
  rho: z.record(name, z.number().min(0).max(1)).optional(),
  /** targets (required) and plan-dag (one episode's DAGs instead of the summary): the log's episode id. */
  episode: z.string().min(1).max(300).optional(),
});
export type AnalysisRequest = z.infer<typeof AnalysisRequest>;

const responseOf = <A extends AnalysisId>(a: A) =>
  z.object({ request: AnalysisRequest.extend({ id: z.literal(a) }), result: ANALYSIS_RESULTS[a] as (typeof ANALYSIS_RESULTS)[A] });

/** What `runAnalysis` answers: the request as understood, and the result of its analysis (narrowed by `request.id`). */
export const AnalysisResponse = z.union([
  responseOf('pareto'), responseOf('switch-cost'), responseOf('error-recovery'), responseOf('usage-by-turn'), responseOf('lift'),
  responseOf('plan-dag'), responseOf('budget-modes'), responseOf('usage-ratio'), responseOf('confusion'), responseOf('targets'),
]);
export type AnalysisResponse = z.infer<typeof AnalysisResponse>;
