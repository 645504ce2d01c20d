/**
 * The lines of a Codex CLI rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) and how they cut into
 * model calls.
 *
 * Each line is `{timestamp, type, payload}`: `session_meta`, `turn_context` (model, cwd), `response_item`
 * (messages, reasoning, function_call / custom_tool_call / local_shell_call / web_search_call and the
 * `*_output` results, joined by `call_id`) and `event_msg` (`token_count` carries the call's
 * `last_token_usage` and the running `total_token_usage`).
 *
 * A turn is one model call, and each token_count that moves the running total closes one (a token_count
 * repeating the previous total is a rate-limit refresh, not a call). Where the call's items sit depends on
 * the version: current Codex records items as they stream, so they come before their token_count; older
 * ones (0.39 in the sample) recorded the items after the call, so the token_count comes first. The order is
 * read from the file itself: whichever of "a model output item" and "a token_count" appears first.
 */
import { z } from 'zod';
import { MAX_TOKENS, describeIssue, type ConversationMessage } from '../../shared/canonical.ts';

const tokenCount = z
  .number()
  .int()
  .nonnegative()
  .max(MAX_TOKENS, `over the limit of ${MAX_TOKENS.toLocaleString('en-US')} tokens`);

export const TokenUsage = z.object({
  input_tokens: tokenCount.nullish(),
  cached_input_tokens: tokenCount.nullish(),
  cache_write_input_tokens: tokenCount.nullish(),
  output_tokens: tokenCount.nullish(),
  reasoning_output_tokens: tokenCount.nullish(),
  total_tokens: tokenCount.nullish(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

export const RolloutLine = z.object({
  timestamp: z.string().nullish(),
  type: z.string(),
  payload: z.record(z.string(), z.unknown()),
});

export const SessionMeta = z.object({
  id: z.string().min(1),
  timestamp: z.string().nullish(),
  cwd: z.string().nullish(),
  originator: z.string().nullish(),
  cli_version: z.string().nullish(),
  base_instructions: z.object({ text: z.string().nullish() }).nullish(),
  /** The thread this one was forked from: its rollout opens with a replay of that thread's history. */
  forked_from_id: z.string().nullish(),
  /** Newer versions lift the spawning thread's id to the top level; older ones keep it under `source` only. */
  parent_thread_id: z.string().nullish(),
  /** `"cli"`, `"vscode"`… or `{subagent: {thread_spawn: {parent_thread_id, …}}}` for a thread a subagent tool spawned. */
  source: z.unknown().optional(),
});
export type SessionMeta = z.infer<typeof SessionMeta>;

/** Where a thread came from when another thread started it: the parent's id and how it was started. */
export interface ThreadOrigin {
  parent: string;
  kind: 'subagent' | 'fork';
  /** The rollout opens with the parent's history, replayed (`forked_from_id`). */
  replays: boolean;
}

function spawnParent(source: unknown): string | null {
  if (typeof source !== 'object' || source === null) return null;
  const spawn = (source as { subagent?: { thread_spawn?: { parent_thread_id?: unknown } } }).subagent?.thread_spawn;
  return typeof spawn?.parent_thread_id === 'string' && spawn.parent_thread_id !== '' ? spawn.parent_thread_id : null;
}

export function threadOrigin(meta: SessionMeta): ThreadOrigin | null {
  const spawned = spawnParent(meta.source) ?? (meta.parent_thread_id || null);
  const forked = meta.forked_from_id || null;
  const parent = forked ?? spawned;
  if (parent === null || parent === meta.id) return null;
  return { parent, kind: spawned !== null ? 'subagent' : 'fork', replays: forked !== null };
}

/** Milliseconds since the epoch a UUIDv7 was made at, or null for any other id (Codex's thread and turn ids are v7). */
export function uuidV7Millis(id: string | null | undefined): number | null {
  const m = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.exec(id ?? '');
  return m ? parseInt(`${m[1]}${m[2]}`, 16) : null;
}

export const TurnContext = z.object({ model: z.string().nullish(), cwd: z.string().nullish() });

export const TokenCountEvent = z.object({
  info: z
    .object({ total_token_usage: TokenUsage.nullish(), last_token_usage: TokenUsage.nullish() })
    .nullish(),
});

const Text = z.object({ type: z.string().nullish(), text: z.string().nullish() });

export const ResponseItem = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message'), role: z.string(), content: z.array(Text).nullish() }),
  z.object({
    type: z.literal('reasoning'),
    summary: z.array(Text).nullish(),
    content: z.array(Text).nullish(),
  }),
  z.object({ type: z.literal('function_call'), name: z.string(), arguments: z.string().nullish(), call_id: z.string().nullish() }),
  z.object({ type: z.literal('custom_tool_call'), name: z.string(), input: z.string().nullish(), call_id: z.string().nullish() }),
  z.object({
    type: z.literal('local_shell_call'),
    call_id: z.string().nullish(),
    action: z.object({ command: z.array(z.string()).nullish() }).passthrough().nullish(),
  }),
  z.object({ type: z.literal('web_search_call'), action: z.object({ query: z.string().nullish() }).passthrough().nullish() }),
  z.object({ type: z.enum(['function_call_output', 'custom_tool_call_output']), call_id: z.string().nullish(), output: z.unknown() }),
]);
export type ResponseItem = z.infer<typeof ResponseItem>;

/** Item types this importer reads; others (ghost snapshots, compaction markers…) are skipped. */
export const KNOWN_ITEMS = new Set([
  'message', 'reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call',
  'function_call_output', 'custom_tool_call_output',
]);

/** True for what the model produced (as opposed to inputs fed back to it). */
/**
 * How a message the model read is kept: developer text and the context Codex injects as user messages
 * (`<environment_context>`, `<user_instructions>`, AGENTS.md) are `system`; anything else a user wrote is `user`.
 */
export function messageRole(role: string, text: string): 'user' | 'system' | null {
  if (role === 'developer' || role === 'system') return 'system';
  if (role !== 'user') return null;
  const t = text.trimStart();
  return t.startsWith('<') || t.startsWith('# AGENTS.md instructions') ? 'system' : 'user';
}

export function isModelOutput(item: ResponseItem): boolean {
  return item.type === 'message' ? item.role === 'assistant' : item.type !== 'function_call_output' && item.type !== 'custom_tool_call_output';
}

export interface LocatedItem {
  item: ResponseItem;
  line: number;
  timestamp: string | null;
}

export interface CallUsage {
  last: TokenUsage | null;
  total: TokenUsage | null;
  line: number;
  timestamp: string | null;
  /** Model of the latest turn_context before this token_count. */
  model: string | null;
  /** `last` was missing and is the difference of two running totals. */
  derived: boolean;
}

/** One model call: its output items and, when logged, its usage. */
export interface Call {
  items: LocatedItem[];
  usage: CallUsage | null;
  /** Model of the latest turn_context when the call's first item or its usage was seen. */
  model: string | null;
  /** Messages the model read since the previous call (prompts, injected context), in file order. */
  inputs: ConversationMessage[];
}

function sameUsage(a: TokenUsage | null | undefined, b: TokenUsage | null | undefined): boolean {
  if (!a || !b) return false;
  return (
    a.input_tokens === b.input_tokens &&
    a.cached_input_tokens === b.cached_input_tokens &&
    a.output_tokens === b.output_tokens &&
    a.reasoning_output_tokens === b.reasoning_output_tokens &&
    a.total_tokens === b.total_tokens
  );
}

/** `a − b` per kind, floored at 0; a kind `a` lacks stays null. */
export function minus(a: TokenUsage, b: TokenUsage | null): TokenUsage {
  const d = (x: number | null | undefined, y: number | null | undefined): number | null =>
    x == null ? null : Math.max(0, x - (y ?? 0));
  return {
    input_tokens: d(a.input_tokens, b?.input_tokens),
    cached_input_tokens: d(a.cached_input_tokens, b?.cached_input_tokens),
    cache_write_input_tokens: d(a.cache_write_input_tokens, b?.cache_write_input_tokens),
    output_tokens: d(a.output_tokens, b?.output_tokens),
    reasoning_output_tokens: d(a.reasoning_output_tokens, b?.reasoning_output_tokens),
    total_tokens: d(a.total_tokens, b?.total_tokens),
  };
}

/**
 * Collects output items and token_counts in file order, then cuts them into calls. Tool results are kept
 * apart (by call_id): they arrive in the next call's stretch of the file but belong to the call that asked.
 */
export class CallCutter {
  private readonly events: (
    | { kind: 'item'; at: LocatedItem; model: string | null }
    | { kind: 'usage'; usage: CallUsage }
    | { kind: 'input'; message: ConversationMessage }
  )[] = [];
  readonly results = new Map<string, { output: unknown; line: number }>();
  private lastTotal: TokenUsage | null = null;
  private base: TokenUsage | null = null;
  private seeded = false;
  /** token_counts that moved the running total: this file's own counted calls. */
  counted = 0;
  model: string | null = null;

  /**
   * Starts the running total where a replayed parent history left it: a forked thread's own token_counts carry
   * on from the parent's total. When the thread's first own token_count shows a total equal to its own usage,
   * the thread counted from zero instead, and the seed is dropped.
   */
  seed(total: TokenUsage | null): void {
    this.lastTotal = this.base = total;
    this.seeded = total !== null;
  }

  /** The running total this file's own calls started from (null: zero). */
  get baseline(): TokenUsage | null {
    return this.base;
  }

  /** A message the model read before its next call. */
  input(message: ConversationMessage): void {
    this.events.push({ kind: 'input', message });
  }

  item(at: LocatedItem): void {
    const it = at.item;
    if (it.type === 'function_call_output' || it.type === 'custom_tool_call_output') {
      if (it.call_id) this.results.set(it.call_id, { output: it.output, line: at.line });
      return;
    }
    if (isModelOutput(it)) this.events.push({ kind: 'item', at, model: this.model });
  }

  /** Returns false when the token_count is a repeat of the previous one (no new call). */
  tokenCount(event: z.infer<typeof TokenCountEvent>, line: number, timestamp: string | null): boolean {
    const total = event.info?.total_token_usage ?? null;
    let last = event.info?.last_token_usage ?? null;
    if (!total && !last) return false;
    if (this.seeded && total && last && sameUsage(total, last)) this.lastTotal = this.base = null;
    this.seeded = false;
    if (total && sameUsage(total, this.lastTotal)) return false;
    let derived = false;
    if (!last && total) {
      last = minus(total, this.lastTotal);
      derived = true;
    }
    if (total) this.lastTotal = total;
    this.events.push({ kind: 'usage', usage: { last, total, line, timestamp, model: this.model, derived } });
    this.counted++;
    return true;
  }

  get finalTotal(): TokenUsage | null {
    return this.lastTotal;
  }

  /** The calls in file order, and the messages after the last one (read by no call). */
  calls(): { calls: Call[]; after: ConversationMessage[] } {
    const firstItem = this.events.findIndex((e) => e.kind === 'item');
    const firstUsage = this.events.findIndex((e) => e.kind === 'usage');
    const usageFirst = firstUsage !== -1 && (firstItem === -1 || firstUsage < firstItem);
    const calls: Call[] = [];
    let open: Call | null = null;
    let pending: ConversationMessage[] = [];
    const take = (): ConversationMessage[] => {
      const taken = pending;
      pending = [];
      return taken;
    };
    for (const e of this.events) {
      if (e.kind === 'input') {
        pending.push(e.message);
      } else if (e.kind === 'item') {
        open ??= { items: [], usage: null, model: e.model, inputs: take() };
        open.items.push(e.at);
      } else if (usageFirst) {
        // The usage opens its call; the items that follow (until the next usage) are that call's.
        if (open) calls.push(open);
        open = { items: [], usage: e.usage, model: e.usage.model, inputs: take() };
      } else {
        const call: Call = open ?? { items: [], usage: null, model: e.usage.model, inputs: take() };
        call.usage = e.usage;
        call.model = e.usage.model ?? call.model;
        calls.push(call);
        open = null;
      }
    }
    if (open) calls.push(open);
    return { calls, after: pending };
  }
}

export function decodeWith<S extends z.ZodType>(schema: S, value: unknown, what: string): { ok: true; value: z.infer<S> } | { ok: false; reason: string } {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: `${what}: ${describeIssue(parsed.error)}` };
}
