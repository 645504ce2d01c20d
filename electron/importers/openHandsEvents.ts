/**
 * OpenHands event histories → canonical turns. Two shapes of the same events reach us:
 * - events as the server stores them (`{id, timestamp, source, action|observation, args|content, extras, cause,
 *   tool_call_metadata}`), in a saved trajectory or in a newer evaluation `history`;
 * - the older evaluation/resolver serialisation: flat dicts `{action, …args}` / `{observation, content, …extras}`
 *   with no id, source or metadata, each observation right after its action (or `[action, observation]` pairs).
 *
 * A turn is one LLM call. With metadata, the actions sharing one `model_response.id` are one call (a response
 * with several tool calls); without it each agent action is one call, as CodeAct emits one action per response.
 * Observations join their action by `cause`, else by tool_call_id, else (old shape) by position.
 */
import { z } from 'zod';
import { MAX_COST_USD, MAX_TOKENS, type CanonicalTurn, type ConversationMessage, type ToolCall } from '../../shared/canonical.ts';

const tokenCount = z.number().int().nonnegative().max(MAX_TOKENS);

const Usage = z.object({
  prompt_tokens: tokenCount.nullish(),
  completion_tokens: tokenCount.nullish(),
  prompt_tokens_details: z.object({ cached_tokens: tokenCount.nullish() }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: tokenCount.nullish() }).nullish(),
  cache_read_input_tokens: tokenCount.nullish(),
  cache_creation_input_tokens: tokenCount.nullish(),
});

const ModelResponse = z.object({
  id: z.string().max(300).nullish(),
  model: z.string().max(300).nullish(),
  usage: Usage.nullish(),
  choices: z
    .array(
      z.object({
        message: z
          .object({
            content: z.unknown().optional(),
            reasoning_content: z.string().nullish(),
            tool_calls: z
              .array(z.object({ id: z.string().nullish(), function: z.object({ arguments: z.string().nullish() }).nullish() }))
              .nullish(),
          })
          .nullish(),
      }),
    )
    .nullish(),
});

const ToolCallMetadata = z.object({
  function_name: z.string().max(200).nullish(),
  tool_call_id: z.string().max(300).nullish(),
  model_response: ModelResponse.nullish(),
});

const Args = z.record(z.string(), z.unknown());

/** One event in either shape; everything but the fields we read is let through untouched. */
export const OpenHandsEvent = z.looseObject({
  id: z.number().int().nullish(),
  timestamp: z.string().max(100).nullish(),
  source: z.string().max(100).nullish(),
  message: z.unknown().optional(),
  action: z.string().max(200).nullish(),
  observation: z.string().max(200).nullish(),
  args: Args.nullish(),
  content: z.unknown().optional(),
  extras: Args.nullish(),
  cause: z.number().int().nullish(),
  success: z.boolean().nullish(),
  tool_call_metadata: ToolCallMetadata.nullish(),
});
export type OpenHandsEvent = z.infer<typeof OpenHandsEvent>;

/** A `history`: events, or the oldest writers' `[action, observation]` pairs. */
export const OpenHandsHistory = z.array(z.union([OpenHandsEvent, z.tuple([OpenHandsEvent, OpenHandsEvent])]));

export const OpenHandsCost = z.union([
  z.number().nonnegative().max(MAX_COST_USD),
  z.looseObject({ model: z.string().max(300).nullish(), cost: z.number().nonnegative().max(MAX_COST_USD) }),
]);

/** Agent actions that are bookkeeping, not a model's answer. */
const NOT_MODEL_CALLS = new Set(['change_agent_state', 'recall', 'system', 'condensation', 'condensation_request', 'null']);

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Text of an event's field that may be a string or a list of `{text}` parts. */
function textOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    const parts = v.map((p) => (typeof p === 'object' && p !== null && 'text' in p ? str(p.text) : str(p))).filter((p) => p !== null);
    return parts.length ? parts.join('\n') : null;
  }
  return null;
}

interface Normalised {
  kind: 'action' | 'observation';
  type: string;
  source: string | null;
  id: number | null;
  cause: number | null;
  timestamp: string | null;
  args: Record<string, unknown>;
  content: string | null;
  success: boolean | null;
  meta: z.infer<typeof ToolCallMetadata> | null;
}

const OLD_ACTION_META = new Set(['action', 'source', 'id', 'timestamp', 'message']);

function normalise(e: OpenHandsEvent): Normalised | null {
  const common = {
    source: e.source ?? null,
    id: e.id ?? null,
    cause: e.cause ?? null,
    timestamp: e.timestamp ?? null,
    success: e.success ?? null,
    meta: e.tool_call_metadata ?? null,
  };
  if (e.action != null) {
    // The old shape keeps the arguments beside `action` instead of under `args`.
    const args = e.args ?? Object.fromEntries(Object.entries(e).filter(([k]) => !OLD_ACTION_META.has(k)));
    return { ...common, kind: 'action', type: e.action, args, content: null };
  }
  if (e.observation != null) {
    const extras = e.extras ?? e;
    const exit = extras.exit_code ?? (typeof extras.metadata === 'object' && extras.metadata ? (extras.metadata as { exit_code?: unknown }).exit_code : undefined);
    const failed = e.observation === 'error' || (typeof exit === 'number' && exit !== 0);
    return {
      ...common,
      kind: 'observation',
      type: e.observation,
      args: extras,
      content: textOf(e.content) ?? str(e.message),
      success: common.success ?? (failed ? false : typeof exit === 'number' ? true : null),
    };
  }
  return null;
}

/** Tool family and a one-line account of what an action did. */
function describeAction(type: string, args: Record<string, unknown>): { tool: string | null; text: string } {
  const path = str(args.path) ?? '';
  switch (type) {
    case 'run':
      return { tool: 'bash', text: `bash: ${str(args.command) ?? ''}` };
    case 'run_ipython':
      return { tool: 'python', text: `python: ${str(args.code) ?? ''}` };
    case 'edit':
      return { tool: 'edit', text: `Edit ${path}`.trim() };
    case 'write':
      return { tool: 'edit', text: `Write ${path}`.trim() };
    case 'read':
      return { tool: 'read', text: `Read ${path}`.trim() };
    case 'browse':
      return { tool: 'browse', text: `browse: ${str(args.url) ?? ''}` };
    case 'browse_interactive':
      return { tool: 'browse', text: `browse: ${str(args.browser_actions) ?? ''}` };
    default:
      return { tool: type, text: str(args.thought) ?? type };
  }
}

export interface TurnDraft {
  turn: Omit<CanonicalTurn, 't' | 'model'>;
  model: string | null;
  responseId: string | null;
}

export interface EventReading {
  turns: TurnDraft[];
  taskText: string | null;
  systemPrompt: string | null;
  startedAt: string | null;
  /** The last agent state the environment announced (`finished`, `error`, `awaiting_user_input`…). */
  lastState: string | null;
  /** Prompts and summaries after the last model call. */
  finalMessages: ConversationMessage[];
}

interface Call {
  draft: TurnDraft;
  calls: ToolCall[];
  texts: string[];
  /** The response's own text (`model_response` content), when the event carries the response. */
  written: string | null;
  /** The actions' `thought`s: the words the model wrote with them (the older shapes keep only these). */
  thoughts: string[];
}

function tokensOf(usage: z.infer<typeof Usage> | null | undefined): CanonicalTurn['tokens'] {
  if (!usage) return null;
  return {
    in: usage.prompt_tokens ?? null,
    out: usage.completion_tokens ?? null,
    cached: usage.prompt_tokens_details?.cached_tokens ?? usage.cache_read_input_tokens ?? null,
    cache_write: usage.cache_creation_input_tokens ?? null,
    reasoning: usage.completion_tokens_details?.reasoning_tokens ?? null,
  };
}

function argumentsFor(meta: z.infer<typeof ToolCallMetadata>): string | null {
  const choice = meta.model_response?.choices?.[0]?.message;
  return choice?.tool_calls?.find((c) => c.id === meta.tool_call_id)?.function?.arguments ?? null;
}

/** Reads a history into turns. `flat` marks the old shape, where an observation answers the action before it. */
export function readEvents(history: z.infer<typeof OpenHandsHistory>): EventReading {
  const events = history.flatMap((h) => (Array.isArray(h) ? h : [h])).map(normalise).filter((e) => e !== null);
  const flat = events.every((e) => e.id === null);
  const reading: EventReading = {
    turns: [], taskText: null, systemPrompt: null, startedAt: events.find((e) => e.timestamp)?.timestamp ?? null, lastState: null, finalMessages: [],
  };
  // What reached the model since its last call: the user's later prompts and the condenser's summaries.
  let pending: ConversationMessage[] = [];
  const byResponse = new Map<string, Call>();
  const byActionId = new Map<number, ToolCall>();
  const byToolCallId = new Map<string, ToolCall>();
  let lastCall: ToolCall | null = null;
  const calls: Call[] = [];
  let seenUserMessage = false;

  for (const e of events) {
    if (e.kind === 'observation') {
      if (e.type === 'agent_state_changed') reading.lastState = str(e.args.agent_state) ?? reading.lastState;
      const target =
        (e.cause !== null ? byActionId.get(e.cause) : undefined) ??
        (e.meta?.tool_call_id ? byToolCallId.get(e.meta.tool_call_id) : undefined) ??
        (flat ? lastCall : null);
      if (target && e.type !== 'null') {
        target.result = target.result == null ? e.content : `${target.result}\n${e.content ?? ''}`;
        if (e.success !== null) target.is_error = target.is_error === true || !e.success;
      }
      if (flat) lastCall = null;
      continue;
    }
    if (e.type === 'system') reading.systemPrompt ??= str(e.args.content);
    const source = e.source ?? (e.type === 'message' && !seenUserMessage ? 'user' : 'agent');
    if (source === 'user') {
      if (e.type === 'message') {
        const text = str(e.args.content) ?? str(e.args.message);
        if (seenUserMessage && text !== null) pending.push({ role: 'user', text, timestamp: e.timestamp });
        seenUserMessage = true;
        reading.taskText ??= text;
      }
      continue;
    }
    if (e.type === 'condensation') {
      // The condenser's summary stands in for the events it forgot from here on.
      const summary = str(e.args.summary);
      if (summary !== null && summary.trim() !== '') pending.push({ role: 'summary', text: summary, timestamp: e.timestamp });
      continue;
    }
    if (source !== 'agent' || NOT_MODEL_CALLS.has(e.type)) continue;

    const response = e.meta?.model_response ?? null;
    const responseId = response?.id ?? null;
    let call = responseId ? byResponse.get(responseId) : undefined;
    if (!call) {
      const reasoning = response?.choices?.[0]?.message?.reasoning_content ?? null;
      call = {
        draft: {
          model: response?.model ?? null,
          responseId,
          turn: { action: { type: 'message', tool: null, text: '' }, timestamp: e.timestamp, tokens: tokensOf(response?.usage), reasoning },
        },
        calls: [],
        texts: [],
        written: textOf(response?.choices?.[0]?.message?.content),
        thoughts: [],
      };
      if (pending.length > 0) {
        call.draft.turn.inputs = pending;
        pending = [];
      }
      calls.push(call);
      if (responseId) byResponse.set(responseId, call);
    }
    const thought = str(e.args.thought);
    if (thought && thought.trim() !== '' && !call.thoughts.includes(thought)) call.thoughts.push(thought);
    if (e.type === 'message' || e.type === 'finish') {
      const text = str(e.args.content) ?? str(e.args.final_thought) ?? str(e.args.thought) ?? '';
      call.draft.turn.action = { type: e.type === 'finish' ? 'submit' : 'message', tool: e.meta?.function_name ?? null, text };
      call.texts.push(text);
      continue;
    }
    const { tool, text } = describeAction(e.type, e.args);
    const input = e.meta ? argumentsFor(e.meta) : null;
    const { thought: _thought, ...rest } = e.args;
    const toolCall: ToolCall = {
      id: e.meta?.tool_call_id ?? null,
      name: e.meta?.function_name || e.type,
      input: input ?? JSON.stringify(rest),
      result: null,
      is_error: null,
    };
    call.calls.push(toolCall);
    call.texts.push(text);
    if (call.calls.length === 1) call.draft.turn.action = { type: 'tool', tool, text };
    if (e.id !== null) byActionId.set(e.id, toolCall);
    if (toolCall.id) byToolCallId.set(toolCall.id, toolCall);
    lastCall = toolCall;
  }

  for (const call of calls) {
    const turn = call.draft.turn;
    if (call.texts.length > 1) turn.action = { ...turn.action, text: call.texts.join('\n') };
    // What the model wrote, unless the action text is already that text (a reply, a thought-only action).
    const own = call.written?.trim() ? call.written : call.thoughts.join('\n');
    turn.message = own.trim() !== '' && own !== turn.action.text ? own : null;
    if (call.calls.length) {
      turn.tool_calls = call.calls;
      const results = call.calls.filter((c) => c.result != null).map((c) => c.result);
      turn.observation = results.length ? results.join('\n') : null;
      const failed = call.calls.some((c) => c.is_error === true);
      turn.errors = failed ? [{ type: 'tool_error', severity: 'medium' }] : call.calls.every((c) => c.is_error === false) ? [] : null;
    }
    reading.turns.push(call.draft);
  }
  reading.finalMessages = pending;
  return reading;
}
