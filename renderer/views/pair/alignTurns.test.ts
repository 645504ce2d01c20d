import { describe, expect, it } from 'vitest';
import {
  actionKey,
  alignTurns,
  compareTurns,
  describeDivergence,
  differenceStops,
  firstDivergence,
  nextStop,
  prevStop,
  type AlignedTurn,
} from './alignTurns.ts';

function turn(model: string, action: string | null, extra: Partial<AlignedTurn> = {}): AlignedTurn {
  return { model, action, tool: 'env', action_type: 'tool', tool_calls: [], ...extra };
}

describe('actionKey', () => {
  it('keeps the command of a fenced block and drops the prose around it', () => {
    const a = turn('m', 'THOUGHT: the bathroom is next door.\n\n```text\ngo to   bathroom\n```');
    const b = turn('m', 'THOUGHT: I should check the bathroom.\n```bash\ngo to bathroom\n```\nthen look');
    expect(actionKey(a)).toBe('go to bathroom');
    expect(actionKey(b)).toBe('go to bathroom');
  });

  it('reads the whole text, whitespace collapsed, when there is no fence', () => {
    expect(actionKey(turn('m', '  move pot\n to  stove '))).toBe('move pot to stove');
    expect(actionKey(turn('m', null))).toBe('');
  });

  it('compares tool calls by name and input when the turn has any, not by its text', () => {
    const calls = [
      { name: 'Read', input: '{"file":  "a.ts"}' },
      { name: 'Bash', input: 'ls\n-la' },
    ];
    expect(actionKey(turn('m', 'I will read a.ts', { tool_calls: calls }))).toBe('Read({"file": "a.ts"}); Bash(ls -la)');
    expect(actionKey(turn('m', 'other words', { tool_calls: calls }))).toBe(actionKey(turn('m', 'I will read a.ts', { tool_calls: calls })));
  });
});

describe('compareTurns', () => {
  it('agrees on the same model, tool and command worded differently', () => {
    expect(compareTurns(turn('gpt-5', 'Thought: a\n```\nlook\n```'), turn('gpt-5', 'Thought: b\n```\nlook\n```'))).toEqual([]);
  });

  it('lists every reason, in order', () => {
    expect(compareTurns(turn('gpt-5', 'look'), turn('kimi-k2', 'look'))).toEqual(['model']);
    expect(compareTurns(turn('gpt-5', 'look'), turn('gpt-5', 'wait'))).toEqual(['action']);
    expect(compareTurns(turn('gpt-5', 'look', { tool: 'nav' }), turn('kimi-k2', 'wait', { tool: 'obs' }))).toEqual(['model', 'tool', 'action']);
  });

  it('uses the action type as the tool when the log names none', () => {
    expect(compareTurns(turn('m', 'x', { tool: null, action_type: 'message' }), turn('m', 'x', { tool: null, action_type: 'tool' }))).toEqual(['tool']);
    expect(compareTurns(turn('m', 'x', { tool: null, action_type: 'tool' }), turn('m', 'x', { tool: null, action_type: 'tool' }))).toEqual([]);
  });

  it('calls a turn only one side has "ended"', () => {
    expect(compareTurns(turn('m', 'x'), null)).toEqual(['ended']);
    expect(compareTurns(null, turn('m', 'x'))).toEqual(['ended']);
  });
});

describe('alignTurns and the divergence', () => {
  const same = (i: number) => turn('gpt-5', `step ${i}`);
  // B repeats A's first three turns, changes the command at 3, switches model at 5 and ends after 7 turns.
  const a = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(same);
  const b = [same(0), same(1), same(2), turn('gpt-5', 'step three'), same(4), turn('kimi-k2', 'step 5'), same(6)];
  const rows = alignTurns(a, b);

  it('has a row per turn of the longer episode, the shorter one null past its end', () => {
    expect(rows).toHaveLength(10);
    expect(rows.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(rows.slice(7).every((r) => r.a !== null && r.b === null)).toBe(true);
    expect(alignTurns(b, a)[8]).toMatchObject({ a: null, differs: ['ended'] });
  });

  it('finds the first divergence and says why', () => {
    const first = firstDivergence(rows);
    expect(first?.index).toBe(3);
    expect(first && describeDivergence(first)).toBe('action differs');
    expect(describeDivergence(rows[5]!)).toBe('model (A gpt-5, B kimi-k2) differs');
    expect(describeDivergence(rows[7]!)).toBe('only A has turn 7: B ended after 7 turns');
  });

  it('joins several reasons in words', () => {
    const [row] = alignTurns([turn('gpt-5', 'a', { tool: 'nav' })], [turn('kimi-k2', 'b', { tool: 'obs' })]);
    expect(describeDivergence(row!)).toBe('model (A gpt-5, B kimi-k2), tool (A nav, B obs) and action differ');
  });

  it('a shorter episode that is a prefix of the longer diverges where it ends', () => {
    const prefix = alignTurns(a.slice(0, 4), a);
    expect(firstDivergence(prefix)?.index).toBe(4);
    expect(firstDivergence(prefix)?.differs).toEqual(['ended']);
  });

  it('has no divergence for identical episodes, nor for two empty ones', () => {
    expect(firstDivergence(alignTurns(a, a))).toBeNull();
    expect(alignTurns([], [])).toEqual([]);
    expect(firstDivergence([])).toBeNull();
  });

  it('stops n / N at each differing row and once at the start of the ended tail', () => {
    const stops = differenceStops(rows);
    expect(stops).toEqual([3, 5, 7]);
    expect(nextStop(stops, 0)).toBe(3);
    expect(nextStop(stops, 3)).toBe(5);
    expect(nextStop(stops, 7)).toBeNull();
    expect(prevStop(stops, 9)).toBe(7);
    expect(prevStop(stops, 5)).toBe(3);
    expect(prevStop(stops, 3)).toBeNull();
  });
});
