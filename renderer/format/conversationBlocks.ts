/**
 * A turn as the blocks of a conversation, the same kinds for every format, so the inspector reads every log alike:
 * the messages that reached the model before the call (a user's prompt, text the agent injected, a compaction
 * summary), then the model's response (its reasoning, its text, each tool call with its arguments and result), the
 * environment's answer when no call holds it, and the episodes the turn launched. What each format stores is mapped
 * here (see turnBlocks.ts for the rules that keep a text from being shown twice):
 * - structured calls (Claude Code, Codex, Gemini CLI, Copilot, OpenHands, ATIF, Cline, Crush, OpenCode): the calls,
 *   the action (their digest) and the observation (their results joined) left out;
 * - calls written into the reply (MTRouter's HLE `<tool_call>` blocks, Inspect's `name({json})` lines): read back
 *   as calls (callMarkup.ts), the words around them as the model's text;
 * - text agents (mini-swe-agent's ```` ```bash ````, MTRouter ScienceWorld's ```` ```text ````): the words before the
 *   block as the model's text, the block as a command whose result is the observation;
 * - a command without calls (SWE-agent, Aider, canonical logs): a command and its result;
 * - a reply that ran nothing (Inspect's final answer, a chat reply): the model's text.
 */
import type { EpisodeDetail, MessageDetail, SearchHit, TurnDetail } from '../../shared/api.ts';
import { markupCalls, rawCallLines, textAround, toolResponses, type TextCall } from './callMarkup.ts';
import { actionRepeatsCalls, observationIsResults } from './turnBlocks.ts';

export type Child = EpisodeDetail['children'][number];
type Call = TurnDetail['tool_calls'][number];

/** The stored text a block shows (space-separated): where a search hit in that field lands. */
export type Source = string;

/** The source a search hit matched (the route's `at`): a turn's action or observation, or one of its messages. */
export function hitAt(match: Pick<SearchHit, 'field' | 'message'>): string {
  if (match.field !== 'message' || !match.message) return match.field;
  return `${match.message.final ? 'final' : 'input'}:${match.message.index}`;
}

export type Block =
  | { kind: 'system-prompt'; text: string; source: Source }
  | { kind: 'task'; text: string; source: Source }
  /** A prompt the user typed mid-session. */
  | { kind: 'user'; text: string; timestamp: string | null; source: Source }
  /** An instruction or reminder the agent put into the conversation. */
  | { kind: 'injected'; text: string; timestamp: string | null; source: Source }
  | { kind: 'summary'; text: string; timestamp: string | null; source: Source }
  /** Text shown as the assistant's without a model call (a canned reply, a local command's output). */
  | { kind: 'canned'; text: string; timestamp: string | null; source: Source }
  /** A tool result tied to no call of the episode. */
  | { kind: 'tool-result'; text: string; timestamp: string | null; source: Source }
  | { kind: 'reasoning'; text: string; source: Source }
  /** The model's own words in its response. */
  | { kind: 'assistant'; text: string; source: Source }
  | { kind: 'tool-call'; call: Call; source: Source }
  /** A command the agent ran as text (no call structure), with what it printed. */
  | { kind: 'command'; name: string; command: string; result: string | null; submit: boolean; source: Source }
  /** The action when nothing else says it. */
  | { kind: 'action'; text: string; source: Source }
  /** The environment's answer when no call or command holds it. */
  | { kind: 'observation'; text: string; source: Source }
  | { kind: 'subagent'; child: Child; source: Source };

export type BlockKind = Block['kind'];

type TurnText = Pick<TurnDetail, 'action' | 'action_type' | 'tool' | 'observation' | 'reasoning' | 'message' | 'tool_calls' | 'inputs'>;

/** A message that is not a model response, by the role the importer gave it. */
export function messageBlock(m: MessageDetail, source: Source): Block {
  const base = { text: m.text, timestamp: m.timestamp, source };
  switch (m.role) {
    case 'user':
      return { kind: 'user', ...base };
    case 'summary':
      return { kind: 'summary', ...base };
    case 'assistant':
      return { kind: 'canned', ...base };
    case 'tool':
      return { kind: 'tool-result', ...base };
    default:
      return { kind: 'injected', ...base };
  }
}

/** A text as shown from its first line of words: a task that opens with blank lines (Gemini CLI's) is not an empty line. */
export function fromFirstLine(text: string): string {
  return text.replace(/^([^\S\n]*\n)+/, '');
}

/** The episode before its first turn: the system prompt and the task. */
export function openingBlocks(episode: Pick<EpisodeDetail['episode'], 'system_prompt' | 'task_text'>): Block[] {
  const out: Block[] = [];
  if (episode.system_prompt?.trim()) out.push({ kind: 'system-prompt', text: episode.system_prompt, source: 'system-prompt' });
  if (episode.task_text?.trim()) out.push({ kind: 'task', text: episode.task_text, source: 'task' });
  return out;
}

/** Messages after the last response. */
export function closingBlocks(messages: readonly MessageDetail[]): Block[] {
  return messages.map((m, i) => messageBlock(m, `final:${i}`));
}

// The one block a text agent runs: mini-swe-agent's ```bash (codeFence.ts BASH_BLOCK), ScienceWorld's ```text.
const RUN_BLOCK = /```(?:bash|text)[ \t]*\n([\s\S]*?)\n```/g;
const THOUGHT_LABEL = /^\s*(THOUGHT|Thought|DISCUSSION|Discussion)\s*:\s*/;

/** A reply that is words (or none), then the one block that ran, and nothing after it. */
export function replyCommand(action: string | null): { thought: string; command: string } | null {
  if (!action) return null;
  const blocks = [...action.matchAll(RUN_BLOCK)];
  const block = blocks.length === 1 ? blocks[0] : undefined;
  if (!block || action.slice(block.index + block[0].length).trim() !== '') return null;
  return { thought: action.slice(0, block.index).replace(THOUGHT_LABEL, '').trim(), command: block[1] ?? '' };
}

/**
 * True when the action is the reply the message and the calls were read from: each of its lines, outside the calls'
 * markup, is in the message or repeats a call. (Claude Code's digest `bash: ls` is caught by actionRepeatsCalls.)
 */
export function actionIsReply(action: string | null, message: string | null, calls: readonly Pick<Call, 'name' | 'input'>[]): boolean {
  if (calls.length === 0) return false;
  if (!action?.trim()) return true;
  let rest = action;
  for (const c of [...markupCalls(action), ...rawCallLines(action)].sort((a, b) => b.start - a.start)) rest = rest.slice(0, c.start) + rest.slice(c.end);
  const said = message ?? '';
  const left = rest
    .split('\n')
    .filter((l) => l.trim() !== '' && !said.includes(l.trim()))
    .join('\n');
  return actionRepeatsCalls(left, calls as Call[]);
}

/** True when the observation says nothing the calls' results do not (joined, or each in a `<tool_response>`). */
export function observationSaid(observation: string | null, calls: readonly Call[]): boolean {
  if (observationIsResults(observation, calls as Call[])) return true;
  const results = calls.map((c) => c.result);
  if (!observation || results.some((r) => r == null)) return false;
  return toolResponses(observation, calls.map((c) => c.name))?.every((r, i) => r === results[i]) ?? false;
}

const asCall = (c: TextCall, result: string | null): Call => ({ id: null, name: c.name, input: c.input, result, is_error: null });

/** Calls read from the action's text when the log kept none as structure. */
function textCalls(turn: TurnText): { calls: Call[]; words: string; resultsTaken: boolean } | null {
  const action = turn.action ?? '';
  const found = markupCalls(action);
  const calls = found.length > 0 ? found : rawCallLines(action);
  if (calls.length === 0) return null;
  const results = toolResponses(turn.observation, calls.map((c) => c.name));
  // One call and an answer that is not markup: the answer is that call's result (Inspect writes one line a call).
  const single = results === null && calls.length === 1 && found.length === 0 && turn.observation != null;
  return {
    calls: calls.map((c, i) => asCall(c, results?.[i] ?? (single ? turn.observation : null))),
    words: textAround(action, calls),
    resultsTaken: results !== null || single,
  };
}

/** A reply that ran nothing: its text is the model's message, whatever the importer called the action. */
function isReplyOnly(turn: TurnText): boolean {
  return turn.action_type === 'message' || (turn.tool === null && /^(answer|submit|final|reply|respond)$/i.test(turn.action_type) && /\s/.test((turn.action ?? '').trim()));
}

export function turnBlocks(turn: TurnText, launched: readonly Child[] = []): Block[] {
  const out: Block[] = turn.inputs.map((m, i) => messageBlock(m, `input:${i}`));
  if (turn.reasoning?.trim()) out.push({ kind: 'reasoning', text: turn.reasoning, source: 'reasoning' });
  const message = turn.message?.trim() ? turn.message : null;
  const action = turn.action?.trim() ? turn.action : null;
  let observationShown = false;

  if (turn.tool_calls.length > 0) {
    const actionSaid = actionRepeatsCalls(action, turn.tool_calls) || actionIsReply(action, message, turn.tool_calls);
    const command = actionSaid ? null : replyCommand(action);
    if (message) out.push({ kind: 'assistant', text: message, source: actionSaid ? 'message action' : 'message' });
    if (command?.thought) out.push({ kind: 'assistant', text: command.thought, source: 'action' });
    // A command that the calls do not repeat, or an action with words of its own.
    if (command && !actionRepeatsCalls(command.command, turn.tool_calls)) out.push({ kind: 'action', text: command.command, source: 'action' });
    else if (!actionSaid && !command && action) out.push({ kind: 'action', text: action, source: 'action' });
    for (const call of turn.tool_calls) out.push({ kind: 'tool-call', call, source: 'call action result observation' });
    observationShown = observationSaid(turn.observation, turn.tool_calls);
  } else {
    const command = replyCommand(action);
    const written = command ? null : textCalls(turn);
    if (message) out.push({ kind: 'assistant', text: message, source: action?.trim() === message.trim() ? 'message action' : 'message' });
    if (command) {
      if (command.thought && command.thought !== message?.trim()) out.push({ kind: 'assistant', text: command.thought, source: 'action' });
      out.push(commandBlock(turn, command.command));
      observationShown = true;
    } else if (written) {
      if (written.words && written.words !== message?.trim()) out.push({ kind: 'assistant', text: written.words, source: 'action' });
      for (const call of written.calls) out.push({ kind: 'tool-call', call, source: 'call action result observation' });
      observationShown = written.resultsTaken;
    } else if (action && isReplyOnly(turn)) {
      if (action.trim() !== message?.trim()) out.push({ kind: 'assistant', text: action, source: 'action' });
    } else if (action) {
      out.push(commandBlock(turn, action));
      observationShown = true;
    }
  }
  if (!observationShown && turn.observation?.trim()) out.push({ kind: 'observation', text: turn.observation, source: 'observation' });
  for (const child of launched) out.push({ kind: 'subagent', child, source: 'child' });
  return out;
}

function commandBlock(turn: TurnText, command: string): Block {
  return {
    kind: 'command',
    name: turn.tool || turn.action_type,
    command,
    result: turn.observation,
    submit: turn.action_type === 'submit',
    source: 'action observation',
  };
}
