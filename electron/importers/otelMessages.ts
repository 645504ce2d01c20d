/**
 * Chat messages as GenAI instrumentations record them on spans, in all the dialects seen in practice:
 *
 * - OTel GenAI semconv ≥ 1.37: `gen_ai.input.messages` / `gen_ai.output.messages`, JSON of
 *   `[{role, parts:[{type:"text", content} | {type:"tool_call", id, name, arguments} |
 *   {type:"tool_call_response", id, response}]}]`;
 * - the deprecated `gen_ai.prompt` / `gen_ai.completion` (JSON, plain text, or OpenLLMetry's indexed
 *   `gen_ai.prompt.0.content`, `gen_ai.completion.0.tool_calls.0.name`);
 * - OpenInference `llm.input_messages.N.message.{role, content, contents.M.message_content.text,
 *   tool_calls.J.tool_call.{id, function.name, function.arguments}, tool_call_id}`;
 * - the Vercel AI SDK: `ai.prompt.messages` / `ai.prompt`, `ai.response.text|object|toolCalls`.
 *
 * Message content is free text written by other tools, so it is read leniently: JSON that does not
 * parse is kept as text, never an import error.
 */
import type { Attrs, AttrValue } from './otelSpans.ts';
import { nestedDeeperThan } from './jsonDocument.ts';

export interface ToolCall {
  id: string | null;
  name: string;
  args: string;
}

export interface Message {
  role: string;
  text: string;
  toolCalls: ToolCall[];
  /** For a tool result: the call it answers. */
  toolCallId: string | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const asText = (v: unknown): string =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
const firstString = (...vs: unknown[]): string | null => {
  for (const v of vs) if (typeof v === 'string' && v !== '') return v;
  return null;
};

function parseJson(v: AttrValue | undefined): unknown {
  if (typeof v !== 'string') return v ?? null;
  const t = v.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return v;
  try {
    const parsed: unknown = JSON.parse(t);
    // Too deep to walk or re-serialise safely: keep it as the text it is.
    return nestedDeeperThan(parsed, 100) ? v : parsed;
  } catch {
    return v;
  }
}

function toolCallOf(p: Obj): ToolCall | null {
  const fn = isObj(p.function) ? p.function : null;
  const name = firstString(p.name, p.toolName, fn?.name);
  if (!name) return null;
  return {
    id: firstString(p.id, p.toolCallId),
    name,
    args: asText(p.arguments ?? p.args ?? p.input ?? fn?.arguments),
  };
}

/** One JSON message in any of the dialects; a tool message with several results becomes several messages. */
function messagesOf(o: Obj): Message[] {
  const role = typeof o.role === 'string' ? o.role : 'user';
  const parts: unknown[] = Array.isArray(o.parts) ? o.parts : Array.isArray(o.content) ? o.content : [];
  const texts: string[] = typeof o.content === 'string' ? [o.content] : [];
  const toolCalls: ToolCall[] = [];
  const results: Message[] = [];
  for (const p of parts) {
    if (typeof p === 'string') {
      texts.push(p);
      continue;
    }
    if (!isObj(p)) continue;
    const type = typeof p.type === 'string' ? p.type : 'text';
    if (type === 'text' || type === 'reasoning') {
      if (type === 'text') texts.push(asText(p.content ?? p.text));
    } else if (type === 'tool_call' || type === 'tool-call' || type === 'function_call') {
      const call = toolCallOf(p);
      if (call) toolCalls.push(call);
    } else if (type === 'tool_call_response' || type === 'tool-result' || type === 'function_call_output') {
      results.push({
        role: 'tool',
        text: asText(p.response ?? p.output ?? p.result ?? p.content),
        toolCalls: [],
        toolCallId: firstString(p.id, p.toolCallId, p.call_id),
      });
    }
  }
  if (Array.isArray(o.tool_calls)) {
    for (const c of o.tool_calls) {
      const call = isObj(c) ? toolCallOf(c) : null;
      if (call) toolCalls.push(call);
    }
  }
  const own: Message = {
    role, text: texts.filter((t) => t !== '').join('\n'), toolCalls,
    toolCallId: firstString(o.tool_call_id, o.toolCallId),
  };
  return own.text !== '' || own.toolCalls.length > 0 || results.length === 0 ? [own, ...results] : results;
}

/** A parsed JSON attribute: a message list, `{messages}`, `{prompt}`, `{text}`, one message, or text. */
function fromJson(value: unknown, defaultRole: string): Message[] {
  if (typeof value === 'string') return value === '' ? [] : [{ role: defaultRole, text: value, toolCalls: [], toolCallId: null }];
  if (Array.isArray(value)) return value.flatMap((m) => (isObj(m) ? messagesOf(m) : typeof m === 'string' ? fromJson(m, defaultRole) : []));
  if (!isObj(value)) return [];
  if (Array.isArray(value.messages)) {
    const system = typeof value.system === 'string' ? fromJson(value.system, 'system') : [];
    return [...system, ...fromJson(value.messages, defaultRole)];
  }
  if (typeof value.prompt === 'string') return fromJson(value.prompt, 'user');
  if (Array.isArray(value.choices)) {
    return value.choices.flatMap((c) => (isObj(c) && isObj(c.message) ? messagesOf(c.message) : []));
  }
  if ('role' in value || 'parts' in value || 'content' in value) return messagesOf(value);
  if (typeof value.text === 'string') return fromJson(value.text, defaultRole);
  return [];
}

/** Messages spread over indexed keys: `prefix.N.rest` (OpenInference puts `message.` before rest). */
function indexed(attrs: Attrs, prefix: string): Message[] {
  const byIndex = new Map<number, Map<string, AttrValue>>();
  const head = `${prefix}.`;
  for (const [key, { value }] of attrs) {
    if (!key.startsWith(head)) continue;
    const m = /^(\d+)\.(?:message\.)?(.+)$/.exec(key.slice(head.length));
    if (!m) continue;
    const i = Number(m[1]);
    let fields = byIndex.get(i);
    if (!fields) byIndex.set(i, (fields = new Map()));
    fields.set(m[2] as string, value);
  }
  return [...byIndex.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, f]) => {
      const contents = [...f.entries()]
        .filter(([k]) => /^contents\.\d+\.message_content\.text$/.test(k))
        .map(([, v]) => asText(v));
      const calls = new Map<string, Obj>();
      for (const [k, v] of f) {
        const c = /^tool_calls\.(\d+)\.(?:tool_call\.)?(.+)$/.exec(k);
        if (!c) continue;
        let call = calls.get(c[1] as string);
        if (!call) calls.set(c[1] as string, (call = {}));
        call[(c[2] as string).replace(/^function\./, '')] = v;
      }
      const content = f.get('content');
      return {
        role: asText(f.get('role')) || 'user',
        text: [...(content === undefined || content === null ? [] : [asText(content)]), ...contents].join('\n'),
        toolCalls: [...calls.values()].map(toolCallOf).filter((c): c is ToolCall => c !== null),
        toolCallId: firstString(f.get('tool_call_id')),
      };
    });
}

function eventAttr(events: { name: string; attrs: Attrs }[], name: string, key: string): AttrValue | undefined {
  return events.find((e) => e.name === name)?.attrs.get(key)?.value;
}

/** The messages a model call was given. */
export function inputMessages(attrs: Attrs, events: { name: string; attrs: Attrs }[]): Message[] {
  const json = (key: string): Message[] => {
    const v = attrs.get(key)?.value;
    return v === undefined || v === null ? [] : fromJson(parseJson(v), 'user');
  };
  for (const read of [
    () => json('gen_ai.input.messages'),
    () => json('gen_ai.prompt'),
    () => indexed(attrs, 'gen_ai.prompt'),
    () => indexed(attrs, 'llm.input_messages'),
    () => json('ai.prompt.messages'),
    () => json('ai.prompt'),
    () => fromJson(parseJson(eventAttr(events, 'gen_ai.content.prompt', 'gen_ai.prompt')), 'user'),
  ]) {
    const msgs = read();
    if (msgs.length > 0) return msgs;
  }
  return [];
}

/** What a model call answered: its text and the tool calls it asked for. */
export function outputMessage(attrs: Attrs, events: { name: string; attrs: Attrs }[]): { text: string; toolCalls: ToolCall[] } {
  const str = (key: string): string | null => firstString(attrs.get(key)?.value);
  const json = (key: string): Message[] => {
    const v = attrs.get(key)?.value;
    return v === undefined || v === null ? [] : fromJson(parseJson(v), 'assistant');
  };
  const vercelCalls = (): ToolCall[] => {
    const v = parseJson(attrs.get('ai.response.toolCalls')?.value);
    return Array.isArray(v) ? v.map((c) => (isObj(c) ? toolCallOf(c) : null)).filter((c): c is ToolCall => c !== null) : [];
  };
  const sources: (() => Message[])[] = [
    () => json('gen_ai.output.messages'),
    () => json('gen_ai.completion'),
    () => indexed(attrs, 'gen_ai.completion'),
    () => indexed(attrs, 'llm.output_messages'),
    () => {
      const text = str('ai.response.text') ?? str('ai.response.object') ?? '';
      const toolCalls = vercelCalls();
      return text === '' && toolCalls.length === 0 ? [] : [{ role: 'assistant', text, toolCalls, toolCallId: null }];
    },
    () => fromJson(parseJson(eventAttr(events, 'gen_ai.content.completion', 'gen_ai.completion')), 'assistant'),
    () => json('output.value'),
  ];
  for (const read of sources) {
    const msgs = read().filter((m) => m.role !== 'user' && m.role !== 'system' && m.role !== 'tool');
    if (msgs.length > 0) {
      return {
        text: msgs.map((m) => m.text).filter((t) => t !== '').join('\n'),
        toolCalls: msgs.flatMap((m) => m.toolCalls),
      };
    }
  }
  return { text: '', toolCalls: [] };
}

const sameMessage = (a: Message, b: Message): boolean => a.role === b.role && a.text === b.text && a.toolCallId === b.toolCallId;

/** Roles of a call's input that someone other than the model wrote, as the canonical format names them. */
const INPUT_ROLES: Record<string, 'user' | 'system'> = { user: 'user', human: 'user', system: 'system', developer: 'system' };

/**
 * The prompts and instructions a call was given that the call before it was not: what a person typed between two
 * model calls, or text the agent injected. Instrumentations record a call's whole input, which either replays the
 * conversation (the previous input, its answer, tool results, then anything new) or, for stateful APIs, holds only
 * what is new. So: the part after the previous input when it is replayed; else what follows the last assistant
 * message; else all of it. Model answers and tool results are left out (they are turns and observations).
 */
export function newInputs(previous: Message[], current: Message[]): { role: 'user' | 'system'; text: string }[] {
  let tail: Message[];
  if (previous.length > 0 && previous.length <= current.length && previous.every((m, i) => sameMessage(m, current[i] as Message))) {
    tail = current.slice(previous.length);
  } else {
    const lastAnswer = current.findLastIndex((m) => m.role === 'assistant' || m.role === 'model');
    tail = lastAnswer >= 0 ? current.slice(lastAnswer + 1) : current;
  }
  return tail.flatMap((m) => {
    const role = INPUT_ROLES[m.role];
    return role && m.text !== '' ? [{ role, text: m.text }] : [];
  });
}
