/**
 * One Crush session's messages → canonical turns. Crush stores each message's content as `parts`, a JSON array
 * of `{type, data}`: `text`, `reasoning`, `tool_call` and `finish` on assistant messages, `tool_result` on tool
 * messages, `text`, `image_url`, `binary` and `shell_command` on user messages. One turn per assistant message
 * (one model response) in the order Crush wrote them; tool results are joined to their calls by id; the first
 * user prompt is the task, later ones the next turn's `inputs`, and what follows the last response is kept as
 * `final_messages`.
 */
import { z } from 'zod';
import { describeIssue, type CanonicalTurn, type ConversationMessage, type ToolCall, type TurnError } from '../../shared/canonical.ts';
import type { CrushMessage } from './crushDatabase.ts';

/** Crush's tools grouped as the other importers group theirs, so lift compares like with like. */
const FAMILY: Record<string, string> = {
  bash: 'bash',
  view: 'read',
  edit: 'edit',
  multiedit: 'edit',
  write: 'edit',
  glob: 'search',
  grep: 'search',
  ls: 'search',
  sourcegraph: 'search',
  fetch: 'web_fetch',
  agentic_fetch: 'web_fetch',
  download: 'web_fetch',
  agent: 'agent',
};
/** Finish reasons of an ordinary response, or one the turn's errors already say; any other is noted on the turn. */
const ORDINARY_FINISH = new Set(['end_turn', 'tool_use', 'stop', 'error']);

const Part = z.object({ type: z.string().max(100), data: z.record(z.string(), z.unknown()) });
const Parts = z.array(Part).max(100_000);
const Text = z.object({ text: z.string() });
const Reasoning = z.object({ thinking: z.string() });
const Call = z.object({ id: z.string().max(300), name: z.string().max(200), input: z.string().nullish() });
const Result = z.object({
  tool_call_id: z.string().max(300),
  name: z.string().max(200).nullish(),
  content: z.string().nullish(),
  is_error: z.boolean().nullish(),
});
const Finish = z.object({ reason: z.string().max(100), message: z.string().nullish(), details: z.string().nullish() });
const Image = z.object({ url: z.string() });
// Go's default field names: BinaryContent has no json tags.
const Binary = z.object({ Path: z.string().nullish(), MIMEType: z.string().nullish() });
const Shell = z.object({ command: z.string(), output: z.string().nullish(), exit_code: z.number().nullish() });

export type Fail = (reason: string) => Error;

/** An ISO time from Crush's integers: whole seconds (every version seen), or milliseconds as its schema comments say. */
export function isoTime(value: number | null): string | null {
  if (value === null || !Number.isFinite(value) || value <= 0) return null;
  const ms = value > 1e11 ? value : value * 1000;
  return ms < 253_402_300_800_000 ? new Date(ms).toISOString() : null;
}

function decode<S extends z.ZodType>(schema: S, value: unknown, where: string, fail: Fail): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw fail(`${where}: ${describeIssue(parsed.error)}`);
  return parsed.data;
}

function parseParts(m: CrushMessage, fail: Fail): z.infer<typeof Parts> {
  let value: unknown;
  try {
    value = JSON.parse(m.parts);
  } catch {
    throw fail(`message ${m.id}: parts is not valid JSON`);
  }
  return decode(Parts, value, `message ${m.id}: parts`, fail);
}

function jsonField(input: string | null | undefined, key: string): string | null {
  if (!input || input.length > 1_000_000) return null;
  try {
    const v: unknown = JSON.parse(input);
    const field = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
    return typeof field === 'string' ? field : null;
  } catch {
    return null;
  }
}

/** `bash: ls`, `view src/a.ts`: what a call did, in the words the other importers use for theirs. */
function summarize(name: string, input: string | null | undefined): string {
  if (name === 'bash') return `bash: ${jsonField(input, 'command') ?? ''}`;
  const path = jsonField(input, 'file_path');
  if (path !== null) return `${name} ${path}`;
  const query = jsonField(input, 'pattern') ?? jsonField(input, 'url') ?? jsonField(input, 'query') ?? jsonField(input, 'prompt') ?? jsonField(input, 'path');
  if (query !== null) return `${name}: ${query.length > 200 ? `${query.slice(0, 200)}…` : query}`;
  const raw = input ?? '';
  return `${name}(${raw.length > 200 ? `${raw.slice(0, 200)}…` : raw})`;
}

interface PendingTurn {
  message: CrushMessage;
  text: string[];
  reasoning: string[];
  calls: ToolCall[];
  finish: z.infer<typeof Finish> | null;
  inputs: ConversationMessage[];
}

/** Where a session's tool call is: the turn that made it, and whether its result came back without error. */
export interface CallSite {
  t: number;
  messageId: string;
  succeeded: boolean;
}

export interface SessionContent {
  taskText: string | null;
  turns: CanonicalTurn[];
  finalMessages: ConversationMessage[];
  calls: Map<string, CallSite>;
  /** Parts of types this importer does not know, by type, left out of the turns. */
  unknownParts: Map<string, number>;
  /** Tool results that name no call of this session: kept as `tool` inputs. */
  strayResults: number;
}

function finishTurn(t: number, p: PendingTurn): CanonicalTurn {
  const { message, calls, finish } = p;
  const notes: string[] = [];
  let model = message.model;
  if (model === null) {
    model = 'unknown';
    notes.push('no model recorded for this response');
  }
  if (finish === null) notes.push('no finish recorded: the response was cut off while it streamed (Crush closed or stopped)');
  else if (!ORDINARY_FINISH.has(finish.reason)) notes.push(`finish reason: ${finish.reason}`);
  const text = p.text.join('\n');
  const first = calls[0];
  const action: CanonicalTurn['action'] = first
    ? { type: 'tool', tool: FAMILY[first.name] ?? first.name, text: calls.map((c) => summarize(c.name, c.input)).join('\n') }
    : { type: 'message', tool: null, text };
  const errors: TurnError[] = [];
  const apiError = finish?.reason === 'error';
  if (apiError) errors.push({ type: 'api_error', severity: 'high' });
  for (const c of calls) if (c.is_error) errors.push({ type: 'tool_error', severity: 'medium' });
  const results = calls.map((c) => c.result).filter((r): r is string => r != null);
  const failure = apiError ? [finish.message, finish.details].filter((s) => s).join(': ') : '';
  if (failure) results.push(`error: ${failure}`);
  return {
    t,
    model,
    action,
    observation: results.length > 0 ? results.join('\n') : null,
    reasoning: p.reasoning.length > 0 ? p.reasoning.join('\n') : null,
    message: first && text.trim() !== '' ? text : null,
    tool_calls: calls.length > 0 ? calls : null,
    inputs: p.inputs.length > 0 ? p.inputs : null,
    notes: notes.length > 0 ? notes : null,
    timestamp: isoTime(message.created_at),
    // Crush logs tokens per session only, and not as totals (crush.ts): a turn's are unknown.
    tokens: null,
    cost_usd: null,
    // Tool results carry is_error and API failures a finish: the log says which turns failed.
    errors: calls.length > 0 || apiError ? errors : null,
    role: message.is_summary ? 'compaction' : null,
  };
}

/** What a user message says: its text, with attachments and `!` shell commands written out. */
function userText(m: CrushMessage, parts: z.infer<typeof Parts>, fail: Fail, unknown: (type: string) => void): string {
  const out: string[] = [];
  for (const [i, part] of parts.entries()) {
    const where = `message ${m.id}: parts[${i}]`;
    switch (part.type) {
      case 'text':
        out.push(decode(Text, part.data, where, fail).text);
        break;
      case 'image_url':
        out.push(`[image: ${decode(Image, part.data, where, fail).url.slice(0, 2000)}]`);
        break;
      case 'binary': {
        const b = decode(Binary, part.data, where, fail);
        out.push(`[attachment: ${b.Path ?? 'unnamed'}${b.MIMEType ? ` (${b.MIMEType})` : ''}]`);
        break;
      }
      case 'shell_command': {
        const s = decode(Shell, part.data, where, fail);
        out.push([`! ${s.command}`, s.output ?? '', s.exit_code ? `(exit ${s.exit_code})` : ''].filter((x) => x !== '').join('\n'));
        break;
      }
      case 'finish':
        break;
      default:
        unknown(part.type);
    }
  }
  return out.join('\n');
}

export function sessionContent(messages: readonly CrushMessage[], summaryMessageId: string | null, fail: Fail): SessionContent {
  // Turns are finished at the end: a tool result may be written after later messages.
  const pending: PendingTurn[] = [];
  const calls = new Map<string, { call: ToolCall; site: CallSite }>();
  const unknownParts = new Map<string, number>();
  const unknown = (type: string): void => void unknownParts.set(type, (unknownParts.get(type) ?? 0) + 1);
  let taskText: string | null = null;
  let strayResults = 0;
  let inputs: ConversationMessage[] = [];

  for (const raw of messages) {
    const m = summaryMessageId !== null && raw.id === summaryMessageId ? { ...raw, is_summary: true } : raw;
    const parts = parseParts(m, fail);
    const timestamp = isoTime(m.created_at);
    if (m.role === 'assistant') {
      const turn: PendingTurn = { message: m, text: [], reasoning: [], calls: [], finish: null, inputs };
      inputs = [];
      for (const [i, part] of parts.entries()) {
        const where = `message ${m.id}: parts[${i}]`;
        if (part.type === 'text') turn.text.push(decode(Text, part.data, where, fail).text);
        else if (part.type === 'reasoning') {
          const thinking = decode(Reasoning, part.data, where, fail).thinking;
          if (thinking !== '') turn.reasoning.push(thinking);
        } else if (part.type === 'tool_call') {
          const c = decode(Call, part.data, where, fail);
          const call: ToolCall = { id: c.id || null, name: c.name, input: c.input ?? null, result: null, is_error: null };
          turn.calls.push(call);
          if (c.id) calls.set(c.id, { call, site: { t: pending.length, messageId: m.id, succeeded: false } });
        } else if (part.type === 'finish') turn.finish = decode(Finish, part.data, where, fail);
        else unknown(part.type);
      }
      pending.push(turn);
    } else if (m.role === 'tool') {
      for (const [i, part] of parts.entries()) {
        if (part.type === 'finish') continue;
        if (part.type !== 'tool_result') {
          unknown(part.type);
          continue;
        }
        const r = decode(Result, part.data, `message ${m.id}: parts[${i}]`, fail);
        const target = calls.get(r.tool_call_id);
        if (target) {
          target.call.result = r.content ?? null;
          target.call.is_error = r.is_error ?? null;
          target.site.succeeded = r.is_error === false;
        } else {
          strayResults++;
          inputs.push({ role: 'tool', text: r.content ?? '', timestamp });
        }
      }
    } else if (m.role === 'user' || m.role === 'system') {
      const text = userText(m, parts, fail, unknown);
      // The session's first prompt is the task; a prompt typed later reaches the model before the next response.
      if (m.role === 'user' && taskText === null && pending.length === 0 && inputs.length === 0) taskText = text;
      else inputs.push({ role: m.role, text, timestamp });
    } else {
      throw fail(`message ${m.id}: unknown role "${m.role.slice(0, 100)}"`);
    }
  }
  return {
    taskText,
    turns: pending.map((p, t) => finishTurn(t, p)),
    finalMessages: inputs,
    calls: new Map([...calls].map(([k, v]) => [k, v.site])),
    unknownParts,
    strayResults,
  };
}
