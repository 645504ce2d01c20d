/**
 * The parts of a mini-swe-agent (`mini-swe-agent-1`) / MTRouter (`mini-agentic-router-1`) `*.traj.json` that
 * the importer uses, as zod schemas (unknown keys are dropped). Field notes are in
 * `shared/data/mini-swe-agent/PROVENANCE.md` and `shared/data/mtrouter/PROVENANCE.md`.
 */
import { z } from 'zod';

const count = z.number().int().nonnegative();
const usd = z.number().nonnegative();
/** A Python float as MTRouter's files hold it: ±Infinity arrive as numbers and NaN as null (pythonJson.ts). */
const pyFloat = z.union([z.custom<number>((v) => typeof v === 'number', 'expected a number'), z.null()]);

const TextPart = z.object({ type: z.string().nullish(), text: z.string().nullish() });

/** A chat message's content: a string, or (multimodal clients) an array of parts whose text we keep. */
export const Content = z.union([z.string(), z.array(TextPart)], {
  error: 'expected a string or an array of text parts',
});
export type Content = z.infer<typeof Content>;

/** The raw chat-completion usage block (OpenRouter adds `cost`, in USD). */
const Usage = z.object({
  prompt_tokens: count.nullish(),
  completion_tokens: count.nullish(),
  prompt_tokens_details: z.object({ cached_tokens: count.nullish() }).nullish(),
  cost: usd.nullish(),
});

/**
 * MTRouter's routing record: `{router_type, propensity, selected_model, n_models, model_pool}` for the
 * roulette/propensity routers, plus `{greedy_model, was_greedy, beta}` for the β-mixed one,
 * `{router_type, policy_type, q_values, model_pool}` for the learned one. A learned router's q-value is
 * -Infinity for a pool model its estimator does not know.
 */
export const RouterInfo = z.object({
  router_type: z.string().nullish(),
  policy_type: z.string().nullish(),
  propensity: z.number().min(0).max(1).nullish(),
  selected_model: z.string().nullish(),
  model_pool: z.array(z.string()).nullish(),
  q_values: z.union([z.array(pyFloat), z.record(z.string(), pyFloat)]).nullish(),
  greedy_model: z.string().nullish(),
  was_greedy: z.boolean().nullish(),
  beta: z.number().min(0).max(1).nullish(),
});
export type RouterInfo = z.infer<typeof RouterInfo>;

export const Message = z.object({
  role: z.string(),
  content: Content.nullish(),
  extra: z
    .object({
      response: z.object({ model: z.string().nullish(), usage: Usage.nullish() }).nullish(),
      /** Portkey client: per-turn USD here instead of `response.usage.cost`. */
      cost: usd.nullish(),
      /** Older MTRouter files keep the routing record (and the propensity) here. */
      router_info: RouterInfo.nullish(),
      propensity: z.number().min(0).max(1).nullish(),
    })
    .nullish(),
  // MTRouter, on assistant messages.
  model_name: z.string().nullish(),
  selected_model: z.string().nullish(),
  router_type: z.string().nullish(),
  propensity: z.number().min(0).max(1).nullish(),
  q_values: RouterInfo.shape.q_values,
  router_info: RouterInfo.nullish(),
});
export type Message = z.infer<typeof Message>;

/**
 * What MTRouter's collectors add to `info` (research/collection/collector.py for ScienceWorld,
 * hle_collector.py and run/extra/hle.py for HLE). `task_id` carries the run suffix (`boil_var0_run1`) in
 * ScienceWorld files; HLE files keep the question id there and the run in `run_id`.
 */
const BenchmarkData = z.object({
  subject: z.string().nullish(),
  /** HLE's subject category (`Math`, `Other`…): MTRouter's task category and split key. */
  category: z.string().nullish(),
  question_type: z.string().nullish(),
  /** HLE's answer to the question, and what the agent answered (read as logged, whatever their type: mtrouter.ts). */
  ground_truth: z.unknown().optional(),
  prediction: z.unknown().optional(),
  /**
   * Present once the LLM judge ran: `{correct, reasoning, confidence, method, prediction, ground_truth…}`. Only
   * `correct` must be a boolean (it is the score); the rest is kept as logged.
   */
  judge_result: z.looseObject({ correct: z.boolean().nullish() }).nullish(),
});

export const Info = z.object({
  exit_status: z.string().nullish(),
  /** What the agent submitted: mini-swe-agent's final diff, MTRouter's HLE answer (read as logged: loggedText). */
  submission: z.unknown().optional(),
  benchmark: z.string().nullish(),
  task_id: z.string().max(300).nullish(),
  run_id: count.nullish(),
  task_name: z.string().max(200).nullish(),
  variation_idx: count.nullish(),
  /** ScienceWorld's environment score in [-100, 100] (a NaN arrives as null). */
  final_score: z.number().nullish(),
  correct: z.boolean().nullish(),
  benchmark_data: BenchmarkData.nullish(),
  model_stats: z.object({ instance_cost: usd.nullish(), api_calls: count.nullish() }).nullish(),
  config: z
    .object({
      /**
       * A model config (`model_name`, `model_kwargs` = litellm's keyword object), or for a router a pool:
       * `{model_kwargs: [{model_name}, …], model_name: "roulette"}`.
       */
      model: z.object({ model_name: z.string().nullish(), model_kwargs: z.unknown().optional() }).nullish(),
      model_type: z.string().nullish(),
      /**
       * 0 means "no limit" for both (mini-swe-agent's defaults). MTRouter's agents also say how replies are read:
       * `action_mode` (`bash`, `text`, `multitool`), the tools a multitool agent had, its finish words.
       */
      agent: z
        .object({
          step_limit: count.nullish(),
          cost_limit: usd.nullish(),
          action_mode: z.string().nullish(),
          enabled_tools: z.array(z.string()).nullish(),
          answer_tool: z.string().nullish(),
          finish_markers: z.array(z.string()).nullish(),
        })
        .nullish(),
    })
    .nullish(),
});
export type Info = z.infer<typeof Info>;

export const TRAJECTORY_FORMATS = ['mini-swe-agent-1', 'mini-agentic-router-1'] as const;

export const Trajectory = z.object({
  trajectory_format: z.string().nullish(),
  instance_id: z.string().min(1).nullish(),
  info: Info.nullish(),
  messages: z.array(Message),
});
export type Trajectory = z.infer<typeof Trajectory>;

/** MTRouter's test fixtures (and very old mini-swe-agent output): only the messages, as a bare array. */
export const LegacyMessages = z.array(Message);
