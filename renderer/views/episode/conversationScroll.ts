/**
 * Where turns are in the conversation's scrolling column (ConversationView.tsx): section 0 is the episode's opening
 * (system prompt, task), sections 1…N its turns, N+1 the messages after the last one. Which turn is "in view", and
 * how tall a turn is guessed to be before it is drawn.
 */
import type { TurnDetail } from '../../../shared/api.ts';

export function sectionOfTurn(index: number): number {
  return index + 1;
}

/**
 * The turn in view: the one under a line a third of the way down the column (the reader's eyes, not the top edge,
 * where the end of the previous turn still shows); the first while the opening is there, the last once the column is
 * scrolled to its end (a short last turn never reaches the line). Null when nothing is laid out.
 */
export function turnAtLine(
  pane: { top: number; height: number; scrollHeight: number },
  sectionAt: (offset: number) => number | undefined,
  turns: number,
): number | null {
  if (turns === 0) return null;
  if (pane.top + pane.height >= pane.scrollHeight - 2 && pane.top > 0) return turns - 1;
  const section = sectionAt(pane.top + pane.height / 3);
  if (section === undefined) return null;
  return Math.min(Math.max(section - 1, 0), turns - 1);
}

const LINE = 20;
const BLOCK = 56;
/** A collapsed block shows about this many lines (TextBlock's cut). */
const SHOWN_LINES = 24;

function linesOf(text: string | null | undefined): number {
  if (!text) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && n <= SHOWN_LINES; i = text.indexOf('\n', i + 1)) n++;
  return Math.min(n + Math.floor(Math.min(text.length, 4000) / 120), SHOWN_LINES);
}

/** A guess from the turn's texts, refined once it is drawn; a turn whose page has not come gets a typical height. */
export function estimateTurnHeight(turn: TurnDetail | undefined): number {
  if (!turn) return 240;
  const texts = [turn.message, turn.action, turn.observation, ...turn.inputs.map((m) => m.text), ...turn.tool_calls.flatMap((c) => [c.input, c.result])];
  const blocks = texts.filter((t) => t != null && t !== '');
  return 64 + blocks.length * BLOCK + blocks.reduce((sum, t) => sum + linesOf(t) * LINE, 0) + (turn.reasoning ? 40 : 0);
}
