/**
 * OpenAI Codex CLI rollouts (`rollout-*.jsonl`): one episode per file (a session), one turn per model call
 * (see codexCliRollout.ts for how calls are cut).
 *
 * A thread another thread started (a subagent's `thread_spawn`, a `fork`) is a child episode of that thread.
 * A forked one (`forked_from_id`) opens with the parent's history replayed, token_counts included, all stamped
 * at the moment of the fork: those calls are the parent's, counted in the parent's episode, so they are no turns
 * of the child. The thread's own work starts at its first own `task_started`: the first whose turn id (a UUIDv7)
 * is not older than the thread's id; where the ids carry no time, the second task_started (the parent's turn,
 * then the thread's own).
 *
 * A session whose calls all failed (a model that refused the request, no token_count) is still an episode, with
 * no turns and the failure as its exit. `log_totals` is the last token_count's `total_token_usage`, less the
 * parent's replayed total when the thread's running total carries on from it.
 *
 * Tokens follow OpenAI's convention, which is the canonical one: input_tokens includes the cached ones, so
 * in = input_tokens and cached = cached_input_tokens; reasoning_output_tokens are part of output_tokens.
 * The model is the latest `turn_context.model`, kept as logged (a custom provider alias such as
 * `aide-gpt-5` stays as it is). Rollouts hold no cost. Run: `codex/<cwd basename>`.
 */
import { basename } from 'node:path';
import {
  CANONICAL_SCHEMA,
  CanonicalEpisode,
  describeIssue,
  type CanonicalTurn,
  type TurnError,
} from '../../shared/canonical.ts';
import {
  CallCutter,
  KNOWN_ITEMS,
  ResponseItem,
  RolloutLine,
  SessionMeta,
  TokenCountEvent,
  TurnContext,
  decodeWith,
  messageRole,
  minus,
  threadOrigin,
  uuidV7Millis,
  type Call,
  type ThreadOrigin,
  type TokenUsage,
} from './codexCliRollout.ts';
import { sniffJsonHead } from './jsonHead.ts';
import { foldEveryLine, parseJsonLine } from './lineReader.ts';
import { ImportError, type ImportContext, type Importer, type LineFold } from './types.ts';

const FORMAT = 'codex';
const MAX_LINE_BYTES = 64 * 1024 * 1024;

const FAMILY: Record<string, string> = {
  shell: 'bash',
  exec_command: 'bash',
  local_shell_call: 'bash',
  'container.exec': 'bash',
  apply_patch: 'edit',
  update_plan: 'plan',
  web_search_call: 'web_search',
  web_search: 'web_search',
  view_image: 'read',
};

function clip(s: string, n = 200): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

function parseArgs(text: string | null | undefined): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** `["bash", "-lc", "ls -la"]` → `ls -la`; other argv are joined with spaces. */
function commandText(command: unknown): string | null {
  if (typeof command === 'string') return command;
  if (!Array.isArray(command) || !command.every((c) => typeof c === 'string')) return null;
  const argv = command as string[];
  if (argv.length === 3 && /(^|\/)(ba|z)?sh$/.test(argv[0] ?? '') && (argv[1] === '-lc' || argv[1] === '-c')) return argv[2] ?? '';
  return argv.join(' ');
}

/** Files an apply_patch names (`*** Update File: a.ts`), for an `Edit a.ts` summary. */
function patchFiles(patch: string): string[] {
  return [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => (m[1] ?? '').trim());
}

interface ToolUse {
  id: string | null;
  name: string;
  input: string | null;
  summary: string;
}

function toolUse(item: ResponseItem): ToolUse | null {
  switch (item.type) {
    case 'function_call': {
      const args = parseArgs(item.arguments);
      let summary = `${item.name}(${clip(item.arguments ?? '')})`;
      if (FAMILY[item.name] === 'bash') {
        const cmd = commandText(args?.command ?? args?.cmd);
        if (cmd !== null) summary = `bash: ${cmd}`;
      } else if (item.name === 'apply_patch' && typeof args?.input === 'string') {
        summary = `Edit ${patchFiles(args.input).join(', ')}`.trimEnd();
      }
      return { id: item.call_id ?? null, name: item.name, input: item.arguments ?? null, summary };
    }
    case 'custom_tool_call': {
      const input = item.input ?? '';
      const summary = item.name === 'apply_patch' ? `Edit ${patchFiles(input).join(', ')}`.trimEnd() : `${item.name}: ${clip(input)}`;
      return { id: item.call_id ?? null, name: item.name, input: item.input ?? null, summary };
    }
    case 'local_shell_call': {
      const cmd = commandText(item.action?.command) ?? '';
      return { id: item.call_id ?? null, name: 'local_shell_call', input: JSON.stringify(item.action ?? {}), summary: `bash: ${cmd}` };
    }
    case 'web_search_call':
      return { id: null, name: 'web_search_call', input: JSON.stringify(item.action ?? {}), summary: `web_search: ${item.action?.query ?? ''}` };
    default:
      return null;
  }
}

/** A tool result as text, and whether it failed when the output says so (exit code or success flag). */
function readResult(output: unknown): { text: string | null; isError: boolean | null } {
  let text: string | null = null;
  let isError: boolean | null = null;
  if (typeof output === 'string') {
    text = output;
    // Codex ≤0.4x wrapped shell results as JSON text: {"output": "...", "metadata": {"exit_code": 0}}.
    const parsed = parseArgs(output);
    if (parsed && typeof parsed.output === 'string') {
      text = parsed.output;
      const meta = parsed.metadata as { exit_code?: unknown } | undefined;
      if (typeof meta?.exit_code === 'number') isError = meta.exit_code !== 0;
    } else {
      const code = /^(?:Exit code: |Process exited with code )(\d+)$/m.exec(output.slice(0, 500));
      if (code) isError = code[1] !== '0';
    }
  } else if (typeof output === 'object' && output !== null) {
    const o = output as { content?: unknown; success?: unknown };
    if (typeof o.content === 'string') text = o.content;
    else if (Array.isArray(output)) text = output.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
    else text = JSON.stringify(output);
    if (typeof o.success === 'boolean') isError = !o.success;
  }
  return { text, isError };
}

function textOf(parts: { text?: string | null }[] | null | undefined): string {
  return (parts ?? []).map((p) => p.text ?? '').filter((s) => s !== '').join('\n');
}

function tokensOf(u: TokenUsage | null): CanonicalTurn['tokens'] {
  if (!u) return null;
  return {
    in: u.input_tokens ?? null,
    out: u.output_tokens ?? null,
    cached: u.cached_input_tokens ?? null,
    cache_write: u.cache_write_input_tokens ?? null,
    reasoning: u.reasoning_output_tokens ?? null,
  };
}

function buildTurn(t: number, call: Call, results: CallCutter['results']): { turn: CanonicalTurn; line: number } {
  const notes: string[] = [];
  const uses: ToolUse[] = [];
  const replies: string[] = [];
  const reasoning: string[] = [];
  for (const { item } of call.items) {
    const use = toolUse(item);
    if (use) uses.push(use);
    else if (item.type === 'message') replies.push(textOf(item.content));
    else if (item.type === 'reasoning') reasoning.push(textOf(item.summary), textOf(item.content));
  }
  const toolCalls = uses.map((u) => {
    const r = u.id ? results.get(u.id) : undefined;
    const { text, isError } = r ? readResult(r.output) : { text: null, isError: null };
    return { id: u.id, name: u.name, input: u.input, result: text, is_error: isError };
  });
  const first = uses[0];
  const reply = replies.filter((s) => s !== '').join('\n');
  const action: CanonicalTurn['action'] = first
    ? { type: 'tool', tool: FAMILY[first.name] ?? first.name, text: uses.map((u) => u.summary).join('\n') }
    : { type: 'message', tool: null, text: reply };
  let errors: TurnError[] | null = null;
  if (toolCalls.some((c) => c.is_error !== null)) {
    errors = toolCalls.filter((c) => c.is_error).map(() => ({ type: 'tool_error', severity: 'medium' as const }));
  }
  let model = call.model;
  if (!model) {
    model = 'unknown';
    notes.push('no turn_context named the model before this call');
  }
  if (!call.usage) notes.push('no token_count for this call (the session ended or was interrupted before it)');
  else if (call.usage.derived) notes.push('tokens are the difference of two running totals (no last_token_usage logged)');
  const observation = toolCalls.map((c) => c.result).filter((r): r is string => r != null);
  const reasoningText = reasoning.filter((s) => s !== '').join('\n');
  const firstItem = call.items[0];
  return {
    turn: {
      t,
      model,
      action,
      observation: observation.length ? observation.join('\n') : null,
      reasoning: reasoningText || null,
      // What the model wrote beside its tool calls (the action text summarises the calls).
      message: first && reply !== '' ? reply : null,
      tool_calls: toolCalls.length ? toolCalls : null,
      inputs: call.inputs.length ? call.inputs : null,
      notes: notes.length ? notes : null,
      timestamp: firstItem?.timestamp ?? call.usage?.timestamp ?? null,
      tokens: tokensOf(call.usage?.last ?? null),
      errors,
    },
    line: call.usage?.line ?? firstItem?.line ?? 1,
  };
}

/** The failure a session ended on, from an `error` or `turn_aborted` event, as the episode's exit. */
function failureOf(payload: Record<string, unknown>): string | null {
  const said = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
  if (payload.type === 'error') return clip(`error: ${said(payload.message) ?? 'unknown'}`, 290);
  if (payload.type === 'turn_aborted') return clip(`turn_aborted: ${said(payload.reason) ?? 'unknown'}`, 290);
  return null;
}

/** The replayed start of a forked thread: the lines it spans and where the thread's own work begins. */
interface Replay {
  origin: ThreadOrigin;
  /** task_started events seen so far (the fallback boundary is the second). */
  tasks: number;
  firstLine: number | null;
  lastLine: number | null;
  /** The line of the thread's own first task_started; null while still in the replay. */
  endLine: number | null;
  /** The thread's own start was told by the order of task_started, not by the ids' times. */
  byPosition: boolean;
}

function sumsTo(calls: Call[], total: TokenUsage): boolean {
  const keys = ['input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_output_tokens'] as const;
  return keys.every((k) => calls.reduce((s, c) => s + (c.usage?.last?.[k] ?? 0), 0) === (total[k] ?? 0));
}

/** A rollout read line by line: `read` folds every line, the live follower folds them as they are written (issue 36). */
function rolloutFold(file: string, ctx: ImportContext): LineFold {
  const cutter = new CallCutter();
  // The parent's calls a forked thread replays, cut apart from the thread's own so that none becomes its turn.
  const replayed = new CallCutter();
  let meta: SessionMeta | null = null;
  let replay: Replay | null = null;
  let cwd: string | null = null;
  let prompt: string | null = null;
  let firstUserItem: string | null = null;
  let failure: string | null = null;
  const fail = (line: number, reason: string): ImportError => new ImportError(file, line, reason);

  return {
    maxLineBytes: MAX_LINE_BYTES,

    async line(lineNo, text) {
      // As readJsonLines reads a rollout: blank lines skipped, a line that is not JSON refused at its line.
      if (text.trim() === '') return;
      const value = parseJsonLine(file, lineNo, text);
        const line = decodeWith(RolloutLine, value, 'rollout line');
        if (!line.ok) throw fail(lineNo, line.reason);
        const { type, payload, timestamp } = line.value;
        if (type === 'session_meta') {
          const m = decodeWith(SessionMeta, payload, 'session_meta');
          if (!m.ok) throw fail(lineNo, m.reason);
          // A resumed or forked session repeats the meta of the one it came from: the first is this file's.
          if (replay && replay.endLine === null) {
            replay.firstLine ??= lineNo;
            replay.lastLine = lineNo;
          }
          if (meta === null) {
            meta = m.value;
            cwd = m.value.cwd ?? null;
            const origin = threadOrigin(m.value);
            if (origin) {
              replay = { origin, tasks: 0, firstLine: null, lastLine: null, endLine: origin.replays ? null : lineNo, byPosition: false };
            }
          }
          return;
        }
        if (meta === null) throw fail(lineNo, 'expected a session_meta line before the session');
        const inReplay = replay !== null && replay.endLine === null;
        if (replay && inReplay) {
          replay.firstLine ??= lineNo;
          replay.lastLine = lineNo;
        }
        if (replay && inReplay && type === 'event_msg' && payload.type === 'task_started') {
          replay.tasks++;
          const threadAt = uuidV7Millis(meta.id);
          const turnAt = uuidV7Millis(typeof payload.turn_id === 'string' ? payload.turn_id : null);
          const byPosition = threadAt === null || turnAt === null;
          if (byPosition ? replay.tasks === 2 : (turnAt ?? 0) >= (threadAt ?? 0)) {
            replay.endLine = lineNo;
            replay.lastLine = lineNo - 1;
            replay.byPosition = byPosition;
            cutter.seed(replayed.finalTotal);
            cutter.model = replayed.model;
          }
          return;
        }
        const into = inReplay ? replayed : cutter;
        if (type === 'turn_context') {
          const c = decodeWith(TurnContext, payload, 'turn_context');
          if (!c.ok) throw fail(lineNo, c.reason);
          if (c.value.model) into.model = c.value.model;
          cwd ??= c.value.cwd ?? null;
        } else if (type === 'response_item') {
          if (typeof payload.type !== 'string' || !KNOWN_ITEMS.has(payload.type)) return;
          const item = decodeWith(ResponseItem, payload, `response_item ${payload.type}`);
          if (!item.ok) throw fail(lineNo, item.reason);
          const it = item.value;
          const at = timestamp ?? null;
          if (it.type === 'message' && !inReplay) {
            const text = textOf(it.content);
            const role = messageRole(it.role, text);
            // The first prompt is the task (task.text); every later message the model read is its next call's input.
            if (role === 'user' && firstUserItem === null && text) firstUserItem = text;
            else if (role !== null && text) into.input({ role, text, timestamp: at });
          }
          into.item({ item: it, line: lineNo, timestamp: at });
        } else if (type === 'event_msg') {
          if (payload.type === 'token_count') {
            const ev = decodeWith(TokenCountEvent, payload, 'token_count');
            if (!ev.ok) throw fail(lineNo, ev.reason);
            if (into.tokenCount(ev.value, lineNo, timestamp ?? null) && !inReplay) failure = null;
          } else if (!inReplay) {
            if (payload.type === 'user_message' && prompt === null && typeof payload.message === 'string') prompt = payload.message;
            failure = failureOf(payload) ?? failure;
          }
        }
    },

    dependsOn: () => null,

    async episodes() {
      if (meta === null) throw fail(1, 'no session_meta line: not a Codex CLI rollout');
      if (replay && replay.endLine === null) {
        ctx.warn(
          `${file}: Codex thread ${meta.id} replays ${replay.origin.parent}'s history and has no task_started of its own after it: ` +
            'the replayed calls are the parent\'s, so the thread has no turns',
        );
      }

      const { calls, after } = cutter.calls();
      const own = cutter.counted > 0 && cutter.finalTotal ? minus(cutter.finalTotal, cutter.baseline) : null;
      if (own && calls.length > 0 && !sumsTo(calls, own)) {
        ctx.warn(`${file}: the per-call token counts do not add up to the session's final total_token_usage`);
      }
      const turns: CanonicalTurn[] = [];
      const lines: number[] = [];
      for (const call of calls) {
        const { turn, line } = buildTurn(turns.length, call, cutter.results);
        turns.push(turn);
        lines.push(line);
      }
      const first = turns[0];
      if (replay?.origin.replays && replay.endLine !== null && first) {
        const n = replayed.calls().calls.length;
        first.notes = [
          `the thread opened with ${replay.origin.parent}'s history replayed (lines ${replay.firstLine ?? replay.endLine}–${replay.lastLine ?? replay.endLine}, ${n} model call(s)): ` +
            `the parent's turns, counted in its episode, not here${replay.byPosition ? '; where the replay ends was read from the order of task_started (the ids carry no time)' : ''}`,
          ...(first.notes ?? []),
        ];
      }
      const project = cwd ? basename(cwd) : null;
      const episode = {
        schema: CANONICAL_SCHEMA,
        run: ctx.runName ?? (project ? `${FORMAT}/${project}` : FORMAT),
        episode_id: meta.id,
        task: { type: FORMAT, category: project, text: prompt ?? firstUserItem },
        outcome: failure === null ? {} : { exit: failure },
        agent: { name: FORMAT, version: meta.cli_version ?? null },
        started_at: meta.timestamp ?? null,
        system_prompt: meta.base_instructions?.text ?? null,
        parent: replay ? { episode_id: replay.origin.parent, t: null } : null,
        kind: replay?.origin.kind ?? null,
        log_totals: own
          ? {
              source: cutter.baseline
                ? "the last token_count's total_token_usage less the total the replayed parent history ended on"
                : "the last token_count's total_token_usage",
              tokens: tokensOf(own),
            }
          : null,
        final_messages: after.length ? after : null,
        turns,
      };
      const parsed = CanonicalEpisode.safeParse(episode);
      if (!parsed.success) {
        const at = parsed.error.issues[0]?.path;
        throw fail(at?.[0] === 'turns' && typeof at[1] === 'number' ? (lines[at[1]] ?? 1) : 1, describeIssue(parsed.error));
      }
      return [parsed.data];
    },
  };
}

export const codexCliImporter: Importer = {
  format: FORMAT,
  expects: 'a Codex CLI rollout: JSON Lines of {timestamp, type, payload} starting with a session_meta line',

  detect(head) {
    const sniff = sniffJsonHead(head);
    return sniff.container === 'object' && sniff.keys.includes('payload') && sniff.strings.get('type') === 'session_meta';
  },

  follow: rolloutFold,

  async *read(file: string, ctx: ImportContext) {
    const fold = rolloutFold(file, ctx);
    yield* foldEveryLine(file, fold, ctx.onBytes);
  },
};
