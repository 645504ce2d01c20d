/**
 * The history text h_t as MTRouter's published estimator builds it (the `mtrouter` input profile,
 * inputProfile.ts; ZhangYiqun018/MTRouter research/training/encoders.py, read at commit 255267285c33). The reference works
 * on the chat messages before turn t's reply; RouteLens stores the same content per turn, so the messages are
 * rebuilt: the first user message is the episode's task text, then per earlier turn the assistant's reply
 * (`action`) and the environment's answer (`observation`, left out when the log has none).
 *
 *   task     from the first user message: the inside of `<task_description>…</task_description>`; else the
 *            question block after "## HLE Question" (up to a `---` rule line); else the first sentence
 *            starting "Your task is to"; else the whole message. Trimmed as Python's str.strip does.
 *   context  the inside of `<initial_observation>…</initial_observation>` of that message, if any, as a user
 *            message; then every later message except system prompts, each as "[Turn N - role]\ncontent",
 *            joined by blank lines. N counts user messages: the last message is numbered with the number of
 *            user messages, and the number drops by one after each user message walking back, so an answer
 *            and the reply that follows it share a number.
 *   layout   "[Task]\n" + task, then "\n\n[Context]\n" + context when any message is kept.
 *
 * Budget (max tokens, 8192 in the reference's training config): 20 tokens are set aside for the labels around
 * task and context. A task of max − 20 tokens or more is cut to its first max − 20 tokens and stands alone.
 * Otherwise messages are kept whole from the newest back, each costing its tokens plus 10 for its label,
 * until the next one would overflow what the task left; the oldest go first and no message is cut.
 * Tokens are the encoder's tokenizer's when it has one, chars / 4 otherwise (historyText.ts TokenCounter).
 */
import type { EncodableHistory, HistoryTurn, TokenCounter } from './historyText.ts';

/** Tokens set aside for "[Task]\n" and "\n\n[Context]\n". */
export const MTROUTER_FORMAT_TOKENS = 20;
/** Tokens charged per context message for its "[Turn N - role]\n" label and separator. */
export const MTROUTER_MESSAGE_TOKENS = 10;

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface MtrouterHistory extends EncodableHistory {
  /** Context messages kept (the newest ones). */
  keptMessages: number;
  /** Context messages dropped from the front for the budget. */
  droppedMessages: number;
  truncatedTask: boolean;
}

// Python's str.strip() whitespace: str.isspace() characters (JavaScript's trim differs on \x1c-\x1f, \x85, \ufeff).
const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');
export const pyStrip = (text: string): string => text.replace(PY_STRIP, '');

const TASK_TAG = /<task_description>([\s\S]*?)<\/task_description>/;
const OBSERVATION_TAG = /<initial_observation>([\s\S]*?)<\/initial_observation>/;
const HLE_HEADING = '## HLE Question';
const RULE_LINE = /\n\s*---\s*\n/;
const TASK_SENTENCE = /Your task is to[^.]+\./;

/** The task description the reference reads from the first user message. */
export function mtrouterTask(firstUserMessage: string): string {
  const tagged = TASK_TAG.exec(firstUserMessage);
  if (tagged) return pyStrip(tagged[1] as string);
  const heading = firstUserMessage.indexOf(HLE_HEADING);
  if (heading >= 0) {
    const after = pyStrip(firstUserMessage.slice(heading + HLE_HEADING.length));
    const block = pyStrip(after.split(RULE_LINE)[0] as string);
    if (block) return block;
  }
  const sentence = TASK_SENTENCE.exec(firstUserMessage);
  if (sentence) return sentence[0];
  return pyStrip(firstUserMessage);
}

/** The environment's first observation when the first user message carries one (ScienceWorld), else ''. */
export function mtrouterInitialObservation(firstUserMessage: string): string {
  const tagged = OBSERVATION_TAG.exec(firstUserMessage);
  return tagged ? pyStrip(tagged[1] as string) : '';
}

/** The context messages before turn t = earlier.length: the initial observation, then reply and answer per turn. */
export function mtrouterContext(task: string | null, earlier: readonly HistoryTurn[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const initial = mtrouterInitialObservation(task ?? '');
  if (initial) messages.push({ role: 'user', content: initial });
  for (const turn of earlier) {
    messages.push({ role: 'assistant', content: turn.action ?? '' });
    if (turn.observation !== null && turn.observation !== undefined) messages.push({ role: 'user', content: turn.observation });
  }
  return messages;
}

/** The newest messages that fit `budget` tokens, labelled with their turn numbers, oldest first. */
export function mtrouterContextText(messages: readonly ChatMessage[], budget: number, tokens: TokenCounter): { text: string; kept: number } {
  if (messages.length === 0 || budget <= 0) return { text: '', kept: 0 };
  let turn = messages.filter((m) => m.role === 'user').length;
  let used = 0;
  const kept: string[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as ChatMessage;
    const cost = tokens.count(m.content) + MTROUTER_MESSAGE_TOKENS;
    if (used + cost > budget) break;
    used += cost;
    kept.push(`[Turn ${turn} - ${m.role}]\n${m.content}`);
    if (m.role === 'user') turn--;
  }
  return { text: kept.reverse().join('\n\n'), kept: kept.length };
}

/** h_t for turn t = earlier.length in the reference's layout; `task` is the episode's first user message. */
export function mtrouterHistory(task: string | null, earlier: readonly HistoryTurn[], maxTokens: number, tokens: TokenCounter): MtrouterHistory {
  const taskText = mtrouterTask(task ?? '');
  const taskTokens = tokens.count(taskText);
  const messages = mtrouterContext(task, earlier);
  const room = maxTokens - MTROUTER_FORMAT_TOKENS;
  const only = (text: string, truncatedTask: boolean): MtrouterHistory => ({
    text,
    segments: [text],
    recent: [],
    previousModel: null,
    keptMessages: 0,
    droppedMessages: messages.length,
    truncatedTask,
  });
  if (taskTokens >= room) return only(`[Task]\n${tokens.head(taskText, room)}`, taskTokens > room);
  const context = mtrouterContextText(messages, room - taskTokens, tokens);
  if (!context.text) return only(`[Task]\n${taskText}`, false);
  const text = `[Task]\n${taskText}\n\n[Context]\n${context.text}`;
  return {
    text,
    // hash-1024 reads the exact text the reference embeds, labels included, as one piece.
    segments: [text],
    recent: [],
    previousModel: null,
    keptMessages: context.kept,
    droppedMessages: messages.length - context.kept,
    truncatedTask: false,
  };
}
