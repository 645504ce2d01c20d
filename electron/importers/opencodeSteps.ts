/**
 * OpenCode messages → canonical turns. One turn per step: an assistant message makes one model call per step,
 * and the parts between its `step-start` and `step-finish` are that call's reasoning, text and tool calls; the
 * step-finish part carries the call's usage and cost. Whatever reached the model between two steps that is not a
 * tool result (a prompt typed mid-session, text OpenCode injected, a compaction summary) becomes the next turn's
 * `inputs`.
 *
 * Tokens follow OpenCode's `Session.getUsage`: `input` leaves out cache reads and writes in every version (they
 * are subtracted, or Anthropic never counted them), so canonical `in` adds them back. `output` held reasoning until
 * OpenCode moved to AI SDK 6, which logs `output − reasoning`; `total` (logged since about 1.1) tells the two apart:
 * input + output + cache (+ reasoning when it is not in output). The real 1.2.5 export sums without reasoning.
 */
import type { CanonicalTurn, ConversationMessage, TurnError } from '../../shared/canonical.ts';
import type { AssistantInfo, KnownPart, Located, OpenCodeMessage, StepFinishPart, StepTokens, ToolPart } from './opencodeRecords.ts';

const FAMILY: Record<string, string> = {
  bash: 'bash',
  read: 'read',
  write: 'edit',
  edit: 'edit',
  multiedit: 'edit',
  patch: 'edit',
  apply_patch: 'edit',
  grep: 'search',
  glob: 'search',
  list: 'search',
  codesearch: 'search',
  webfetch: 'web',
  websearch: 'web',
  task: 'subagent',
  todowrite: 'todo',
  todoread: 'todo',
  skill: 'skill',
};

/** A child session a task tool call launched: the turn that made the call, and the call's id. */
export interface ChildLink {
  t: number;
  tool_call_id: string | null;
}

export interface FoldedSession {
  /** The first user message's own words (what OpenCode injected with them is the first turn's input). */
  taskText: string | null;
  turns: CanonicalTurn[];
  /** Where each turn's usage was read (its step-finish part, else its first part), for error messages. */
  turnWhere: (() => { file: string; line: number })[];
  finalMessages: ConversationMessage[];
  children: Map<string, ChildLink>;
  /** The assistant messages' own cost totals (each the sum of its steps' costs), added up; null when none logs one. */
  messageCost: number | null;
  /** Steps whose logged cost is 0 although they used tokens. */
  zeroCostSteps: number;
  /** Steps that started but wrote nothing before the message ended (no content, no usage). */
  emptySteps: number;
  /** Parts of a type this importer does not know, by type. */
  unknownParts: Map<string, number>;
}

interface Step {
  parts: Located<KnownPart>[];
  finish: Located<StepFinishPart> | null;
}

const iso = (ms: number | null | undefined): string | null => (ms == null ? null : new Date(ms).toISOString());

function clip(s: string, n = 200): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

function str(args: unknown, ...keys: string[]): string | null {
  if (typeof args !== 'object' || args === null) return null;
  for (const k of keys) {
    const v = (args as Record<string, unknown>)[k];
    if (typeof v === 'string') return v;
  }
  return null;
}

/** One line saying what a tool call did: `bash: ls`, `Read README.md`, `Search world in src`. */
function summarize(name: string, input: unknown): string {
  const path = str(input, 'filePath', 'path');
  switch (FAMILY[name]) {
    case 'bash':
      return `bash: ${str(input, 'command') ?? ''}`;
    case 'read':
      return path ? `Read ${path}` : name;
    case 'edit': {
      const patch = str(input, 'patchText');
      const files = patch ? [...patch.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)].map((m) => m[1]).join(', ') : null;
      return `${name === 'write' ? 'Write' : 'Edit'} ${path ?? files ?? ''}`.trimEnd();
    }
    case 'search': {
      const pattern = str(input, 'pattern', 'query');
      return `Search ${pattern ?? ''}${path ? ` in ${path}` : ''}`.trimEnd();
    }
    case 'subagent':
      return `task (${str(input, 'subagent_type') ?? '?'}): ${str(input, 'description') ?? ''}`;
    default:
      return `${name}(${clip(JSON.stringify(input ?? {}) ?? '')})`;
  }
}

/** Canonical tokens of one step, and a note when the output convention had to be assumed. */
function convertTokens(tk: StepTokens): { tokens: NonNullable<CanonicalTurn['tokens']>; note: string | null } {
  const read = tk.cache?.read ?? 0;
  const write = tk.cache?.write ?? 0;
  const reasoning = tk.reasoning ?? 0;
  const outputHoldsReasoning = tk.input + tk.output + read + write;
  let out = tk.output;
  let note: string | null = null;
  if (reasoning > 0) {
    if (tk.total != null && tk.total !== outputHoldsReasoning && tk.total === outputHoldsReasoning + reasoning) out += reasoning;
    else if (tk.total == null) note = 'no total logged: output taken to include reasoning (OpenCode before AI SDK 6)';
    else if (tk.total !== outputHoldsReasoning) {
      note = `logged total ${tk.total} fits neither token convention: output taken to include reasoning`;
    }
  }
  return {
    tokens: {
      in: tk.input + read + write,
      out,
      cached: tk.cache ? read : null,
      cache_write: tk.cache ? write : null,
      reasoning: tk.reasoning ?? null,
    },
    note,
  };
}

function toolResult(part: ToolPart): { result: string | null; is_error: boolean | null } {
  const s = part.state;
  if (s.status === 'completed') return { result: s.output ?? null, is_error: false };
  if (s.status === 'error') return { result: s.error ?? s.output ?? null, is_error: true };
  return { result: null, is_error: null };
}

/** The child session a task call launched: its metadata names it; older outputs only say `task_id: ses_…`. */
function launchedSession(part: ToolPart): string | null {
  const id = part.state.metadata?.['sessionId'];
  if (typeof id === 'string' && id !== '') return id;
  const m = /^task_id: (ses_[0-9A-Za-z]+)/m.exec(part.state.output ?? '');
  return m?.[1] ?? null;
}

function earliest(parts: Located<KnownPart>[]): number | null {
  let best: number | null = null;
  for (const { value: p } of parts) {
    const start = p.type === 'tool' ? p.state.time?.start : 'time' in p && p.time && typeof p.time === 'object' ? (p.time as { start?: number | null }).start : null;
    if (typeof start === 'number' && (best === null || start < best)) best = start;
  }
  return best;
}

/** A message's parts cut into steps: a step opens at step-start (or at content outside one) and closes at step-finish. */
function stepsOf(parts: Located<KnownPart>[]): Step[] {
  const steps: Step[] = [];
  let current: Step | null = null;
  for (const located of parts) {
    const p = located.value;
    if (p.type === 'step-start') {
      if (current) steps.push(current);
      current = { parts: [], finish: null };
    } else if (p.type === 'step-finish') {
      current ??= { parts: [], finish: null };
      current.finish = located as Located<StepFinishPart>;
      steps.push(current);
      current = null;
    } else if (p.type === 'text' || p.type === 'reasoning' || p.type === 'tool') {
      current ??= { parts: [], finish: null };
      current.parts.push(located);
    }
  }
  if (current) steps.push(current);
  return steps;
}

/** What a user message put before the model, in order. The first prompt's own words are the task instead. */
function userInputs(message: OpenCodeMessage, first: boolean): { own: string | null; inputs: ConversationMessage[] } {
  const timestamp = iso(message.info.time?.created);
  const typed: string[] = [];
  const inputs: ConversationMessage[] = [];
  for (const { value: p } of message.parts) {
    if (p.type === 'text') {
      if (p.ignored) continue;
      if (p.synthetic) inputs.push({ role: 'system', text: p.text, timestamp });
      else typed.push(p.text);
    } else if (p.type === 'file') {
      // Text files and folders reach the model as synthetic text parts beside this one; other files go as attachments.
      if (p.mime !== 'text/plain' && p.mime !== 'application/x-directory') {
        inputs.push({ role: 'user', text: `[attached ${p.mime}: ${p.filename ?? 'file'}]`, timestamp });
      }
    } else if (p.type === 'compaction') {
      inputs.push({ role: 'system', text: `[compaction requested${p.auto ? ' automatically' : ''}]`, timestamp });
    } else if (p.type === 'subtask') {
      inputs.push({ role: 'user', text: `[subtask for @${p.agent ?? '?'}: ${p.description ?? ''}]\n${p.prompt}`, timestamp });
    }
  }
  const own = typed.length ? typed.join('\n') : null;
  if (own !== null && !first) inputs.unshift({ role: 'user', text: own, timestamp });
  return { own, inputs };
}

function buildTurn(
  t: number,
  info: AssistantInfo,
  step: Step,
  fromMessageTotals: boolean,
  inputs: ConversationMessage[],
  notes: string[],
): CanonicalTurn {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const calls: ToolPart[] = [];
  for (const { value: p } of step.parts) {
    if (p.type === 'text' && !p.ignored) texts.push(p.text);
    else if (p.type === 'reasoning' && p.text.trim() !== '') reasoning.push(p.text);
    else if (p.type === 'tool') calls.push(p);
  }
  const toolCalls = calls.map((c) => ({
    id: c.callID ?? null,
    name: c.tool,
    input: c.state.input === undefined ? null : JSON.stringify(c.state.input),
    ...toolResult(c),
  }));
  const reply = texts.join('\n');
  const first = calls[0];
  const action: CanonicalTurn['action'] = first
    ? { type: 'tool', tool: FAMILY[first.tool] ?? first.tool, text: calls.map((c) => summarize(c.tool, c.state.input)).join('\n') }
    : { type: 'message', tool: null, text: reply };
  // Tool statuses are the log's own word on each call; a turn without calls is left to the error rules.
  let errors: TurnError[] | null = null;
  if (calls.length) {
    errors = [];
    for (const c of calls) {
      if (c.state.status === 'error') errors.push({ type: 'tool_error', severity: 'medium' });
      else if (c.state.status !== 'completed') errors.push({ type: 'tool_interrupted', severity: 'low' });
    }
  }
  const usage = step.finish?.value.tokens ?? (fromMessageTotals ? info.tokens : null);
  const converted = usage ? convertTokens(usage) : null;
  if (converted?.note) notes.push(converted.note);
  const loggedCost = step.finish ? (step.finish.value.cost ?? null) : fromMessageTotals ? (info.cost ?? null) : null;
  const usedTokens = converted ? (converted.tokens.in ?? 0) + (converted.tokens.out ?? 0) > 0 : false;
  let cost = loggedCost;
  if (loggedCost === 0 && usedTokens) {
    // OpenCode writes 0 for a subscription, a free model and a model it has no price for alike.
    cost = null;
    notes.push('OpenCode logged cost 0 for this call (a subscription, a free model or no price known): left unknown, priced from tokens');
  }
  const observation = toolCalls.map((c) => c.result).filter((r): r is string => r != null);
  return {
    t,
    model: info.modelID.trim() !== '' ? info.modelID : 'unknown',
    action,
    observation: observation.length ? observation.join('\n') : null,
    role: info.agent ?? info.mode ?? null,
    reasoning: reasoning.length ? reasoning.join('\n') : null,
    message: first && reply.trim() !== '' ? reply : null,
    tool_calls: toolCalls.length ? toolCalls : null,
    inputs: inputs.length ? inputs : null,
    notes: notes.length ? notes : null,
    timestamp: iso(earliest(step.parts) ?? info.time?.created),
    tokens: converted?.tokens ?? null,
    cost_usd: cost,
    errors,
  };
}

export function foldSession(messages: OpenCodeMessage[], unknownParts: Map<string, number>): FoldedSession {
  const folded: FoldedSession = {
    taskText: null, turns: [], turnWhere: [], finalMessages: [], children: new Map(), messageCost: null,
    zeroCostSteps: 0, emptySteps: 0, unknownParts,
  };
  let pending: ConversationMessage[] = [];
  let pendingNotes: string[] = [];
  let sawUser = false;
  for (const message of messages) {
    const info = message.info;
    if (info.role === 'user') {
      const { own, inputs } = userInputs(message, !sawUser);
      if (!sawUser) folded.taskText = own;
      sawUser = true;
      pending.push(...inputs);
      continue;
    }
    if (info.cost != null) folded.messageCost = (folded.messageCost ?? 0) + info.cost;
    const steps = stepsOf(message.parts);
    // A message written without step parts has only its own totals: they are its single call's usage then. One whose
    // step never finished has no usage at all (OpenCode writes a message's usage when a step finishes).
    const stepless = !message.parts.some(({ value: p }) => p.type === 'step-start' || p.type === 'step-finish');
    const errorText = info.error ? `${info.error.name ?? 'error'}${typeof info.error.data?.message === 'string' ? `: ${info.error.data.message}` : ''}` : null;
    if (steps.length === 0 && errorText) pendingNotes.push(`a response ended before its first step (${clip(errorText)})`);
    steps.forEach((step, i) => {
      if (!step.finish && step.parts.length === 0) {
        folded.emptySteps++;
        return;
      }
      const notes = pendingNotes;
      pendingNotes = [];
      const fromMessageTotals = stepless && steps.length === 1;
      if (!step.finish) notes.push(fromMessageTotals ? 'no step-finish part: usage and cost are the message totals' : 'step not finished (no step-finish part): usage and cost not logged');
      if (errorText && i === steps.length - 1) notes.push(`the response ended with ${clip(errorText)}`);
      const t = folded.turns.length;
      const turn = buildTurn(t, info, step, fromMessageTotals, pending, notes);
      if (turn.notes?.some((n) => n.startsWith('OpenCode logged cost 0'))) folded.zeroCostSteps++;
      pending = [];
      folded.turns.push(turn);
      folded.turnWhere.push((step.finish ?? step.parts[0] ?? message).where);
      for (const { value: p } of step.parts) {
        if (p.type !== 'tool' || p.tool !== 'task') continue;
        const child = launchedSession(p);
        if (child !== null && !folded.children.has(child)) folded.children.set(child, { t, tool_call_id: p.callID ?? null });
      }
    });
    if (info.summary === true || (info.summary && info.agent === 'compaction')) {
      // The summary stands in for the conversation before it from here on.
      const text = message.parts.flatMap(({ value: p }) => (p.type === 'text' && !p.synthetic ? [p.text] : [])).join('\n');
      if (text.trim() !== '') pending.push({ role: 'summary', text, timestamp: iso(info.time?.completed ?? info.time?.created) });
    }
  }
  folded.finalMessages = pending;
  return folded;
}
