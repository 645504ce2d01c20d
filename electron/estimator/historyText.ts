/**
 * The history h_t the estimator sees before turn t's model is chosen (MTRouter §3.2, Eq. 2; DESIGN §6):
 * the task block, then the action and observation of the most recent earlier turns, within a token budget.
 * Turn t's own action and observation are never part of h_t.
 *
 * Budget rules (one function, `historyWindow`, decides them for every caller, so the serialised text, the
 * direct encoder and the dataset's incremental encoder always agree):
 *   - tokens are approximated as ceil(chars / 4) (no tokenizer is loaded; the paper's 8192 tokens ≈ 32k chars);
 *   - the task block is always kept, its head capped at half the budget;
 *   - turns are kept whole from the most recent backwards while they fit; the oldest are dropped first;
 *   - when not even the most recent turn fits whole, the tail of its text is kept (the latest observation
 *     matters most), and nothing older.
 * Each block's count includes its labels (`## Turn k`, `Action:`, `Observation:`), so the serialised text's
 * approximate token count never exceeds the budget.
 */
import { SEVERITY_COEF, severityFromLevel } from '../../shared/formulas.ts';
import { STRUCTURED_FEATURES } from './weights.ts';

/** The paper's history budget (App. C, Table 10: 8192 tokens is the default; 16384 gains nothing). */
export const DEFAULT_HISTORY_TOKENS = 8192;
export const CHARS_PER_TOKEN = 4;
/** Labels around one turn: "## Turn 12345\n" + "Action: " + "\n" + "Observation: " + "\n\n" ≤ 40 chars. */
export const TURN_OVERHEAD_TOKENS = 10;
/** "Task: " + "\n\n". */
export const TASK_OVERHEAD_TOKENS = 2;

export function approxTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * How a history layout counts and cuts tokens. The routelens layout always approximates (chars / 4); the
 * mtrouter layout (mtrouterHistory.ts) counts with the encoder's tokenizer when it has one, as the reference
 * does, and approximates otherwise (hash-1024 loads no tokenizer).
 */
export interface TokenCounter {
  /** For the model card: 'chars/4' or the tokenizer that counted. */
  readonly kind: string;
  /** Tokens of `text`, no special tokens (0 for ''). */
  count(text: string): number;
  /** The text of the first `n` tokens of `text`. */
  head(text: string, n: number): string;
}

export const APPROX_TOKEN_COUNTER: TokenCounter = {
  kind: `chars/${CHARS_PER_TOKEN}`,
  count: (text) => approxTokens(text.length),
  head: (text, n) => text.slice(0, Math.max(0, n) * CHARS_PER_TOKEN),
};

/** One earlier turn as the history sees it: what the model did and what the environment answered. */
export interface HistoryTurn {
  action: string | null;
  observation: string | null;
  /** The model that took the turn (the history's "previous model" feature for the turn after it). */
  model?: string | null;
}

/** Tokens one turn takes in the history, labels included. */
export function turnTokens(turn: HistoryTurn): number {
  return approxTokens((turn.action?.length ?? 0) + (turn.observation?.length ?? 0)) + TURN_OVERHEAD_TOKENS;
}

/** Characters of the task text kept: all of it, or its head when it exceeds half the budget. */
export function taskCharsKept(taskLength: number, maxTokens: number): number {
  return Math.min(taskLength, Math.floor(maxTokens / 2) * CHARS_PER_TOKEN);
}

export function taskTokens(taskLength: number, maxTokens: number): number {
  return approxTokens(taskCharsKept(taskLength, maxTokens)) + TASK_OVERHEAD_TOKENS;
}

export interface HistoryWindow {
  /** Characters of the task text kept (its head). */
  taskChars: number;
  /** Turns [first, t) are kept whole. */
  first: number;
  /** When turn t−1 does not fit whole: the characters of its text's tail that are kept; else null. */
  tailChars: number | null;
}

/** The window for h_t, given the tokens of every earlier turn (`tokensOfTurn(k)` for k < t). */
export function historyWindow(taskLength: number, t: number, tokensOfTurn: (k: number) => number, maxTokens: number): HistoryWindow {
  const taskChars = taskCharsKept(taskLength, maxTokens);
  const room = maxTokens - taskTokens(taskLength, maxTokens);
  let used = 0;
  let first = t;
  while (first > 0) {
    const next = used + tokensOfTurn(first - 1);
    if (next > room) break;
    used = next;
    first--;
  }
  const tailChars = first === t && t > 0 ? Math.max(0, (room - TURN_OVERHEAD_TOKENS) * CHARS_PER_TOKEN) : null;
  return { taskChars, first, tailChars };
}

/** The text of a turn cut to its last `chars` characters (action and observation joined by a newline). */
export function turnTail(turn: HistoryTurn, chars: number): string {
  const joined = `${turn.action ?? ''}\n${turn.observation ?? ''}`;
  return chars <= 0 ? '' : joined.slice(Math.max(0, joined.length - chars));
}

export interface SerialisedHistory {
  /** The history as one text (what a sentence-embedding encoder reads, and what the UI shows). */
  text: string;
  /**
   * The same content as separate pieces (task, then action and observation per kept turn, or one tail piece):
   * the hash encoder counts n-grams per piece, so no bigram spans two pieces and a turn's counts never
   * depend on its neighbours.
   */
  segments: string[];
  /**
   * The most recent turn's pieces (turn t−1's action and observation, or its tail when only part fits; none at
   * t = 0). The hash encoder also counts them in a namespace of their own, so what just happened stands apart
   * from the bag of n-grams of the whole window (a bag has no order).
   */
  recent: string[];
  /** Model of turn t−1 (null at t = 0 or when unknown): hashed in a namespace of its own by hash-1024. */
  previousModel: string | null;
  /** Index of the oldest turn kept whole (= t when none is). */
  firstTurn: number;
  /** Turns dropped from the front (the oldest), counting a turn kept only in part. */
  droppedTurns: number;
  truncatedTask: boolean;
  /** Whether turn t−1 is kept only in part. */
  partialTurn: boolean;
  /** Approximate tokens of `text` (chars / 4); never above the budget. */
  tokens: number;
}

/** What an encoder reads of a history: the text (onnx-text) or its pieces (hash-1024). */
export type EncodableHistory = Pick<SerialisedHistory, 'text' | 'segments' | 'recent' | 'previousModel'>;

/**
 * h_t for turn t = `earlier.length`: `earlier` are the turns before t, oldest first. Turn t's own action and
 * observation must not be passed.
 */
export function serialiseHistory(
  task: string | null,
  earlier: readonly HistoryTurn[],
  maxTokens: number = DEFAULT_HISTORY_TOKENS,
): SerialisedHistory {
  if (!(maxTokens > TASK_OVERHEAD_TOKENS + TURN_OVERHEAD_TOKENS)) throw new RangeError(`history budget too small: ${maxTokens} tokens`);
  const taskText = task ?? '';
  const t = earlier.length;
  const w = historyWindow(taskText.length, t, (k) => turnTokens(earlier[k] as HistoryTurn), maxTokens);
  const kept = taskText.slice(0, w.taskChars);
  const segments = [kept];
  const parts = [`Task: ${kept}\n\n`];
  for (let k = w.first; k < t; k++) {
    const turn = earlier[k] as HistoryTurn;
    segments.push(turn.action ?? '', turn.observation ?? '');
    parts.push(`## Turn ${k}\nAction: ${turn.action ?? ''}\nObservation: ${turn.observation ?? ''}\n\n`);
  }
  let recent: string[] = [];
  if (w.tailChars !== null) {
    const tail = turnTail(earlier[t - 1] as HistoryTurn, w.tailChars);
    segments.push(tail);
    parts.push(`## Turn ${t - 1} (end)\n${tail}\n\n`);
    recent = [tail];
  } else if (t > 0) {
    recent = segments.slice(-2);
  }
  const text = parts.join('');
  return {
    text,
    segments,
    recent,
    previousModel: t > 0 ? ((earlier[t - 1] as HistoryTurn).model ?? null) : null,
    firstTurn: w.first,
    droppedTurns: w.tailChars !== null ? t : w.first,
    truncatedTask: w.taskChars < taskText.length,
    partialTurn: w.tailChars !== null,
    tokens: approxTokens(text.length),
  };
}

/** What the structured history features are computed from (the facts of turn t−1 and t's position). */
export interface StructuredInput {
  /** Turn index t (0-based). */
  t: number;
  /** N, the expected steps of the task (DESIGN §5). */
  expectedSteps: number;
  /** `turns.max_severity` of turn t−1 (0 = no error, 1 low, 2 medium, 3 high); 0 for t = 0. */
  previousSeverity: number;
  /** Whether turn t−1 switched model; false for t = 0. */
  previousSwitched: boolean;
}

/** Writes STRUCTURED_FEATURES (in their order) into out[offset …]. */
export function structuredFeatures(input: StructuredInput, out: Float32Array, offset: number): void {
  const severity = severityFromLevel(input.previousSeverity);
  out[offset] = Math.min((input.t + 1) / input.expectedSteps, 1);
  out[offset + 1] = severity === null ? 0 : SEVERITY_COEF[severity];
  out[offset + 2] = input.previousSwitched ? 1 : 0;
  out[offset + 3] = Math.log1p(input.t);
}

export const STRUCTURED_DIM = STRUCTURED_FEATURES.length;
