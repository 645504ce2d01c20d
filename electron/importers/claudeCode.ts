/**
 * Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl` and the session's
 * `subagents/agent-*.jsonl`): one episode per file, one turn per API response.
 *
 * - A response is written as one line per content block, all sharing `message.id`; they make one turn.
 *   `usage` repeats on each and is final only on the last line, so the last one wins.
 * - Tokens: Anthropic's `input_tokens` leaves out cache reads and cache writes; canonical `in` adds them back.
 *   `usage.cache_creation` splits the writes by cache lifetime; the one-hour part is `cache_write_1h` (it costs
 *   more). Logs before the split leave it null: which tier was written is unknown.
 * - Tool results come in later `user` lines and are joined to their call by `tool_use_id`.
 * - Lines with model `<synthetic>` are messages Claude Code made up locally (API errors, interruptions): not
 *   model calls, so not turns; they are counted in a warning.
 * - `progress` lines are skipped: `agent_progress` ones copy the subagent's messages, which its own file has.
 * - Every other message reaches the turn it preceded as `inputs` (claudeCodeMessages.ts says who wrote what);
 *   the first prompt is the task, and what follows the last response is `final_messages`.
 * - A subagent (`agent-<id>.jsonl`) is a child episode `<session>/agent-<id>` of the turn whose Task/Agent
 *   call launched it, found in the parent session file; `agent-acompact-*` is the compaction call, a
 *   `compaction` child of the last turn before the compaction; `agent-aside_question-*` is a side question
 *   (`/btw`), a `side_question` child of the turn it forked from.
 * - A sidechain that forks the conversation (side questions, some compaction runs) first copies the parent's
 *   messages, responses under their own `message.id` and `requestId`. One response is one turn across the
 *   session tree: a copied response stays the parent's turn (the last one copied is where the child forked), and
 *   the messages copied with it are the parent's too; only what follows is the child's.
 * - No cost and no outcome are logged: cost comes from pricing the tokens, and the outcome stays unknown.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { CANONICAL_SCHEMA, CanonicalEpisode, type CanonicalTurn, type ConversationMessage, type ToolCall } from '../../shared/canonical.ts';
import { parentFileOf, parentLinks, placeOf, type ParentLinks, type SessionPlace } from './claudeCodeLayout.ts';
import { parseSessionLine, TurnIndex, type AssistantMessage, type Envelope, type Usage, type UserBlock, type UserMessage } from './claudeCodeLines.ts';
import { syntheticMessageOf, systemMessageOf, userMessageOf } from './claudeCodeMessages.ts';
import { toolFamily, toolSummary } from './claudeCodeTools.ts';
import { foldEveryLine } from './lineReader.ts';
import { ImportError, type ImportContext, type Importer, type LineFold } from './types.ts';

const FORMAT = 'claude-code';
/** Big enough for a line holding a pasted image or a whole file read; bounds memory for a broken one. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** Lines of the head looked at by `detect`: message lines come within the first few. */
const DETECT_LINES = 50;

interface TurnDraft {
  line: number;
  usageLine: number;
  model: string;
  timestamp: string | null;
  texts: string[];
  thinking: string[];
  calls: ToolCall[];
  summaries: string[];
  usage: Usage | null;
  notes: string[];
  inputs: ConversationMessage[];
}

function resultText(block: UserBlock): string {
  const c = block.content;
  if (c == null) return '';
  if (typeof c === 'string') return c;
  return c.map((p) => (p.type === 'text' ? (p.text ?? '') : `[${p.type}]`)).join('\n');
}

function tokensOf(u: Usage | null): CanonicalTurn['tokens'] {
  if (u === null) return null;
  const input = u.input_tokens ?? null;
  const read = u.cache_read_input_tokens ?? null;
  const split = u.cache_creation ?? null;
  const oneHour = split === null ? null : (split.ephemeral_1h_input_tokens ?? (split.ephemeral_5m_input_tokens != null ? 0 : null));
  const write = u.cache_creation_input_tokens ?? (split === null ? null : sumKnown(split.ephemeral_5m_input_tokens, split.ephemeral_1h_input_tokens));
  const out = u.output_tokens ?? null;
  if (input === null && read === null && write === null && out === null) return null;
  return { in: input === null ? null : input + (read ?? 0) + (write ?? 0), out, cached: read, cache_write: write, cache_write_1h: oneHour, reasoning: null };
}

function sumKnown(a: number | null | undefined, b: number | null | undefined): number | null {
  return a == null && b == null ? null : (a ?? 0) + (b ?? 0);
}

/** The one-hour writes are part of the writes: more of them than writes in all is a broken count. */
function checkCacheSplit(file: string, lineNo: number, u: Usage): void {
  const oneHour = u.cache_creation?.ephemeral_1h_input_tokens;
  const total = u.cache_creation_input_tokens;
  if (oneHour != null && total != null && oneHour > total) {
    throw new ImportError(file, lineNo, `message.usage.cache_creation.ephemeral_1h_input_tokens: ${oneHour} is more than cache_creation_input_tokens (${total})`);
  }
}

/** The parent session of a sidechain, read once: its responses (to tell copies) and the turns that launched it. */
type ParentScan = { file: string; links: ParentLinks } | { file: string | null; links: null; why: string };

/** Gathers one file's lines into turns, then the episode. */
class SessionAssembler {
  readonly turns: TurnDraft[] = [];
  private readonly index = new TurnIndex();
  private readonly calls = new Map<string, ToolCall>();
  private pendingNote: string | null = null;
  /** Messages since the last response: the next turn's inputs, or the episode's final messages. */
  pending: ConversationMessage[] = [];
  prompt: { text: string; parentUuid: string | null } | null = null;
  /** The parent's responses, for a sidechain whose parent was read: copies of them are not this episode's turns. */
  parentResponses: ParentLinks | null = null;
  /** Copied parent responses skipped (by id: one response is several lines), and the parent turn of the last one (where this sidechain forked). */
  readonly copied = new Set<string>();
  forkT: number | null = null;
  sessionId: string | null = null;
  agentId: string | null = null;
  cwd: string | null = null;
  version: string | null = null;
  startedAt: string | null = null;
  synthetic = 0;
  otherSessions = new Set<string>();

  constructor(private readonly file: string) {}

  envelope(env: Envelope): void {
    if (env.sessionId) {
      if (this.sessionId === null) this.sessionId = env.sessionId;
      else if (env.sessionId !== this.sessionId) this.otherSessions.add(env.sessionId);
    }
    this.agentId ??= env.agentId ?? null;
    this.cwd ??= env.cwd ?? null;
    this.version ??= env.version ?? null;
    this.startedAt ??= env.timestamp ?? null;
  }

  /** The parent's turn when this response is a copy of one of the parent's. */
  private parentTurnOf(env: Envelope, message: AssistantMessage): number | undefined {
    const p = this.parentResponses;
    if (p === null || message.id == null) return undefined;
    return p.responses.get(message.id) ?? (env.requestId ? p.requests.get(env.requestId) : undefined);
  }

  assistant(lineNo: number, env: Envelope, message: AssistantMessage): void {
    const copiedT = this.parentTurnOf(env, message);
    if (copiedT !== undefined) {
      this.copied.add(message.id ?? '');
      this.forkT = copiedT;
      // What came with the copy is the parent's conversation, kept in the parent's episode; the child's own
      // prompt (the side question) follows the last copied response.
      if (this.turns.length === 0) {
        this.pending = [];
        this.prompt = null;
      }
      return;
    }
    const t = this.index.turnOf(message);
    if (t === null) {
      this.synthetic++;
      const shown = syntheticMessageOf(env, message);
      if (shown !== null) this.pending.push(shown);
      return;
    }
    let turn = this.turns[t];
    if (turn === undefined) {
      turn = {
        line: lineNo, usageLine: lineNo, model: message.model, timestamp: env.timestamp ?? null,
        texts: [], thinking: [], calls: [], summaries: [], usage: null, notes: [], inputs: this.pending,
      };
      this.pending = [];
      if (this.pendingNote !== null) turn.notes.push(this.pendingNote);
      this.pendingNote = null;
      this.turns.push(turn);
    }
    const content = message.content;
    if (typeof content === 'string') {
      if (content.trim() !== '') turn.texts.push(content);
    } else {
      for (const b of content ?? []) {
        if (b.type === 'text' && b.text && b.text.trim() !== '') turn.texts.push(b.text);
        else if (b.type === 'thinking' && b.thinking) turn.thinking.push(b.thinking);
        else if (b.type === 'tool_use') {
          if (!b.id) throw new ImportError(this.file, lineNo, 'message.content: tool_use block without an id');
          if (!b.name || b.name.trim() === '') throw new ImportError(this.file, lineNo, 'message.content: tool_use block without a name');
          const call: ToolCall = { id: b.id, name: b.name, input: JSON.stringify(b.input ?? {}), result: null, is_error: null };
          this.calls.set(b.id, call);
          turn.calls.push(call);
          turn.summaries.push(toolSummary(b.name, b.input));
        }
      }
    }
    if (message.usage != null) {
      checkCacheSplit(this.file, lineNo, message.usage);
      turn.usage = message.usage;
      turn.usageLine = lineNo;
    }
  }

  user(env: Envelope, message: UserMessage): void {
    if (typeof message.content !== 'string') {
      for (const b of message.content) {
        if (b.type !== 'tool_result' || !b.tool_use_id) continue;
        const call = this.calls.get(b.tool_use_id);
        if (call === undefined) continue;
        call.result = resultText(b);
        call.is_error = b.is_error ?? null;
      }
    }
    const said = userMessageOf(env, message);
    if (said === null) return;
    // The first thing the person typed before any response is the task; everything else reaches a turn.
    if (this.prompt === null && this.turns.length === 0 && said.role === 'user') {
      this.prompt = { text: said.text, parentUuid: env.parentUuid ?? null };
      return;
    }
    this.pending.push(said);
  }

  system(env: Envelope): void {
    const said = systemMessageOf(env);
    if (said !== null) this.pending.push(said);
    if (env.subtype !== 'compact_boundary') return;
    const m = env.compactMetadata;
    const how = [m?.trigger ? `${m.trigger} trigger` : null, m?.preTokens != null ? `${m.preTokens} tokens before` : null].filter(Boolean);
    this.pendingNote = `first call after the conversation was compacted${how.length ? ` (${how.join(', ')})` : ''}`;
  }

  canonicalTurns(role: string | null): CanonicalTurn[] {
    return this.turns.map((d, t) => {
      const failed = d.calls.filter((c) => c.is_error === true);
      const answered = d.calls.length > 0 && d.calls.every((c) => c.result !== null);
      const observation = d.calls.filter((c) => c.result !== null).map((c) => c.result).join('\n\n');
      return {
        t,
        model: d.model,
        action:
          d.calls.length > 0
            ? { type: 'tool', tool: toolFamily((d.calls[0] as ToolCall).name), text: d.summaries.join('\n') }
            : { type: 'message', tool: null, text: d.texts.join('\n\n') || null },
        observation: observation === '' ? null : observation,
        role,
        reasoning: d.thinking.length ? d.thinking.join('\n\n') : null,
        // The words written beside the tool calls: the action text is their summary, so they would be lost.
        message: d.calls.length > 0 && d.texts.length > 0 ? d.texts.join('\n\n') : null,
        tool_calls: d.calls.length ? d.calls : null,
        inputs: d.inputs.length ? d.inputs : null,
        notes: d.notes.length ? d.notes : null,
        timestamp: d.timestamp,
        tokens: tokensOf(d.usage),
        // Claude Code flags a failed tool (a non-zero exit, a refused edit) with is_error; a result without
        // the flag is the log saying it went through. Plain replies are left to the error rules.
        errors: failed.length ? failed.map(() => ({ type: 'tool_error', severity: 'medium' as const })) : answered ? [] : null,
      };
    });
  }
}

/** Finds a line of the head that is a Claude Code message entry; false on the first line that is not JSON. */
function looksLikeSession(head: string): boolean {
  const text = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
  if (!text.trimStart().startsWith('{')) return false;
  const lines = text.split('\n');
  // The last piece may be cut off by the head's end: judged by its opening only.
  for (const [i, raw] of lines.slice(0, DETECT_LINES).entries()) {
    const line = raw.trim();
    if (line === '') continue;
    if (i === lines.length - 1) return /^\{"parentUuid":(null|"[^"]*"),"isSidechain":(true|false),/.test(line);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return false;
    }
    if (typeof value !== 'object' || value === null) return false;
    const o = value as Record<string, unknown>;
    if (typeof o.sessionId === 'string' && 'parentUuid' in o && typeof o.isSidechain === 'boolean' && typeof o.type === 'string') return true;
  }
  return false;
}

function runAndEpisode(file: string, place: SessionPlace, s: SessionAssembler, ctx: ImportContext) {
  const cwdName = s.cwd ? basename(s.cwd.replace(/[\\/]+$/, '')) || null : null;
  const project = place.project ?? cwdName;
  const run = ctx.runName ?? (project ? `${FORMAT}/${project}` : FORMAT);
  const session = place.sessionId ?? s.sessionId ?? basename(file).replace(/\.jsonl$/, '');
  return { run, project, session };
}

async function scanParentOf(place: SessionPlace, session: string): Promise<ParentScan> {
  const file = parentFileOf(place, session);
  if (file === null) return { file, links: null, why: `parent session ${session}.jsonl not found beside this sidechain` };
  try {
    return { file, links: await parentLinks(file) };
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
    return { file, links: null, why: `parent session unreadable (${err.message})` };
  }
}

const sideQuestion = (agentId: string): boolean => agentId.startsWith('aside_question');
const compactionRun = (agentId: string): boolean => agentId.startsWith('acompact');

function parentOf(
  scan: ParentScan,
  s: SessionAssembler,
  session: string,
  agentId: string,
  ctx: ImportContext,
): NonNullable<CanonicalEpisode['parent']> {
  const unknown = { episode_id: session, t: null, tool_call_id: null };
  if (scan.links === null) {
    ctx.warn(`${scan.why}: the turn that launched it is unknown${sideQuestion(agentId) ? ', and responses it copied from the parent cannot be told apart from its own' : ''}`);
    return unknown;
  }
  const parentName = basename(scan.file);
  const forked = { episode_id: session, t: s.forkT, tool_call_id: null };
  if (compactionRun(agentId)) {
    const key = s.prompt?.parentUuid ?? null;
    const t = key === null ? undefined : scan.links.compactions.get(key);
    if (t !== undefined) return { episode_id: session, t, tool_call_id: null };
    if (s.forkT === null) ctx.warn(`no compaction in ${parentName} matches this compaction run: the turn before it is unknown`);
    return forked;
  }
  if (sideQuestion(agentId)) {
    if (s.forkT === null) ctx.warn(`no response of ${parentName} is copied in this side question: the turn it forked from is unknown`);
    return forked;
  }
  const link = scan.links.agents.get(agentId);
  if (link !== undefined) return { episode_id: session, t: link.t, tool_call_id: link.toolCallId };
  if (s.forkT === null) ctx.warn(`no Task/Agent result in ${parentName} names agent ${agentId}: the turn that launched it is unknown`);
  return forked;
}

/** A parent scan stays good while the parent file is as it was when scanned (issue 36: a followed parent grows). */
interface HeldScan {
  scan: ParentScan;
  size: number;
  mtimeMs: number;
}

function parentUnchanged(held: HeldScan): boolean {
  if (held.scan.file === null) return false;
  const st = statSync(held.scan.file, { throwIfNoEntry: false });
  return st !== undefined && st.size === held.size && st.mtimeMs === held.mtimeMs;
}

async function heldScanOf(place: SessionPlace, session: string): Promise<HeldScan> {
  const file = parentFileOf(place, session);
  // Stat before the scan: a parent written during it reads as changed next time and is scanned again.
  const st = file === null ? undefined : statSync(file, { throwIfNoEntry: false });
  return { scan: await scanParentOf(place, session), size: st?.size ?? -1, mtimeMs: st?.mtimeMs ?? -1 };
}

/** One session file read line by line: `read` folds every line, the live follower folds them as they are written. */
function sessionFold(file: string, ctx: ImportContext): LineFold {
  const place = placeOf(file);
  const s = new SessionAssembler(file);
  let isAgentFile: boolean | null = place.agentId !== null ? true : null;
  let skippedSidechain = 0;
  let lines = 0;
  let held: HeldScan | null = null;
  const agentIdOf = (): string | null => place.agentId ?? (isAgentFile ? s.agentId : null);
  return {
    maxLineBytes: MAX_LINE_BYTES,

    async line(lineNo, text) {
      lines = lineNo;
      const line = parseSessionLine(file, lineNo, text);
      if (line === null || line.type === 'other') return;
      const env = line.env;
      isAgentFile ??= env.isSidechain === true && !!env.agentId;
      // Sidechain lines in a session file are another agent's: they belong to its own episode, not this one.
      if (!isAgentFile && env.isSidechain === true) {
        skippedSidechain++;
        return;
      }
      s.envelope(env);
      // The parent is read before the sidechain's first response, so copies of its responses are known as such.
      const session = place.sessionId ?? s.sessionId;
      if (isAgentFile && held === null && line.type === 'assistant' && session !== null) {
        held = await heldScanOf(place, session);
        s.parentResponses = held.scan.links;
      }
      if (line.type === 'assistant') s.assistant(lineNo, env, line.message);
      else if (line.type === 'user') s.user(env, line.message);
      else s.system(env);
    },

    dependsOn() {
      const session = place.sessionId ?? s.sessionId;
      return agentIdOf() === null || session === null ? null : parentFileOf(place, session);
    },

    async episodes() {
      if (s.turns.length === 0 && s.copied.size === 0) {
        throw new ImportError(file, Math.max(lines, 1), 'no model calls in this session (nothing but local commands, metadata or synthetic messages)');
      }
      const { run, project, session } = runAndEpisode(file, place, s, ctx);
      const agentId = agentIdOf();
      const kind = agentId === null ? null : compactionRun(agentId) ? 'compaction' : sideQuestion(agentId) ? 'side_question' : 'subagent';
      // Which turn launched a subagent is known once its Task result is in the parent: scanned again if the parent grew.
      if (agentId !== null && (held === null || !parentUnchanged(held))) held = await heldScanOf(place, session);
      const parent = agentId === null || held === null ? null : parentOf(held.scan, s, session, agentId, ctx);
      if (s.copied.size > 0) {
        ctx.warn(`${s.copied.size} response(s) copied from the parent session are its turns, counted there, not again in this sidechain${s.turns.length === 0 ? ' (it has no response of its own)' : ''}`);
      }
      if (s.synthetic > 0) ctx.warn(`${s.synthetic} local message line(s) with model "<synthetic>" (API errors, interruptions) are not model calls: not turns`);
      if (skippedSidechain > 0) ctx.warn(`${skippedSidechain} sidechain line(s) inside the session file skipped: subagents are read from their own files`);
      if (s.otherSessions.size > 0) ctx.warn(`lines of ${s.otherSessions.size + 1} session ids (a resumed or continued session): read as one episode`);

      const candidate = {
        schema: CANONICAL_SCHEMA,
        run,
        episode_id: agentId === null ? session : `${session}/agent-${agentId}`,
        task: { id: null, type: FORMAT, category: project, text: s.prompt?.text ?? null },
        outcome: {},
        parent,
        kind,
        agent: { name: FORMAT, version: s.version },
        started_at: s.startedAt,
        final_messages: s.pending.length ? s.pending : null,
        turns: s.canonicalTurns(kind === 'compaction' ? 'compaction' : null),
      };
      const parsed = CanonicalEpisode.safeParse(candidate);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const path = issue?.path ?? [];
        const turn = path[0] === 'turns' && typeof path[1] === 'number' ? s.turns[path[1]] : undefined;
        const at = turn === undefined ? 1 : path[2] === 'tokens' ? turn.usageLine : turn.line;
        const where = path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
        throw new ImportError(file, at, `${where ? `${where}: ` : ''}${issue?.message ?? 'invalid'}`);
      }
      return [parsed.data];
    },
  };
}

export const claudeCodeImporter: Importer = {
  format: FORMAT,
  expects: 'a Claude Code session transcript: JSON Lines entries with sessionId, parentUuid, isSidechain and type',

  detect(head) {
    return looksLikeSession(head);
  },

  follow: sessionFold,

  async *read(file: string, ctx: ImportContext) {
    const fold = sessionFold(file, ctx);
    yield* foldEveryLine(file, fold, ctx.onBytes);
  },
};
