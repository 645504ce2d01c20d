/**
 * Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, and the older single-document
 * `session-*.json`): one episode per file, one turn per unique `gemini` message (one model response).
 *
 * Tokens are the Gemini API's usageMetadata as the CLI copied it. `input` is promptTokenCount, which already
 * includes the cached part (`cached` = cachedContentTokenCount; in the samples input = total − output −
 * thoughts, with cached ≤ input), so in = input + tool (the tool-use prompt is input too). `output` is
 * candidatesTokenCount, which leaves thoughts out although they are billed as output, so out = output +
 * thoughts and reasoning = thoughts (canonical `reasoning` is part of `out`).
 *
 * Run: `gemini-cli`. The main session names its project only by a hash of its path, so every session of a
 * user lands in one run (which also keeps subagent sessions in their parent's run); the project folder, when
 * a record lists `directories`, becomes the task category.
 *
 * Every message lands: the first non-empty user message is the task; later user messages (a new prompt, the CLI's
 * own "System: Please continue.") and the CLI's notices (`info`, `error`, `warning`: text shown without a model
 * call, kept as `assistant`) are the next response's inputs, or final messages after the last one. The recordings
 * hold no session totals (only per-message tokens), so there are no log_totals.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import {
  CANONICAL_SCHEMA,
  CanonicalEpisode,
  describeIssue,
  type CanonicalTurn,
  type ConversationMessage,
  type TurnError,
} from '../../shared/canonical.ts';
import { sniffJsonHead } from './jsonHead.ts';
import { foldEveryLine, parseJsonLine } from './lineReader.ts';
import { BadRecord, GeminiSessionFold, partsText, toolResultText, type LocatedMessage } from './geminiCliSession.ts';
import { ImportError, type ImportContext, type Importer, type LineFold } from './types.ts';

const FORMAT = 'gemini-cli';
const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** The legacy format is one document read whole; real ones are a few MB. */
const MAX_DOCUMENT_BYTES = 256 * 1024 * 1024;

const FAMILY: Record<string, string> = {
  run_shell_command: 'bash',
  read_file: 'read',
  read_many_files: 'read',
  list_directory: 'read',
  write_file: 'edit',
  replace: 'edit',
  edit: 'edit',
  glob: 'search',
  search_file_content: 'search',
  grep_search: 'search',
  google_web_search: 'web_search',
  web_fetch: 'web_fetch',
};

function arg(args: unknown, ...keys: string[]): string | null {
  if (typeof args !== 'object' || args === null) return null;
  for (const k of keys) {
    const v = (args as Record<string, unknown>)[k];
    if (typeof v === 'string') return v;
  }
  return null;
}

function clip(s: string, n = 200): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** One line saying what a tool call did, in the words of `bash: ls -la` / `Edit src/a.ts`. */
function summarize(name: string, args: unknown): string {
  const path = arg(args, 'file_path', 'absolute_path', 'path', 'dir_path');
  switch (FAMILY[name]) {
    case 'bash':
      return `bash: ${arg(args, 'command') ?? ''}`;
    case 'read':
      return path ? `Read ${path}` : `${name}(${clip(JSON.stringify(args ?? {}))})`;
    case 'edit':
      return `${name === 'write_file' ? 'Write' : 'Edit'} ${path ?? ''}`.trimEnd();
    case 'search':
      return `Search ${arg(args, 'pattern', 'query') ?? ''}`.trimEnd();
    case 'web_search':
      return `web_search: ${arg(args, 'query') ?? ''}`;
    default:
      return `${name}(${clip(JSON.stringify(args ?? {}) ?? '')})`;
  }
}

function buildTurn(t: number, { message: m }: LocatedMessage, previousModel: string | null): CanonicalTurn {
  const notes: string[] = [];
  let model = m.model ?? null;
  if (!model) {
    model = previousModel ?? 'unknown';
    notes.push(previousModel ? 'model not logged on this message: taken from the previous response' : 'model not logged');
  }
  const calls = m.toolCalls ?? [];
  const toolCalls: NonNullable<CanonicalTurn['tool_calls']> = calls.map((c) => ({
    id: c.id ?? null,
    name: c.name,
    input: c.args === undefined ? null : JSON.stringify(c.args),
    result: toolResultText(c.result, c.resultDisplay),
    is_error: c.status === 'error' ? true : c.status === 'success' ? false : null,
  }));
  const reply = partsText(m.content);
  const first = calls[0];
  const action: CanonicalTurn['action'] = first
    ? { type: 'tool', tool: FAMILY[first.name] ?? first.name, text: calls.map((c) => summarize(c.name, c.args)).join('\n') }
    : { type: 'message', tool: null, text: reply };
  // Statuses are the log's own word on each call; without any, error detection is left to the rules.
  let errors: TurnError[] | null = null;
  if (calls.some((c) => c.status)) {
    errors = [];
    for (const c of calls) {
      if (c.status === 'error') errors.push({ type: 'tool_error', severity: 'medium' });
      else if (c.status === 'cancelled') errors.push({ type: 'tool_cancelled', severity: 'low' });
    }
  }
  const thoughts = (m.thoughts ?? [])
    .map((th) => [th.subject, th.description].filter((s) => s).join(': '))
    .filter((s) => s !== '');
  const tk = m.tokens;
  const observation = toolCalls.map((c) => c.result).filter((r): r is string => r != null);
  return {
    t,
    model,
    action,
    observation: observation.length ? observation.join('\n') : null,
    reasoning: thoughts.length ? thoughts.join('\n') : null,
    // The response's `content` beside its tool calls (the action text summarises the calls).
    message: first && reply.trim() !== '' ? reply : null,
    tool_calls: toolCalls.length ? toolCalls : null,
    notes: notes.length ? notes : null,
    timestamp: m.timestamp ?? null,
    tokens: tk
      ? {
          in: tk.input == null ? null : tk.input + (tk.tool ?? 0),
          out: tk.output == null ? null : tk.output + (tk.thoughts ?? 0),
          cached: tk.cached ?? null,
          reasoning: tk.thoughts ?? null,
        }
      : null,
    errors,
  };
}

function buildEpisode(file: string, fold: GeminiSessionFold, ctx: ImportContext): CanonicalEpisode | null {
  if (!fold.sessionId) throw new ImportError(file, 1, 'no sessionId: not a Gemini CLI session');
  const located = [...fold.messages.values()];
  const firstUser = located.find((l) => l.message.type === 'user' && partsText(l.message.content).trim() !== '');
  const turns: CanonicalTurn[] = [];
  const lines: number[] = [];
  let model: string | null = null;
  let pending: ConversationMessage[] = [];
  for (const l of located) {
    if (l.message.type !== 'gemini') {
      const text = partsText(l.message.content);
      if (l === firstUser || text.trim() === '') continue;
      pending.push({ role: l.message.type === 'user' ? 'user' : 'assistant', text, timestamp: l.message.timestamp ?? null });
      continue;
    }
    const turn = buildTurn(turns.length, l, model);
    if (pending.length) turn.inputs = pending;
    pending = [];
    model = turn.model;
    turns.push(turn);
    lines.push(l.line);
  }
  if (turns.length === 0) {
    ctx.warn(`${file}: Gemini CLI session ${fold.sessionId} has no model responses; nothing imported`);
    return null;
  }
  const project = fold.directories[0] ? basename(fold.directories[0]) : null;
  const parentDir = basename(dirname(file));
  // Subagent recordings live in chats/<parent session id>/<own id>.jsonl.
  const parent = fold.kind === 'subagent' && parentDir !== 'chats' && parentDir !== '' ? { episode_id: parentDir } : null;
  const episode = {
    schema: CANONICAL_SCHEMA,
    run: ctx.runName ?? FORMAT,
    episode_id: fold.sessionId,
    task: { type: FORMAT, category: project, text: firstUser ? partsText(firstUser.message.content) : null },
    outcome: {},
    agent: { name: FORMAT, version: null },
    started_at: fold.startTime,
    kind: parent ? 'subagent' : null,
    parent,
    final_messages: pending.length ? pending : null,
    turns,
  };
  const parsed = CanonicalEpisode.safeParse(episode);
  if (!parsed.success) {
    const at = parsed.error.issues[0]?.path;
    const line = at?.[0] === 'turns' && typeof at[1] === 'number' ? (lines[at[1]] ?? 1) : 1;
    throw new ImportError(file, line, describeIssue(parsed.error));
  }
  return parsed.data;
}

/** 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The legacy single-document session: read whole (size-capped), each message located by its id in the text. */
function foldDocument(file: string, ctx: ImportContext): GeminiSessionFold {
  const size = statSync(file).size;
  if (size > MAX_DOCUMENT_BYTES) throw new ImportError(file, 1, `file is ${size} bytes; a Gemini CLI session document is limited to ${MAX_DOCUMENT_BYTES}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(file));
  } catch {
    throw new ImportError(file, 1, 'not valid UTF-8');
  }
  ctx.onBytes?.(size);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const pos = /position (\d+)/.exec(message);
    throw new ImportError(file, pos ? lineAt(text, Number(pos[1])) : lineAt(text, text.length), `invalid JSON: ${message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new ImportError(file, 1, 'expected one JSON object');
  const { messages, ...header } = doc as Record<string, unknown>;
  const fold = new GeminiSessionFold();
  try {
    fold.apply(header, 1);
  } catch (err) {
    if (err instanceof BadRecord) throw new ImportError(file, 1, err.message);
    throw err;
  }
  if (!Array.isArray(messages)) throw new ImportError(file, 1, 'messages: expected an array');
  let from = 0;
  for (const [i, m] of messages.entries()) {
    const id = typeof m === 'object' && m !== null ? (m as { id?: unknown }).id : undefined;
    const at = typeof id === 'string' ? text.indexOf(JSON.stringify(id).slice(0, -1), from) : -1;
    if (at !== -1) from = at;
    const line = lineAt(text, at === -1 ? from : at);
    try {
      fold.apply(m, line);
    } catch (err) {
      if (err instanceof BadRecord) throw new ImportError(file, line, `messages[${i}]: ${err.message}`);
      throw err;
    }
  }
  return fold;
}

/** The first line of the file that is not blank (within its head), or null. */
function firstLine(file: string): string | null {
  const fd = openSync(file, 'r');
  let head: string;
  try {
    const buf = Buffer.alloc(HEAD_LINE_BYTES);
    head = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
  for (const line of head.split('\n')) if (line.trim() !== '') return line;
  return null;
}

/** How much of a file's start tells a JSON Lines recording (a short header line) from a legacy document. */
const HEAD_LINE_BYTES = 1 << 20;

/**
 * A chat recording written as JSON Lines (a session header, then a record a line), folded line by line: `read` folds
 * every line, the live follower folds them as they are written (issue 36). Null for a legacy document (one JSON
 * object with messages[], pretty-printed or not), which is read whole.
 */
function recordsFold(file: string, ctx: ImportContext): LineFold | null {
  const head = firstLine(file);
  if (head !== null) {
    let first: unknown;
    try {
      first = JSON.parse(head);
    } catch {
      if (head.trim().startsWith('{')) return null; // a pretty-printed legacy document
    }
    if (typeof first === 'object' && first !== null && Array.isArray((first as { messages?: unknown }).messages)) return null;
  }
  const fold = new GeminiSessionFold();
  let sawFirst = false;
  const apply = (value: unknown, lineNo: number): void => {
    try {
      fold.apply(value, lineNo);
    } catch (err) {
      if (err instanceof BadRecord) throw new ImportError(file, lineNo, err.message);
      throw err;
    }
  };
  return {
    maxLineBytes: MAX_LINE_BYTES,

    async line(lineNo, text) {
      if (text.trim() === '') return;
      if (sawFirst) return apply(parseJsonLine(file, lineNo, text), lineNo);
      sawFirst = true;
      let first: unknown;
      try {
        first = JSON.parse(text);
      } catch {
        throw new ImportError(file, lineNo, 'invalid JSON: expected a Gemini CLI session header');
      }
      if (typeof first !== 'object' || first === null || !('sessionId' in first)) {
        throw new ImportError(file, lineNo, 'expected a session header with sessionId on the first line');
      }
      apply(first, lineNo);
    },

    dependsOn: () => null,

    async episodes() {
      if (!sawFirst) throw new ImportError(file, 1, 'empty file');
      const episode = buildEpisode(file, fold, ctx);
      return episode ? [episode] : [];
    },
  };
}

export const geminiCliImporter: Importer = {
  format: FORMAT,
  expects: 'a Gemini CLI chat recording: JSON Lines starting with {sessionId, projectHash, …}, or one such object with messages[]',

  detect(head) {
    const sniff = sniffJsonHead(head);
    return sniff.container === 'object' && sniff.keys.includes('sessionId') && sniff.keys.includes('projectHash');
  },

  follow(file, ctx) {
    return recordsFold(file, ctx);
  },

  async *read(file: string, ctx: ImportContext) {
    const lines = recordsFold(file, ctx);
    if (lines === null) {
      const episode = buildEpisode(file, foldDocument(file, ctx), ctx);
      if (episode) yield episode;
      return;
    }
    yield* foldEveryLine(file, lines, ctx.onBytes);
  },
};
