/**
 * GitHub Copilot CLI session event logs (`~/.copilot/session-state/<id>/events.jsonl`): one episode per file,
 * one turn per `assistant.message` (one model response), its `toolRequests` joined by toolCallId to the
 * `tool.execution_complete` events that carry their results.
 *
 * Copilot logs no tokens per request: turns carry none. `session.shutdown` gives per-model totals, which
 * become the episode's `usage_totals`. Their `inputTokens` already include cache reads (in the sample,
 * 186,809 input against 151,738 cache read over 6 requests whose final context is 35,322 tokens: six
 * prompts of at most that size cannot hold 186,809 + 151,738), so in = inputTokens. The shutdown's
 * `requests.cost` counts premium requests, GitHub's billing unit, not dollars: it goes into a note.
 *
 * Model: the one a tool execution of the turn names, else the latest `session.model_change`.
 * Run: `copilot-cli/<cwd basename>` from `session.start`'s context.
 *
 * Messages: the first prompt is the task; a later `user.message` is the next response's input, as the user's
 * words (`content`) or, when it has none, as the text the agent sent in their place (`transformedContent`: the
 * autopilot's "you have not yet marked the task as complete" nudge), which is `system`. A `system.message` equal to
 * the system prompt is the prompt sent again, not a new message. A session that ended on a failure
 * (`session.error`, such as 402 "no quota", or `model.call_failure`) names it as its exit, turns or not.
 */
import { basename } from 'node:path';
import { z } from 'zod';
import {
  CANONICAL_SCHEMA,
  CanonicalEpisode,
  MAX_TOKENS,
  describeIssue,
  type CanonicalTurn,
  type ConversationMessage,
  type TurnError,
} from '../../shared/canonical.ts';
import { nameRecord } from '../../shared/nameRecord.ts';
import { sniffJsonHead } from './jsonHead.ts';
import { foldEveryLine, parseJsonLine } from './lineReader.ts';
import { ImportError, type ImportContext, type Importer, type LineFold } from './types.ts';

const FORMAT = 'copilot-cli';
const MAX_LINE_BYTES = 64 * 1024 * 1024;

const count = z.number().int().nonnegative().max(MAX_TOKENS, `over the limit of ${MAX_TOKENS.toLocaleString('en-US')}`);

const Event = z.object({
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
  id: z.string().nullish(),
  timestamp: z.string().nullish(),
});

const SessionStart = z.object({
  sessionId: z.string().min(1),
  copilotVersion: z.string().nullish(),
  startTime: z.string().nullish(),
  selectedModel: z.string().nullish(),
  context: z.object({ cwd: z.string().nullish() }).nullish(),
});

const ToolRequest = z.object({ toolCallId: z.string().nullish(), name: z.string(), arguments: z.unknown().optional() });

const AssistantMessage = z.object({
  content: z.string().nullish(),
  reasoningText: z.string().nullish(),
  toolRequests: z.array(ToolRequest).nullish(),
});

const ToolStart = z.object({ toolCallId: z.string(), toolName: z.string(), arguments: z.unknown().optional() });

const ToolComplete = z.object({
  toolCallId: z.string(),
  model: z.string().nullish(),
  success: z.boolean().nullish(),
  result: z.object({ content: z.string().nullish(), detailedContent: z.string().nullish() }).nullish(),
  error: z.union([z.string(), z.object({ message: z.string().nullish() })]).nullish(),
});

// Keyed by model names the log wrote: nameRecord keeps a model called `__proto__`, which z.record drops.
const ModelMetrics = nameRecord(
  z.object({
    requests: z.object({ count: count.nullish(), cost: z.number().nonnegative().max(1e9).nullish() }).nullish(),
    usage: z
      .object({
        inputTokens: count.nullish(),
        outputTokens: count.nullish(),
        cacheReadTokens: count.nullish(),
        cacheWriteTokens: count.nullish(),
        reasoningTokens: count.nullish(),
      })
      .nullish(),
  }),
);

const UserMessage = z.object({ content: z.string().nullish(), transformedContent: z.string().nullish() });

const SessionError = z.object({
  errorType: z.string().nullish(),
  message: z.string().nullish(),
  statusCode: z.number().int().nullish(),
});

const CallFailure = z.object({ model: z.string().nullish(), statusCode: z.number().int().nullish(), errorMessage: z.string().nullish() });

const Shutdown = z.object({ modelMetrics: ModelMetrics.nullish(), totalPremiumRequests: z.number().nonnegative().nullish() });

const FAMILY: Record<string, string> = {
  bash: 'bash',
  view: 'read',
  str_replace_editor: 'edit',
  str_replace: 'edit',
  edit: 'edit',
  create: 'edit',
  glob: 'search',
  grep: 'search',
  web_search: 'web_search',
  web_fetch: 'web_fetch',
};

/** The failure as the episode's exit: `quota 402: You have exceeded your monthly quota`. */
function failureText(kind: string, status: number | null | undefined, message: string | null | undefined): string {
  const text = `${kind}${status == null ? '' : ` ${status}`}: ${message?.trim() || 'no message'}`;
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

type Metrics = z.infer<typeof ModelMetrics>;

/** The shutdown's per-model totals summed over the models: the session's own totals (premium requests are not USD). */
function logTotalsOf(metrics: [string, Metrics[string]][]): CanonicalEpisode['log_totals'] {
  if (metrics.length === 0) return null;
  const sum = (f: (m: Metrics[string]) => number | null | undefined): number | null =>
    metrics.reduce<number | null>((a, [, m]) => (f(m) == null ? a : (a ?? 0) + (f(m) ?? 0)), null);
  return {
    source: 'session.shutdown modelMetrics, summed over models',
    requests: sum((m) => m.requests?.count),
    tokens: {
      in: sum((m) => m.usage?.inputTokens),
      out: sum((m) => m.usage?.outputTokens),
      cached: sum((m) => m.usage?.cacheReadTokens),
      cache_write: sum((m) => m.usage?.cacheWriteTokens),
      reasoning: sum((m) => m.usage?.reasoningTokens),
    },
  };
}

function decode<S extends z.ZodType>(file: string, line: number, schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ImportError(file, line, `${what}: ${describeIssue(parsed.error)}`);
  return parsed.data;
}

function arg(args: unknown, key: string): string | null {
  const v = typeof args === 'object' && args !== null ? (args as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' ? v : null;
}

function summarize(name: string, args: unknown): string {
  const path = arg(args, 'path');
  if (name === 'bash') return `bash: ${arg(args, 'command') ?? ''}`;
  if (path && (FAMILY[name] === 'read' || FAMILY[name] === 'edit')) return `${name} ${path}`;
  const query = arg(args, 'query') ?? arg(args, 'pattern') ?? arg(args, 'url') ?? arg(args, 'intent');
  if (query !== null) return `${name}: ${query}`;
  const json = JSON.stringify(args ?? {}) ?? '';
  return `${name}(${json.length > 200 ? `${json.slice(0, 200)}…` : json})`;
}

interface PendingCall {
  id: string | null;
  name: string;
  input: string | null;
  args: unknown;
  result: string | null;
  isError: boolean | null;
  model: string | null;
  /** Known only from execution events, not from the message's toolRequests. */
  unrequested: boolean;
}

interface PendingTurn {
  line: number;
  inputs: ConversationMessage[];
  timestamp: string | null;
  model: string | null;
  text: string;
  reasoning: string | null;
  calls: PendingCall[];
}

function finishTurn(t: number, p: PendingTurn): CanonicalTurn {
  const notes: string[] = [];
  const toolModel = p.calls.find((c) => c.model)?.model ?? null;
  let model = toolModel ?? p.model;
  if (!model) {
    model = 'unknown';
    notes.push('no model named before this response');
  }
  if (p.calls.some((c) => c.unrequested)) {
    notes.push('some tool calls appear only as execution events, not in the message\'s toolRequests: joined to the response before them');
  }
  // report_intent only tells the UI what the agent is about to do; the turn's tool is the first real call.
  const first = p.calls.find((c) => c.name !== 'report_intent') ?? p.calls[0];
  const submit = p.calls.some((c) => c.name === 'task_complete');
  const action: CanonicalTurn['action'] = first
    ? {
        type: submit ? 'submit' : 'tool',
        tool: FAMILY[first.name] ?? first.name,
        text: p.calls.map((c) => summarize(c.name, c.args)).join('\n'),
      }
    : { type: 'message', tool: null, text: p.text };
  let errors: TurnError[] | null = null;
  if (p.calls.some((c) => c.isError !== null)) {
    errors = p.calls.filter((c) => c.isError).map(() => ({ type: 'tool_error', severity: 'medium' as const }));
  }
  const observation = p.calls.map((c) => c.result).filter((r): r is string => r != null);
  return {
    t,
    model,
    action,
    observation: observation.length ? observation.join('\n') : null,
    reasoning: p.reasoning,
    // The message's content beside its tool requests (the action text summarises the calls).
    message: first && p.text.trim() !== '' ? p.text : null,
    tool_calls: p.calls.length
      ? p.calls.map((c) => ({ id: c.id, name: c.name, input: c.input, result: c.result, is_error: c.isError }))
      : null,
    inputs: p.inputs.length ? p.inputs : null,
    notes: notes.length ? notes : null,
    timestamp: p.timestamp,
    tokens: null,
    errors,
  };
}

/** A session's events read line by line: `read` folds every line, the live follower folds them as they are written (issue 36). */
function eventsFold(file: string, ctx: ImportContext): LineFold {
  let start: z.infer<typeof SessionStart> | null = null;
  let model: string | null = null;
  let systemPrompt: string | null = null;
  let prompt: string | null = null;
  let taskComplete = false;
  let failure: string | null = null;
  let inputs: ConversationMessage[] = [];
  let shutdown: z.infer<typeof Shutdown> | null = null;
  let shutdownLine = 1;
  const pending: PendingTurn[] = [];
  const byCallId = new Map<string, PendingCall>();

  return {
    maxLineBytes: MAX_LINE_BYTES,

    async line(lineNo, text) {
      // As readJsonLines reads the events: blank lines skipped, a line that is not JSON refused at its line.
      if (text.trim() === '') return;
      const value = parseJsonLine(file, lineNo, text);
        const ev = decode(file, lineNo, Event, value, 'event');
        const { data } = ev;
        if (ev.type === 'session.start') {
          start ??= decode(file, lineNo, SessionStart, data, 'session.start');
          model ??= start.selectedModel ?? null;
          return;
        }
        if (start === null) throw new ImportError(file, lineNo, 'expected a session.start event first');
        switch (ev.type) {
          case 'session.model_change':
            if (typeof data.newModel === 'string' && data.newModel !== '') model = data.newModel;
            break;
          case 'system.message':
            if (typeof data.content !== 'string') break;
            if (systemPrompt === null) systemPrompt = data.content;
            else if (data.content !== systemPrompt) inputs.push({ role: 'system', text: data.content, timestamp: ev.timestamp ?? null });
            break;
          case 'user.message': {
            const u = decode(file, lineNo, UserMessage, data, 'user.message');
            const words = u.content?.trim() ? u.content : null;
            if (words !== null && prompt === null) prompt = words;
            else if (words !== null) inputs.push({ role: 'user', text: words, timestamp: ev.timestamp ?? null });
            else if (u.transformedContent?.trim()) inputs.push({ role: 'system', text: u.transformedContent, timestamp: ev.timestamp ?? null });
            break;
          }
          case 'session.error': {
            const e = decode(file, lineNo, SessionError, data, 'session.error');
            failure = failureText(e.errorType ?? 'error', e.statusCode, e.message);
            break;
          }
          case 'model.call_failure': {
            const e = decode(file, lineNo, CallFailure, data, 'model.call_failure');
            failure = failureText(`model call failed${e.model ? ` (${e.model})` : ''}`, e.statusCode, e.errorMessage);
            break;
          }
          case 'assistant.message': {
            const m = decode(file, lineNo, AssistantMessage, data, 'assistant.message');
            const calls = (m.toolRequests ?? []).map((r) => {
              const call: PendingCall = {
                id: r.toolCallId ?? null,
                name: r.name,
                input: r.arguments === undefined ? null : JSON.stringify(r.arguments),
                args: r.arguments,
                result: null,
                isError: null,
                model: null,
                unrequested: false,
              };
              if (call.id) byCallId.set(call.id, call);
              return call;
            });
            pending.push({
              line: lineNo,
              inputs,
              timestamp: ev.timestamp ?? null,
              model,
              text: m.content ?? '',
              reasoning: m.reasoningText || null,
              calls,
            });
            inputs = [];
            failure = null;
            break;
          }
          case 'tool.execution_start': {
            const s = decode(file, lineNo, ToolStart, data, 'tool.execution_start');
            const turn = pending.at(-1);
            if (!byCallId.has(s.toolCallId) && turn) {
              const call: PendingCall = {
                id: s.toolCallId,
                name: s.toolName,
                input: s.arguments === undefined ? null : JSON.stringify(s.arguments),
                args: s.arguments,
                result: null,
                isError: null,
                model: null,
                unrequested: true,
              };
              byCallId.set(s.toolCallId, call);
              turn.calls.push(call);
            }
            break;
          }
          case 'tool.execution_complete': {
            const c = decode(file, lineNo, ToolComplete, data, 'tool.execution_complete');
            const call = byCallId.get(c.toolCallId);
            if (!call) {
              ctx.warn(`${file}:${lineNo}: tool result ${c.toolCallId} has no tool call before it; left out`);
              break;
            }
            const error = typeof c.error === 'string' ? c.error : (c.error?.message ?? null);
            call.result = [c.result?.content ?? null, error === null ? null : `error: ${error}`].filter((s) => s !== null).join('\n') || null;
            call.isError = c.success == null ? null : !c.success;
            call.model = c.model ?? null;
            break;
          }
          case 'session.task_complete':
            taskComplete = true;
            break;
          case 'session.shutdown':
            shutdown = decode(file, lineNo, Shutdown, data, 'session.shutdown');
            shutdownLine = lineNo;
            break;
          default:
            break;
        }
    },

    dependsOn: () => null,

    async episodes() {
      if (start === null) throw new ImportError(file, 1, 'no session.start event: not a Copilot CLI session');

      const turns = pending.map((p, t) => finishTurn(t, p));
      const metrics = Object.entries(shutdown?.modelMetrics ?? {});
      const usageTotals = metrics.map(([name, m]) => ({
        model: name,
        requests: m.requests?.count ?? null,
        tokens: m.usage
          ? {
              in: m.usage.inputTokens ?? null,
              out: m.usage.outputTokens ?? null,
              cached: m.usage.cacheReadTokens ?? null,
              cache_write: m.usage.cacheWriteTokens ?? null,
              reasoning: m.usage.reasoningTokens ?? null,
            }
          : null,
      }));
      const premium = metrics.filter(([, m]) => m.requests?.cost != null).map(([name, m]) => `${name}: ${m.requests?.cost}`);
      const last = turns.at(-1);
      if (last && premium.length) {
        last.notes = [
          ...(last.notes ?? []),
          `session used premium requests (${premium.join(', ')}): GitHub's billing unit, not USD; per-request tokens are not logged, totals are in usage_totals`,
        ];
      }
      const project = start.context?.cwd ? basename(start.context.cwd) : null;
      const episode = {
        schema: CANONICAL_SCHEMA,
        run: ctx.runName ?? (project ? `${FORMAT}/${project}` : FORMAT),
        episode_id: start.sessionId,
        task: { type: FORMAT, category: project, text: prompt },
        // The agent's own claim that it finished, as logged; whether the task succeeded is not said.
        outcome: taskComplete ? { exit: 'task_complete' } : failure !== null ? { exit: failure } : {},
        agent: { name: FORMAT, version: start.copilotVersion ?? null },
        started_at: start.startTime ?? null,
        system_prompt: systemPrompt,
        usage_totals: usageTotals.length ? usageTotals : null,
        log_totals: logTotalsOf(metrics),
        final_messages: inputs.length ? inputs : null,
        turns,
      };
      const parsed = CanonicalEpisode.safeParse(episode);
      if (!parsed.success) {
        const at = parsed.error.issues[0]?.path;
        const line =
          at?.[0] === 'turns' && typeof at[1] === 'number' ? (pending[at[1]]?.line ?? 1) : at?.[0] === 'usage_totals' || at?.[0] === 'log_totals' ? shutdownLine : 1;
        throw new ImportError(file, line, describeIssue(parsed.error));
      }
      return [parsed.data];
    },
  };
}

export const copilotCliImporter: Importer = {
  format: FORMAT,
  expects: 'a Copilot CLI session event log: JSON Lines of {type, data, id, timestamp} starting with session.start',

  detect(head) {
    const sniff = sniffJsonHead(head);
    if (sniff.container !== 'object' || sniff.strings.get('type') !== 'session.start' || !sniff.keys.includes('data')) return false;
    const end = head.indexOf('\n');
    return /"(?:copilotVersion|producer)"\s*:/.test(end === -1 ? head : head.slice(0, end));
  },

  follow: eventsFold,

  async *read(file: string, ctx: ImportContext) {
    const fold = eventsFold(file, ctx);
    yield* foldEveryLine(file, fold, ctx.onBytes);
  },
};
