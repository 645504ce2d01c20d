/**
 * The replay part of the API contract (DESIGN §7; issue 7): offline replay of routing policies over logged
 * runs, off-policy evaluation, paired diffs and per-turn choices for the step debugger. The engine lives in
 * electron/replay/; `routelens replay --json` prints exactly a `ReplayResult`.
 *
 * Conventions every call shares:
 * - A policy is a spec string (shared/policySpec.ts); specs are checked here, so a bad one is an input error
 *   that names the spec.
 * - ŝ(h_t, a) comes from an estimator's `estimates` (the one named, else the newest covering every turn of
 *   the selected runs); without one, score-driven policies use the log's candidate scores (`turn_candidates`)
 *   and the direct-method and doubly-robust numbers are null. `s_hat_source` says which.
 * - Values are the episode's normalised final score (score_norm, in [0, 1]); costs are USD per episode.
 * - Intervals are 95% percentile intervals of an episode bootstrap (seeded: the same seed gives the same
 *   numbers); null where the point estimate is null.
 */
import { z } from 'zod';
import { ExportFigureResult, FigureFormat } from './apiAnalysis.ts';
import { nameRecord } from './nameRecord.ts';
import { parsePolicySpec, PolicySpecError } from './policySpec.ts';
import { TURN_PAGE } from './turnPage.ts';

const id = z.number().int().nonnegative();
const interval = z.tuple([z.number(), z.number()]);

/** A policy spec string, validated with the shared parser (the message names the spec and the problem). */
export const PolicySpecString = z
  .string()
  .max(500)
  .superRefine((s, ctx) => {
    try {
      parsePolicySpec(s);
    } catch (e) {
      if (!(e instanceof PolicySpecError)) throw e;
      ctx.addIssue({ code: 'custom', message: e.message });
    }
  });

/** Where ŝ came from: an estimator's estimates, the log's router scores, or nowhere. */
export const SHatSource = z.enum(['estimator', 'logged_candidates', 'none']);
export type SHatSource = z.infer<typeof SHatSource>;

export const EstimatorRef = z.object({ id, name: z.string(), created_at: z.string() });
export type EstimatorRef = z.infer<typeof EstimatorRef>;

const replayOptions = {
  /** Runs to replay over (ids, as in `listRuns`); empty or omitted = every run. */
  runIds: z.array(id).max(1000).default([]),
  /** An estimator id; omitted = the newest estimator that covers every turn of the selected runs. */
  estimator: id.optional(),
  /** Bootstrap resamples for the intervals (0 = no intervals). */
  bootstrap: z.number().int().min(0).max(10_000).default(1000),
  seed: z.number().int().min(0).max(2 ** 31 - 1).default(1),
};

export const ReplayInput = z.object({
  ...replayOptions,
  policies: z.array(PolicySpecString).min(1).max(20),
});
export type ReplayInput = z.input<typeof ReplayInput>;

/**
 * Off-policy estimates of the policy's value from logged propensities (null when no replayed episode has a
 * propensity on every turn). Per-decision importance weights ρ_t = π(a_t|h_t)/μ(a_t|h_t) with μ the logged
 * propensity; with only a terminal score, per-decision IPS is the trajectory-wise estimator.
 */
export const OpeResult = z.object({
  /** Episodes with a logged propensity on every turn (the only ones OPE uses). */
  n: z.number().int(),
  /** Per-decision IPS; null when the log has no support for the policy (support.ips says why). */
  ips: z.number().nullable(),
  /** Weighted (self-normalised) IPS; null when no episode has a non-zero weight or the log has no support. */
  wis: z.number().nullable(),
  /** Doubly robust (Jiang & Li 2016) with ŝ as Q̂; null without an estimator or without support. */
  dr: z.number().nullable(),
  /** Kish effective sample size (Σw)²/Σw² of the episodes' importance weights. */
  ess: z.number(),
  ci: z.object({ ips: interval.nullable(), wis: interval.nullable(), dr: interval.nullable() }),
  /**
   * Why each estimate is missing or not to be trusted, null when it stands: "no support …" (a deterministic logger
   * whose choices the policy departs from, or every weight 0: the value is null) or "insufficient support …" (an
   * effective sample size under 10, or a value outside the score range: the value is kept for the record but is not
   * the policy's score and is never drawn on the frontier).
   */
  support: z.object({ ips: z.string().nullable(), wis: z.string().nullable(), dr: z.string().nullable() }),
});
export type OpeResult = z.infer<typeof OpeResult>;

export type OpeEstimate = 'ips' | 'wis' | 'dr';

/**
 * The support reasons of a policy's estimates, each said once with the estimates it holds for (in IPS, WIS, DR
 * order); `keep` leaves some estimates out (the CLI keeps only those with a value).
 */
export function supportByReason(ope: OpeResult, keep: (key: OpeEstimate) => boolean = () => true): [string, OpeEstimate[]][] {
  const byReason = new Map<string, OpeEstimate[]>();
  for (const key of ['ips', 'wis', 'dr'] as const) {
    const why = ope.support[key];
    if (why !== null && keep(key)) byReason.set(why, [...(byReason.get(why) ?? []), key]);
  }
  return [...byReason];
}

export const DivergenceBin = z.object({ t: z.number().int(), n: z.number().int() });

export const PolicyReplay = z.object({
  /** The spec in canonical spelling. */
  policy: z.string(),
  label: z.string(),
  episodes: z.number().int(),
  turns: z.number().int(),
  /** Share of replayed turns where the policy chose the logged model. */
  agreement: z.number(),
  /** Share of episodes where it chose the logged model at every turn. */
  episode_agreement: z.number(),
  /** First turn where the policy's choice differs from the log, per episode. */
  first_divergence: z.object({
    histogram: z.array(DivergenceBin),
    /** Episodes where it never differs. */
    never: z.number().int(),
    median: z.number().nullable(),
  }),
  /** Direct method: mean over episodes of V̂(h_0) = Σ_a π(a|h_0) ŝ(h_0, a); null without an estimator. */
  est_score: z.number().nullable(),
  est_score_ci: interval.nullable(),
  /**
   * Mean estimated cost per episode (session, subagents folded in): each turn's tokens at the chosen model's prices,
   * output scaled by the learned length ratio (logged cost where the choice is the logged model). Episodes whose
   * cost is unknown under the policy are left out (a note counts them); null when every one is unknown.
   */
  est_cost: z.number().nullable(),
  est_cost_ci: interval.nullable(),
  /** Mean model switches per episode along the replayed choices. */
  switches: z.number(),
  /** Share of replayed turns given to each model. */
  usage: nameRecord(z.number()),
  ope: OpeResult.nullable(),
  /** Fitted parameters and caveats (fitted ξ_k, turns priced without a price, …). */
  notes: z.array(z.string()),
});
export type PolicyReplay = z.infer<typeof PolicyReplay>;

/** One point of the score / cost plane: the best available score estimate of a policy. */
export const FrontierPoint = z.object({
  policy: z.string(),
  cost: z.number(),
  cost_ci: interval.nullable(),
  score: z.number(),
  score_ci: interval.nullable(),
  /** Which estimate `score` is: doubly robust, weighted IPS, or direct method (in that preference). */
  score_source: z.enum(['dr', 'wis', 'dm']),
  /** Not dominated (lower-or-equal cost and higher-or-equal score, one strictly) by another point. */
  frontier: z.boolean(),
});
export type FrontierPoint = z.infer<typeof FrontierPoint>;

export const ReplayResult = z.object({
  runs: z.array(z.object({ id, name: z.string() })),
  estimator: EstimatorRef.nullable(),
  s_hat_source: SHatSource,
  episodes: z.number().int(),
  turns: z.number().int(),
  /** What actually happened in the selected runs, for reference. */
  logged: z.object({
    /** Mean score_norm over the episodes with an outcome; null when none has one. */
    score: z.number().nullable(),
    /** Mean logged cost over the episodes whose cost is known; null when none is. */
    cost: z.number().nullable(),
    /** Episodes (sessions) without an outcome, and with an unknown cost: left out of the means above. */
    unknown_outcome: z.number().int().optional(),
    unknown_cost: z.number().int().optional(),
  }),
  /** Per model: expected output tokens relative to the pool's typical model (learned from the logs). */
  output_ratio: nameRecord(z.number()),
  policies: z.array(PolicyReplay),
  /** One point per policy with a score estimate. */
  frontier: z.array(FrontierPoint),
  bootstrap: z.number().int(),
  seed: z.number().int(),
  /** About the data as a whole: estimators not used, models without prices or output lengths. */
  notes: z.array(z.string()),
});
export type ReplayResult = z.infer<typeof ReplayResult>;

/** Two policies over the same runs, or two runs paired by task id (k-th episode of a task with the k-th). */
export const PolicyDiffInput = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('policies'), a: PolicySpecString, b: PolicySpecString, ...replayOptions, limit: z.number().int().min(0).max(100_000).default(1000) }),
  z.object({
    kind: z.literal('runs'),
    runA: id,
    runB: id,
    estimator: id.optional(),
    bootstrap: replayOptions.bootstrap,
    seed: replayOptions.seed,
    limit: z.number().int().min(0).max(100_000).default(1000),
  }),
]);
export type PolicyDiffInput = z.input<typeof PolicyDiffInput>;

/**
 * A turn where A and B chose differently. For two policies both choose at the same logged history, and
 * Δŝ = ŝ(h_t, b) − ŝ(h_t, a). For two runs each side is its own episode of the task, aligned by t, and
 * Δŝ = ŝ(h^B_t, b) − ŝ(h^A_t, a); a side whose episode has ended has choice null (and Δŝ null).
 */
export const DiffRow = z.object({
  episode: id,
  /** Runs mode: B's episode of the same task (null in policies mode). */
  episode_b: id.nullable(),
  ext_id: z.string(),
  task_id: z.string().nullable(),
  t: z.number().int(),
  a: z.string().nullable(),
  b: z.string().nullable(),
  delta_s_hat: z.number().nullable(),
});
export type DiffRow = z.infer<typeof DiffRow>;

const estimateWithCi = z.object({ estimate: z.number().nullable(), ci: interval.nullable() });

export const PolicyDiffResult = z.object({
  kind: z.enum(['policies', 'runs']),
  a: z.string(),
  b: z.string(),
  estimator: EstimatorRef.nullable(),
  s_hat_source: SHatSource,
  summary: z.object({
    /** Episodes (policies) or matched task pairs (runs). */
    pairs: z.number().int(),
    /** Aligned turns compared, and those where the choices differ. */
    turns: z.number().int(),
    disagreements: z.number().int(),
    disagreement_rate: z.number(),
    /** Mean Δŝ over disagreeing turns (B − A), episode-bootstrap CI. */
    mean_delta_s_hat: estimateWithCi,
    /**
     * B − A in value: policies — the best estimate the log supports for both (dr, wis, else dm), paired over episodes;
     * runs — the realised score_norm difference over matched tasks.
     */
    delta_score: estimateWithCi.extend({ method: z.enum(['dr', 'wis', 'dm', 'logged']).nullable() }),
    /** B − A in cost per episode (estimated for policies, logged for runs). */
    delta_cost: estimateWithCi,
    /**
     * Pairs left out of delta_score because a side has no outcome (runs: a logged episode without an outcome
     * cannot be compared), and of delta_cost because a side's cost is unknown.
     */
    unknown_outcome: z.number().int().optional(),
    unknown_cost: z.number().int().optional(),
  }),
  /** Disagreeing turns in episode then turn order; at most `limit`. */
  rows: z.array(DiffRow),
  total_rows: z.number().int(),
});
export type PolicyDiffResult = z.infer<typeof PolicyDiffResult>;

export const EpisodePolicyChoicesInput = z.object({
  episode: id,
  policies: z.array(PolicySpecString).max(20),
  estimator: id.optional(),
  /**
   * Runs whose turns fit the data-dependent parts (usage ξ_k, output-length ratios); omitted = the
   * episode's own run, so the debugger shows the same choices a replay of that run makes.
   */
  runIds: z.array(id).max(1000).optional(),
  /**
   * Only turns `from`…`from + count - 1` (by position) in the answer, each chosen along the whole logged history: a
   * long episode's debugger asks for the page it shows (a million turns' choices were 200 MB).
   */
  from: z.number().int().nonnegative().optional(),
  count: z.number().int().min(1).max(TURN_PAGE).optional(),
});
export type EpisodePolicyChoicesInput = z.input<typeof EpisodePolicyChoicesInput>;

export const TurnPolicyChoices = z.object({
  t: z.number().int(),
  turn_id: id,
  logged: z.string(),
  propensity: z.number().nullable(),
  /** ŝ of each candidate (empty without scores). */
  s_hat: nameRecord(z.number()),
  /** Estimated cost of this turn per candidate (USD). */
  cost: nameRecord(z.number()),
  /** max_a ŝ − ŝ(logged); null when ŝ of the logged model is unknown. */
  regret: z.number().nullable(),
  /** Per policy, in the order asked: its choice at this turn along the logged history. */
  choices: z.array(z.string()),
});
export type TurnPolicyChoices = z.infer<typeof TurnPolicyChoices>;

export const EpisodePolicyChoices = z.object({
  episode: id,
  estimator: EstimatorRef.nullable(),
  s_hat_source: SHatSource,
  /** Canonical specs, in the order asked. */
  policies: z.array(z.object({ policy: z.string(), label: z.string() })),
  turns: z.array(TurnPolicyChoices),
});
export type EpisodePolicyChoices = z.infer<typeof EpisodePolicyChoices>;

const finite = z.number().finite();
const bounds = z.tuple([finite, finite]).readonly();

/** The policy lab's score/cost figure as drawn (shared/charts/layouts/policyFrontier.ts), sent to be drawn to a file. */
export const FrontierFigureInput = z.object({
  policies: z
    .array(
      z.object({
        policy: z.string().min(1).max(300),
        cost: finite.nullable(),
        score: finite.nullable(),
        ci: bounds.nullable(),
        costCi: bounds.nullable().optional(),
        color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour is #rrggbb'),
        missing: z.string().max(500).optional(),
        details: z.array(z.string().max(300)).max(20).optional(),
      }),
    )
    .max(200),
  estimator: z.string().min(1).max(100),
});

export const ExportFrontierFigureRequest = z.object({
  figure: FrontierFigureInput,
  /** The replayed runs' names, for the caption and the file name. */
  runs: z.array(z.string().max(300)).max(1000),
  format: FigureFormat,
  theme: z.enum(['light', 'dark']).default('light'),
  width: z.number().int().min(200).max(4000).optional(),
  scale: z.number().min(0.25).max(8).optional(),
  dpi: z.number().int().min(36).max(1200).optional(),
});
export type ExportFrontierFigureRequest = z.input<typeof ExportFrontierFigureRequest>;

/** The contract entries for shared/api.ts. */
export const replayContract = {
  /** The policy lab's figure drawn as analysis figures are: SVG, PNG, vector PDF, or its points as CSV. */
  exportFrontierFigure: { input: ExportFrontierFigureRequest, output: ExportFigureResult },
  /** Replays policies over runs: agreement, DM / IPS / WIS / DR with CIs, cost, switches, frontier. */
  replay: { input: ReplayInput, output: ReplayResult },
  /** Two policies (or two runs by task id), turn-aligned: where they disagree, and the difference with CIs. */
  policyDiff: { input: PolicyDiffInput, output: PolicyDiffResult },
  /** One episode: per turn each policy's choice, the logged model, ŝ per candidate and the regret. */
  episodePolicyChoices: { input: EpisodePolicyChoicesInput, output: EpisodePolicyChoices },
} as const;
