/**
 * The canonical trajectory format `routelens/v1` (DESIGN §3): one episode per JSON Lines line.
 * Every importer produces these objects and users can write them directly, so this schema is the
 * single definition; `routelens-v1.schema.json` beside it is generated from it (see canonicalJsonSchema.ts).
 */
import { z } from 'zod';

export const CANONICAL_SCHEMA = 'routelens/v1';

export const SEVERITIES = ['low', 'medium', 'high'] as const;
export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const count = z.number().int().nonnegative();

/** One detected or logged error at a turn. `severity` drives the AEC penalty (§5). */
export const TurnError = z.object({
  type: z.string().min(1).max(200),
  severity: Severity,
});
export type TurnError = z.infer<typeof TurnError>;

export const PlanSubtask = z.object({
  id: z.string().min(1).max(200),
  depends_on: z.array(z.string().max(200)).default([]),
  model: z.string().max(200).nullish(),
  primitive: z.string().max(100).nullish(),
  status: z.string().max(100).nullish(),
});

export const TurnPlan = z.object({
  round: count,
  subtasks: z.array(PlanSubtask),
});

export const TurnVerify = z.object({
  verdict: z.enum(['stop', 'continue']),
  correct: z.boolean().nullish(),
});

export const TurnAction = z.object({
  /** What kind of step this was: `tool`, `message`, `plan`, `verify`, `submit`… */
  type: z.string().min(1).max(100),
  /** Tool or command family (`bash`, `python`, `web_search`); the turn's category for lift. */
  tool: z.string().max(200).nullish(),
  text: z.string().nullish(),
});

export const CanonicalTurn = z.object({
  t: count,
  model: z.string().min(1).max(300),
  action: TurnAction,
  observation: z.string().nullish(),
  tokens: z
    .object({ in: count.nullish(), out: count.nullish(), cached: count.nullish() })
    .nullish(),
  cost_usd: finite.nonnegative().nullish(),
  latency_ms: finite.nonnegative().nullish(),
  /** Probability the logging router gave to the model it chose (for off-policy evaluation). */
  propensity: z.number().min(0).max(1).nullish(),
  /** Router scores / q-values per candidate model, when the log has them. */
  candidates: z.record(z.string().max(300), finite).nullish(),
  /**
   * The logging router's own account of a mixed decision (MTRouter's β-mixed collection router): the model its
   * learned policy ranked first, whether that greedy choice was taken, and β, the probability of taking it.
   * With these the logged propensity can be checked: β + (1 − β)/K for the greedy model, (1 − β)/K otherwise.
   */
  router: z
    .object({
      greedy_model: z.string().min(1).max(300).nullish(),
      was_greedy: z.boolean().nullish(),
      beta: z.number().min(0).max(1).nullish(),
    })
    .nullish(),
  /** Errors from the log. An empty array means "no errors"; absent or null means "detect with the rules". */
  errors: z.array(TurnError).nullish(),
  verify: TurnVerify.nullish(),
  plan: TurnPlan.nullish(),
});
export type CanonicalTurn = z.infer<typeof CanonicalTurn>;

export const GraderCall = z.object({
  model: z.string().min(1).max(300),
  tokens: z
    .object({ in: count.nullish(), out: count.nullish(), cached: count.nullish() })
    .nullish(),
  cost_usd: finite.nonnegative().nullish(),
  /** What the grader answered (its verdict or explanation). */
  text: z.string().nullish(),
});

export const CanonicalEpisode = z
  .object({
    schema: z.literal(CANONICAL_SCHEMA),
    run: z.string().min(1).max(300),
    episode_id: z.string().min(1).max(300),
    task: z
      .object({
        id: z.string().max(300).nullish(),
        type: z.string().max(100).nullish(),
        category: z.string().max(200).nullish(),
        /**
         * The data split the task belongs to. MTRouter's own names are `train`, `val`, `test_id` (in-distribution)
         * and `ood_test` (held-out task types / subject categories); `id` marks an in-distribution task whose finer
         * split is unknown. `--split id` / `--split ood` select the groups (shared/splits.ts).
         */
        split: z.string().max(100).nullish(),
        difficulty: z.union([finite, z.string().max(100)]).nullish(),
        text: z.string().nullish(),
        /** N in the AEC targets (§5); overrides the per-category default. */
        expected_steps: z.number().int().positive().nullish(),
      })
      .default({}),
    outcome: z
      .object({
        score: finite.nullish(),
        score_range: z.tuple([finite, finite]).nullish(),
        success: z.boolean().nullish(),
        exit: z.string().max(300).nullish(),
      })
      .default({}),
    budget: z
      .object({
        mode: z.string().max(100).nullish(),
        usd: finite.nonnegative().nullish(),
        max_turns: count.nullish(),
      })
      .nullish(),
    policy: z
      .object({
        name: z.string().max(300).nullish(),
        kind: z.string().max(100).nullish(),
        train_step: count.nullish(),
      })
      .nullish(),
    /**
     * The log's own total for the episode, for formats that record only totals (SWE-agent, Uno). Used as the
     * episode's cost when no turn carries a cost or priceable tokens; otherwise the turns' sum wins.
     */
    cost_usd: finite.nonnegative().nullish(),
    /**
     * Model calls made to grade the episode (model-graded scorers), kept apart from the agent's turns:
     * they are not routing decisions and their cost is evaluation cost, not agent cost.
     */
    grader_calls: z.array(GraderCall).nullish(),
    turns: z.array(CanonicalTurn),
  })
  .superRefine((ep, ctx) => {
    ep.turns.forEach((turn, i) => {
      if (turn.t !== i) {
        ctx.addIssue({ code: 'custom', path: ['turns', i, 't'], message: `expected t=${i}, got ${turn.t}` });
      }
    });
    const range = ep.outcome.score_range;
    if (range && !(range[0] < range[1])) {
      ctx.addIssue({ code: 'custom', path: ['outcome', 'score_range'], message: 'must be [low, high] with low < high' });
    }
  });
export type CanonicalEpisode = z.infer<typeof CanonicalEpisode>;

/** Turns a zod error into one short line naming the JSON path: `turns[3].tokens.in: expected number`. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = issue.path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
  return path ? `${path}: ${issue.message}` : issue.message;
}
