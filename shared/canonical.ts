/**
 * The canonical trajectory format `routelens/v1` (DESIGN §3): one episode per JSON Lines line.
 * Every importer produces these objects and users can write them directly, so this schema is the
 * single definition; `routelens-v1.schema.json` beside it is generated from it (see canonicalJsonSchema.ts).
 */
import { z } from 'zod';
import { fastSafeParse } from './fastAccept.ts';
import { nameRecord } from './nameRecord.ts';

export const CANONICAL_SCHEMA = 'routelens/v1';

export const SEVERITIES = ['low', 'medium', 'high'] as const;
export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;

/**
 * Bounds on numbers from logs (issue 16): any number a log gives is finite and small enough that the sums
 * and averages taken over a whole database stay finite; a value outside them is refused at its line.
 * - Magnitude of any score, q-value or difficulty: 1e15 (a sum of 1e293 of them stays finite).
 * - Cost of one turn, grader call or episode, and a budget: $1,000,000 (a real call costs cents).
 * - Tokens of one model call: 1e9 (a thousand times the largest context window), so priced costs stay bounded.
 * - Latency of one turn: 1e10 ms (about 115 days).
 * - Candidates (router scores) per turn: 256 (a router pool has tens of models).
 */
export const MAX_ABS_NUMBER = 1e15;
export const MAX_COST_USD = 1e6;
export const MAX_TOKENS = 1e9;
export const MAX_LATENCY_MS = 1e10;
export const MAX_CANDIDATES = 256;

/** zod 4's z.number() refuses Infinity and NaN; JSON's 1e999 parses to Infinity and is refused here. */
const finite = z.number().min(-MAX_ABS_NUMBER).max(MAX_ABS_NUMBER);
/** zod 4's int() is a safe integer: beyond 2^53 two different counts read back as the same number. */
const count = z.number().int().nonnegative();
const cost = z
  .number()
  .nonnegative()
  .max(MAX_COST_USD, `over the limit of $${MAX_COST_USD.toLocaleString('en-US')} (not a plausible cost)`);
const tokenCount = count.max(MAX_TOKENS, `over the limit of ${MAX_TOKENS.toLocaleString('en-US')} tokens for one call`);
/**
 * Tokens of one model call. `in` counts every input token, cache reads and cache writes included (OpenAI's
 * convention; Anthropic logs input_tokens without them, and its importers add them back). `cached` are cache
 * reads, `cache_write` cache creation, each with its own price; `reasoning` is part of `out`.
 */
const tokens = z.object({
  in: tokenCount.nullish(),
  out: tokenCount.nullish(),
  cached: tokenCount.nullish(),
  cache_write: tokenCount.nullish(),
  reasoning: tokenCount.nullish(),
  /**
   * The part of `cache_write` written to a one-hour cache (Anthropic's `ephemeral_1h_input_tokens`), priced at 2x
   * the base input price; the rest of `cache_write` is the five-minute tier (1.25x).
   */
  cache_write_1h: tokenCount.nullish(),
});

/** Nothing but spaces and invisible characters (zero-width, controls): a name no one can see or type. */
const BLANK = /^[\p{White_Space}\p{Cc}\p{Cf}\p{Z}]*$/u;
/** Whether a name would be refused as blank (importers that name things themselves show such a name instead). */
export const isBlankName = (s: string): boolean => BLANK.test(s);
/** A name with at least one visible character: a model named "" or " " is refused, not created. */
const name = (max: number) =>
  z.string().min(1).max(max).refine((s) => !BLANK.test(s), 'must not be empty or only whitespace');
const modelName = name(300);

/**
 * The check of a record keyed by model name (router candidates, usage targets): at most MAX_CANDIDATES models, none
 * blank. A refinement of the record rather than a key schema of its own, so the import's fast path compiles it.
 */
const modelKeys = (what: string) => (record: Record<string, unknown>, ctx: z.RefinementCtx) => {
  const names = Object.keys(record);
  if (names.length > MAX_CANDIDATES) {
    ctx.addIssue({ code: 'custom', message: `${names.length} ${what}, over the limit of ${MAX_CANDIDATES}` });
    return;
  }
  const blank = names.find((k) => BLANK.test(k));
  if (blank !== undefined) ctx.addIssue({ code: 'custom', path: [blank], message: 'model name must not be empty or only whitespace' });
};

/** One detected or logged error at a turn. `severity` drives the AEC penalty (§5). */
export const TurnError = z.object({
  type: name(200),
  severity: Severity,
});
export type TurnError = z.infer<typeof TurnError>;

export const PlanSubtask = z.object({
  id: name(200),
  depends_on: z.array(z.string().max(200)).default([]),
  /** Empty means "no model"; spaces or invisible characters alone are refused. */
  model: z.union([z.literal(''), name(200)]).nullish(),
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
  type: name(100),
  /** Tool or command family (`bash`, `python`, `web_search`); the turn's category for lift. */
  tool: z.string().max(200).nullish(),
  text: z.string().nullish(),
});

/**
 * Who wrote a message that is not the model's own response: `user` (a prompt typed mid-session), `system` (an
 * instruction or reminder the agent injected), `summary` (a compaction summary standing in for earlier messages),
 * `assistant` (text shown as the assistant's without a model call: a canned reply, a local command's output),
 * `tool` (a tool result not tied to a call of this episode).
 */
export const MESSAGE_ROLES = ['user', 'system', 'summary', 'assistant', 'tool'] as const;
/** Most messages kept before one turn or after the last one. */
export const MAX_MESSAGES = 10000;

/** A message of the conversation that is not a model response (those are turns) nor a tool call's result (kept on the call). */
export const ConversationMessage = z.object({
  role: z.enum(MESSAGE_ROLES),
  text: z.string(),
  /** When it was logged (ISO 8601). */
  timestamp: z.string().max(100).nullish(),
});
export type ConversationMessage = z.infer<typeof ConversationMessage>;

/** Most tool calls one turn (one model response) may carry: no agent issues more in one response. */
export const MAX_TOOL_CALLS = 1000;

/** One tool call of a model response, joined to its result when the log has it. */
export const ToolCall = z.object({
  id: z.string().max(300).nullish(),
  name: name(200),
  /** The call's arguments as the log wrote them (JSON text for structured calls). */
  input: z.string().nullish(),
  result: z.string().nullish(),
  is_error: z.boolean().nullish(),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const CanonicalTurn = z.object({
  t: count,
  model: modelName,
  action: TurnAction,
  observation: z.string().nullish(),
  /** The agent's part at this turn when it has several (Aider `architect` / `editor`, a `compaction` call). */
  role: z.string().max(100).nullish(),
  /** Reasoning / thinking text the model returned with its answer. */
  reasoning: z.string().nullish(),
  /**
   * The text the model wrote in this response, as written (a reply, or the words before its tool calls), when the
   * action text is a summary of what it did (`bash: ls`, `edit F`) rather than the text itself.
   */
  message: z.string().nullish(),
  tool_calls: z.array(ToolCall).max(MAX_TOOL_CALLS).nullish(),
  /**
   * The messages that reached the model between the previous response and this one, in order, other than the
   * results of the previous response's tool calls: the user's prompts typed mid-session, injected system text,
   * compaction summaries. The episode's first prompt is `task.text`, not repeated here.
   */
  inputs: z.array(ConversationMessage).max(MAX_MESSAGES).nullish(),
  /** What the importer inferred rather than read (e.g. "model inferred from the order of the cost lines"). */
  notes: z.array(z.string().max(1000)).max(100).nullish(),
  /** When the response was logged (ISO 8601). */
  timestamp: z.string().max(100).nullish(),
  tokens: tokens.nullish(),
  cost_usd: cost.nullish(),
  latency_ms: z.number().nonnegative().max(MAX_LATENCY_MS, `over the limit of ${MAX_LATENCY_MS} ms`).nullish(),
  /** Probability the logging router gave to the model it chose (for off-policy evaluation). */
  propensity: z.number().min(0).max(1).nullish(),
  /** Router scores / q-values per candidate model, when the log has them. */
  candidates: nameRecord(finite, z.string().max(300)).superRefine(modelKeys('candidates')).nullish(),
  /**
   * The logging router's own account of a mixed decision (MTRouter's β-mixed collection router): the model its
   * learned policy ranked first, whether that greedy choice was taken, and β, the probability of taking it.
   * With these the logged propensity can be checked: β + (1 − β)/K for the greedy model, (1 − β)/K otherwise.
   */
  router: z
    .object({
      greedy_model: modelName.nullish(),
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
  model: modelName,
  tokens: tokens.nullish(),
  cost_usd: cost.nullish(),
  /** What the grader answered (its verdict or explanation). */
  text: z.string().nullish(),
});

/** Most scorers, test groups and notes one outcome may carry; most tests in one group. */
export const MAX_SCORERS = 100;
export const MAX_TESTS = 100_000;

/**
 * One verdict on the episode as the log gives it: an Inspect scorer (`includes`, `match`, `model_graded_fact`), an
 * LLM judge (HLE's `judge_result`), a test harness (SWE-bench's report). Nothing here is computed by RouteLens.
 */
export const OutcomeScorer = z.object({
  name: name(200),
  /** Where in the log (or beside it) it was read, when that is not the log's own scores: `logs/<id>/report.json`. */
  source: z.string().max(1000).nullish(),
  /** Its value as logged: `"C"`, `0.5`, `true`, or a list or record of such values. */
  value: z.json().nullish(),
  /** The answer the scorer read from the agent's output. */
  answer: z.string().nullish(),
  /** Why it scored so: the scorer's explanation, the judge's reasoning. */
  explanation: z.string().nullish(),
  /** Anything else it logged with the verdict (a judge's confidence and method, whether the patch applied). */
  metadata: z.record(z.string().max(300), z.json()).nullish(),
});
export type OutcomeScorer = z.infer<typeof OutcomeScorer>;

/** A group of a test harness's report (SWE-bench: `FAIL_TO_PASS`, `PASS_TO_PASS`…) with the tests that passed and failed. */
export const OutcomeTests = z.object({
  group: name(100),
  passed: z.array(z.string().max(10_000)).max(MAX_TESTS),
  failed: z.array(z.string().max(10_000)).max(MAX_TESTS),
});
export type OutcomeTests = z.infer<typeof OutcomeTests>;

/**
 * What explains the outcome, where the log has it: what counted as right, what the agent answered, who judged and
 * why. Every field is as logged; one the log lacks is absent (shown as unknown), never filled in.
 */
export const OutcomeExplanation = z.object({
  /** The target or ground truth (Inspect's `target`, a string or a list of accepted answers; HLE's `ground_truth`). */
  target: z.union([z.string(), z.array(z.string()).max(1000)]).nullish(),
  /** A multiple-choice task's options, in order (Inspect's `choices`): a target `A` names the first. */
  choices: z.array(z.string()).max(1000).nullish(),
  /** The agent's final answer or submission (Inspect's output, HLE's submitted answer, a SWE agent's patch). */
  answer: z.string().nullish(),
  scorers: z.array(OutcomeScorer).max(MAX_SCORERS).nullish(),
  tests: z.array(OutcomeTests).max(MAX_SCORERS).nullish(),
  /** What the importer inferred rather than read (e.g. "no judge_result: scored 0, as MTRouter's parser does"). */
  notes: z.array(z.string().max(1000)).max(MAX_SCORERS).nullish(),
});
export type OutcomeExplanation = z.infer<typeof OutcomeExplanation>;

/** The keys of OutcomeExplanation: the part of `outcome` the episode row has no column for. */
export const OUTCOME_EXPLANATION_KEYS = Object.keys(OutcomeExplanation.shape) as (keyof OutcomeExplanation)[];

export const CanonicalEpisode = z
  .object({
    schema: z.literal(CANONICAL_SCHEMA),
    run: name(300),
    episode_id: name(300),
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
        ...OutcomeExplanation.shape,
      })
      .default({}),
    budget: z
      .object({
        mode: z.string().max(100).nullish(),
        usd: cost.nullish(),
        max_turns: count.nullish(),
      })
      .nullish(),
    policy: z
      .object({
        name: z.string().max(300).nullish(),
        kind: z.string().max(100).nullish(),
        train_step: count.nullish(),
        /**
         * The usage constraints the controller ran under, as its log states them: each model's target share of all
         * calls, ρ_k (the critique-and-route controller). The usage-ratio figure draws them as the run's targets.
         */
        usage_targets: nameRecord(z.number().min(0).max(1), z.string().max(300)).superRefine(modelKeys('usage targets')).nullish(),
      })
      .nullish(),
    /**
     * The log's own total for the episode, for formats that record only totals (SWE-agent, Uno). Used as the
     * episode's cost when no turn carries a cost or priceable tokens; otherwise the turns' sum wins.
     */
    cost_usd: cost.nullish(),
    /**
     * Model calls made to grade the episode (model-graded scorers), kept apart from the agent's turns:
     * they are not routing decisions and their cost is evaluation cost, not agent cost.
     */
    grader_calls: z.array(GraderCall).nullish(),
    /**
     * A child episode (a Claude Code subagent or compaction sidechain) names the episode of the same run that
     * launched it and, when known, the turn. Child episodes are counted once, as themselves, and listed under
     * their parent; episode-level counts (tasks, success) leave them out.
     */
    parent: z
      .object({ episode_id: name(300), t: count.nullish(), tool_call_id: z.string().max(300).nullish() })
      .nullish(),
    /** `session` (default), `subagent`, `compaction`… */
    kind: z.string().max(100).nullish(),
    /** The agent that wrote the log: `{"name":"claude-code","version":"2.0.58"}`. */
    agent: z.object({ name: z.string().max(200).nullish(), version: z.string().max(100).nullish() }).nullish(),
    started_at: z.string().max(100).nullish(),
    system_prompt: z.string().nullish(),
    /**
     * Per-model totals for logs that record usage only per session (Copilot CLI's shutdown metrics). Priced into
     * the episode's cost when no turn carries a cost; never split over turns.
     */
    usage_totals: z
      .array(z.object({ model: modelName, requests: count.nullish(), tokens: tokens.nullish(), cost_usd: cost.nullish() }))
      .max(MAX_CANDIDATES)
      .nullish(),
    /** Messages after the last model response (a prompt never answered, a closing notice), in order. */
    final_messages: z.array(ConversationMessage).max(MAX_MESSAGES).nullish(),
    /**
     * The totals the log itself records for this episode (Codex's final `total_token_usage`, Copilot's shutdown
     * `modelMetrics`, OpenHands' `metrics`, Inspect's `stats.model_usage`, mini-swe-agent's `model_stats`…),
     * kept beside the sum of the turns so an import can say when the two differ. `source` names where in the log
     * they were read; a field the log does not total is absent, never 0.
     */
    log_totals: z
      .object({
        source: z.string().min(1).max(300),
        requests: count.nullish(),
        tokens: tokens.nullish(),
        cost_usd: cost.nullish(),
      })
      .nullish(),
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

/** `CanonicalEpisode.safeParse` with the fast path for episodes it accepts unchanged (fastAccept.ts): `value` must be the caller's own. */
export const parseCanonicalEpisode = /* @__PURE__ */ fastSafeParse(CanonicalEpisode);

/** Turns a zod error into one short line naming the JSON path: `turns[3].tokens.in: expected number`. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = issue.path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
  return path ? `${path}: ${issue.message}` : issue.message;
}
