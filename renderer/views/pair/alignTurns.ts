/**
 * The split inspector's alignment: turn i of episode A beside turn i of episode B, and where they part ways.
 *
 * Two aligned turns differ when any of these holds (listed in this order):
 *   - `model`:  they were answered by different models;
 *   - `tool`:   they used a different tool (the action type when the log names no tool);
 *   - `action`: they did something different. The action is the tool calls (name and input) when the turn
 *               has any, else the command in its text (the first fenced block, or the whole text when there is
 *               none), with runs of whitespace collapsed. The prose around a command is left out: two runs
 *               word their thinking differently while doing the same thing;
 *   - `ended`:  only one of the two episodes has this turn.
 * The first divergence is the first row that differs.
 */
import type { TurnDetail } from '../../../shared/api.ts';

export type AlignedTurn = Pick<TurnDetail, 'model' | 'tool' | 'action_type' | 'action' | 'tool_calls'>;

export type DiffReason = 'model' | 'tool' | 'action' | 'ended';

export interface AlignedRow<T extends AlignedTurn = AlignedTurn> {
  /** The row's index: turn i of each episode. */
  index: number;
  a: T | null;
  b: T | null;
  /** Why the two turns differ; empty when they agree. */
  differs: DiffReason[];
}

const FENCED = /```[^\n`]*\n([\s\S]*?)```/;

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** What a turn did, in the form two turns are compared by (see the module comment). */
export function actionKey(turn: AlignedTurn): string {
  if (turn.tool_calls.length > 0) return turn.tool_calls.map((c) => `${c.name}(${collapse(c.input ?? '')})`).join('; ');
  const text = turn.action ?? '';
  return collapse(FENCED.exec(text)?.[1] ?? text);
}

function toolOf(turn: AlignedTurn): string {
  return turn.tool ?? turn.action_type;
}

export function compareTurns(a: AlignedTurn | null, b: AlignedTurn | null): DiffReason[] {
  if (a === null && b === null) return [];
  if (a === null || b === null) return ['ended'];
  const out: DiffReason[] = [];
  if (a.model !== b.model) out.push('model');
  if (toolOf(a) !== toolOf(b)) out.push('tool');
  if (actionKey(a) !== actionKey(b)) out.push('action');
  return out;
}

/** One row per turn index up to the longer episode's length; the shorter one's missing turns are null. */
export function alignTurns<T extends AlignedTurn>(a: readonly T[], b: readonly T[]): AlignedRow<T>[] {
  const rows: AlignedRow<T>[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const ta = a[i] ?? null;
    const tb = b[i] ?? null;
    rows.push({ index: i, a: ta, b: tb, differs: compareTurns(ta, tb) });
  }
  return rows;
}

export function firstDivergence(rows: readonly AlignedRow[]): AlignedRow | null {
  return rows.find((r) => r.differs.length > 0) ?? null;
}

/**
 * Where n / N stop: every row that differs, except that the tail where one episode has ended is one stop
 * (its first row), not one per missing turn.
 */
export function differenceStops(rows: readonly AlignedRow[]): number[] {
  const ended = (r: AlignedRow | undefined) => r !== undefined && r.differs.includes('ended');
  return rows.filter((r) => r.differs.length > 0 && !(ended(r) && ended(rows[r.index - 1]))).map((r) => r.index);
}

export function nextStop(stops: readonly number[], from: number): number | null {
  return stops.find((i) => i > from) ?? null;
}

export function prevStop(stops: readonly number[], from: number): number | null {
  return stops.findLast((i) => i < from) ?? null;
}

/** The divergence in words, for the marker's tooltip: "model (gpt-5 vs kimi-k2) and action differ". */
export function describeDivergence(row: AlignedRow): string {
  const { a, b } = row;
  if (a === null || b === null) return `only ${a === null ? 'B' : 'A'} has turn ${row.index}: ${a === null ? 'A' : 'B'} ended after ${row.index} turns`;
  const parts = row.differs.map((reason) => {
    if (reason === 'model') return `model (A ${a.model}, B ${b.model})`;
    if (reason === 'tool') return `tool (A ${toolOf(a)}, B ${toolOf(b)})`;
    return reason;
  });
  const list = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '');
  return `${list} ${parts.length > 1 ? 'differ' : 'differs'}`;
}
