/**
 * ATIF steps → canonical turns (Harbor's RFC 0001, v1.x). One turn per `agent` step: the RFC defines an agent
 * step as one LLM inference with its actions. Tool results are joined to their calls by id wherever they sit:
 * in the step's own `observation.results[].source_call_id` (the RFC), or in a later or earlier `system` step
 * (OpenAgents' Claude Code writer logs each result as a system step `"Tool result for <id>"` with
 * `observation {type: "tool_result", content, result {success}}`, and tool calls as `{id, name, arguments}`).
 */
import { z } from 'zod';
import { MAX_COST_USD, MAX_TOKENS, type CanonicalTurn, type ConversationMessage, type ToolCall } from '../../shared/canonical.ts';

const tokenCount = z.number().int().nonnegative().max(MAX_TOKENS);
const cost = z.number().nonnegative().max(MAX_COST_USD);

export const AtifAgent = z.looseObject({
  name: z.string().max(200).nullish(),
  version: z.string().max(100).nullish(),
  model_name: z.string().max(300).nullish(),
  /** OpenAgents' writer says `model` where the RFC says `model_name`. */
  model: z.string().max(300).nullish(),
});

const AtifToolCall = z.looseObject({
  tool_call_id: z.string().max(300).nullish(),
  function_name: z.string().max(200).nullish(),
  id: z.string().max(300).nullish(),
  name: z.string().max(200).nullish(),
  arguments: z.unknown().optional(),
});

const ObservationResult = z.looseObject({
  source_call_id: z.string().max(300).nullish(),
  content: z.unknown().optional(),
  subagent_trajectory_ref: z.array(z.looseObject({ session_id: z.string().max(300) })).nullish(),
});

const Observation = z.looseObject({
  results: z.array(ObservationResult).nullish(),
  /** OpenAgents' variant: one result per system step. */
  content: z.unknown().optional(),
  result: z.looseObject({ success: z.boolean().nullish() }).nullish(),
});

const Metrics = z.looseObject({
  prompt_tokens: tokenCount.nullish(),
  completion_tokens: tokenCount.nullish(),
  cached_tokens: tokenCount.nullish(),
  cost_usd: cost.nullish(),
  extra: z
    .looseObject({ cache_creation_input_tokens: tokenCount.nullish(), reasoning_tokens: tokenCount.nullish() })
    .nullish(),
});

export const AtifStep = z.looseObject({
  step_id: z.number().int().positive(),
  timestamp: z.string().max(100).nullish(),
  source: z.enum(['user', 'agent', 'system']),
  model_name: z.string().max(300).nullish(),
  message: z.unknown().optional(),
  reasoning_content: z.string().nullish(),
  tool_calls: z.array(AtifToolCall).nullish(),
  observation: Observation.nullish(),
  metrics: Metrics.nullish(),
});
export type AtifStep = z.infer<typeof AtifStep>;

export const AtifFinalMetrics = z.looseObject({
  total_prompt_tokens: tokenCount.nullish(),
  total_completion_tokens: tokenCount.nullish(),
  total_cached_tokens: tokenCount.nullish(),
  total_cost_usd: cost.nullish(),
  total_steps: z.number().int().nonnegative().nullish(),
});

/** "1.4", "ATIF-v1.4": any 1.x. */
export const ATIF_VERSION = /^(ATIF-v)?1\.\d+$/;

/** Text of a message or result that the writers give as a string or as `{content|text}` / parts. */
export function textOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    const parts = v.map(textOf).filter((p) => p !== null);
    return parts.length ? parts.join('\n') : null;
  }
  if (typeof v === 'object' && v !== null) {
    const o = v as { content?: unknown; text?: unknown };
    return textOf(o.text) ?? textOf(o.content);
  }
  return null;
}

const RESULT_FOR = /^Tool result for (\S+)/;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Tool family and a one-line account of a call, from the tool names coding agents use. */
function describeCall(name: string, args: unknown): { tool: string; text: string } {
  const a = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
  const lower = name.toLowerCase();
  const path = str(a.file_path) ?? str(a.path) ?? '';
  if (/bash|shell|exec|terminal|command/.test(lower)) return { tool: 'bash', text: `bash: ${str(a.command) ?? str(a.keystrokes) ?? ''}` };
  if (/edit|write|replace|patch/.test(lower)) return { tool: 'edit', text: `${name} ${path}`.trim() };
  if (/read|view|cat/.test(lower)) return { tool: 'read', text: `${name} ${path}`.trim() };
  if (/grep|glob|search|find/.test(lower)) return { tool: 'search', text: `${name} ${str(a.pattern) ?? str(a.query) ?? ''}`.trim() };
  return { tool: lower, text: name };
}

export interface StepTurns {
  turns: Omit<CanonicalTurn, 'model'>[];
  /** The model each turn names itself, null where the step has none (the agent's default applies). */
  models: (string | null)[];
  taskText: string | null;
  systemPrompt: string | null;
  /** User steps after the first and system steps that are no tool result, after the last agent step. */
  finalMessages: ConversationMessage[];
  /** Agent steps with per-step metrics (tokens or cost). */
  withMetrics: number;
  withCost: number;
}

export function stepsToTurns(steps: AtifStep[]): StepTurns {
  const calls = new Map<string, ToolCall>();
  const out: StepTurns = { turns: [], models: [], taskText: null, systemPrompt: null, finalMessages: [], withMetrics: 0, withCost: 0 };
  // Messages since the last agent step that reached the model: a later user prompt, injected system text.
  let waiting: ConversationMessage[] = [];
  const pending = new Map<string, { content: string | null; success: boolean | null }>();

  const attach = (id: string, content: string | null, success: boolean | null): void => {
    const call = calls.get(id);
    if (!call) {
      pending.set(id, { content, success });
      return;
    }
    call.result = call.result == null ? content : `${call.result}\n${content ?? ''}`;
    if (success !== null) call.is_error = !success;
  };

  for (const step of steps) {
    if (step.source === 'user') {
      const text = textOf(step.message);
      if (out.taskText === null) out.taskText = text;
      else if (text !== null) waiting.push({ role: 'user', text, timestamp: step.timestamp ?? null });
      continue;
    }
    if (step.source === 'system') {
      const obs = step.observation;
      const id = RESULT_FOR.exec(textOf(step.message) ?? '')?.[1];
      if (obs && id && obs.results == null) attach(id, textOf(obs.content), obs.result?.success ?? null);
      for (const r of obs?.results ?? []) if (r.source_call_id) attach(r.source_call_id, textOf(r.content), null);
      if (!obs) {
        const text = textOf(step.message);
        if (out.turns.length === 0 && out.systemPrompt === null) out.systemPrompt = text;
        else if (text !== null && !id) waiting.push({ role: 'system', text, timestamp: step.timestamp ?? null });
      }
      continue;
    }
    const toolCalls: ToolCall[] = (step.tool_calls ?? []).map((c) => ({
      id: c.tool_call_id ?? c.id ?? null,
      name: c.function_name || c.name || 'tool',
      input: c.arguments === undefined ? null : JSON.stringify(c.arguments),
      result: null,
      is_error: null,
    }));
    for (const c of toolCalls) {
      if (!c.id) continue;
      calls.set(c.id, c);
      const early = pending.get(c.id);
      if (early) {
        pending.delete(c.id);
        attach(c.id, early.content, early.success);
      }
    }
    // Results without a call id answer the step itself (a non-tool action).
    const loose: string[] = [];
    for (const r of step.observation?.results ?? []) {
      if (r.source_call_id) attach(r.source_call_id, textOf(r.content), null);
      else {
        const t = textOf(r.content);
        if (t !== null) loose.push(t);
      }
    }
    const message = textOf(step.message) ?? '';
    const first = step.tool_calls?.[0];
    const described = toolCalls.map((c, i) => describeCall(c.name, step.tool_calls?.[i]?.arguments));
    const m = step.metrics;
    const tokens =
      m && (m.prompt_tokens != null || m.completion_tokens != null)
        ? {
            in: m.prompt_tokens ?? null,
            out: m.completion_tokens ?? null,
            cached: m.cached_tokens ?? null,
            cache_write: m.extra?.cache_creation_input_tokens ?? null,
            reasoning: m.extra?.reasoning_tokens ?? null,
          }
        : null;
    if (tokens || m?.cost_usd != null) out.withMetrics++;
    if (m?.cost_usd != null) out.withCost++;
    out.models.push(step.model_name ?? null);
    out.turns.push({
      t: out.turns.length,
      action:
        first && described[0]
          ? { type: 'tool', tool: described[0].tool, text: described.map((d) => d.text).join('\n') }
          : { type: 'message', tool: null, text: message },
      observation: loose.length ? loose.join('\n') : null,
      reasoning: step.reasoning_content ?? null,
      // The step's message beside its tool calls (the action text summarises the calls).
      message: first && described[0] && message.trim() !== '' ? message : null,
      tool_calls: toolCalls.length ? toolCalls : null,
      timestamp: step.timestamp ?? null,
      tokens,
      cost_usd: m?.cost_usd ?? null,
      inputs: waiting.length ? waiting : null,
    });
    waiting = [];
  }
  out.finalMessages = waiting;

  // Observations and errors once every result is in.
  for (const turn of out.turns) {
    const tc = turn.tool_calls;
    if (!tc) continue;
    const results = tc.map((c) => c.result).filter((r) => r != null);
    if (results.length) turn.observation = [turn.observation, ...results].filter((x) => x != null).join('\n');
    turn.errors = tc.some((c) => c.is_error === true)
      ? [{ type: 'tool_error', severity: 'medium' }]
      : tc.every((c) => c.is_error === false)
        ? []
        : null;
  }
  return out;
}
