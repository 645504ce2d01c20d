import { describe, expect, it } from 'vitest';
import {
  TURN_OVERHEAD_TOKENS,
  approxTokens,
  serialiseHistory,
  structuredFeatures,
  turnTokens,
  type HistoryTurn,
} from './historyText.ts';

const turn = (k: number, chars = 200): HistoryTurn => ({
  action: `act${k} ${'a'.repeat(chars / 2 - 6)}`,
  observation: `obs${k} ${'o'.repeat(chars / 2 - 6)}`,
});

describe('serialiseHistory', () => {
  it('holds the task and every earlier turn when they fit, and nothing of turn t', () => {
    const earlier = [turn(0), turn(1), turn(2)];
    const h = serialiseHistory('Boil water.', earlier, 8192);
    expect(h.droppedTurns).toBe(0);
    expect(h.firstTurn).toBe(0);
    expect(h.text.startsWith('Task: Boil water.')).toBe(true);
    for (const k of [0, 1, 2]) expect(h.text).toContain(`act${k} `);
    expect(h.text).not.toContain('act3 ');
    expect(h.segments).toEqual(['Boil water.', ...earlier.flatMap((x) => [x.action, x.observation])]);
    expect(serialiseHistory('Boil water.', []).text).toBe('Task: Boil water.\n\n');
  });

  it('drops the oldest turns first and stays within the budget', () => {
    const earlier = Array.from({ length: 40 }, (_, k) => turn(k));
    const budget = 512;
    const h = serialiseHistory('Find an animal.', earlier, budget);
    expect(h.tokens).toBeLessThanOrEqual(budget);
    expect(approxTokens(h.text.length)).toBe(h.tokens);
    expect(h.droppedTurns).toBeGreaterThan(0);
    expect(h.firstTurn).toBe(h.droppedTurns);
    // The kept turns are exactly the most recent ones, contiguous, and one more would not fit.
    for (let k = 0; k < 40; k++) expect(h.text.includes(`act${k} `)).toBe(k >= h.firstTurn);
    const used = approxTokens('Find an animal.'.length) + 2 + (40 - h.firstTurn) * turnTokens(turn(0));
    expect(used).toBeLessThanOrEqual(budget);
    expect(used + turnTokens(turn(0))).toBeGreaterThan(budget);
    // A bigger budget keeps a superset, still ending with the latest turn.
    const more = serialiseHistory('Find an animal.', earlier, 2048);
    expect(more.firstTurn).toBeLessThan(h.firstTurn);
    expect(more.text.endsWith(h.text.slice(h.text.indexOf('## Turn')))).toBe(true);
  });

  it('keeps the task block but caps it at half the budget, and keeps the tail of a turn too long to fit', () => {
    const task = 'x'.repeat(10_000);
    const long: HistoryTurn = { action: 'first words', observation: `${'y'.repeat(5000)} LAST WORDS` };
    const h = serialiseHistory(task, [turn(0), long], 1024);
    expect(h.truncatedTask).toBe(true);
    expect(h.partialTurn).toBe(true);
    expect(h.droppedTurns).toBe(2);
    expect(h.tokens).toBeLessThanOrEqual(1024);
    expect(h.text).toContain('LAST WORDS');
    expect(h.text).not.toContain('first words');
    expect(h.text).not.toContain('act0');
    expect(h.segments).toHaveLength(2);
    expect(h.segments[0]).toHaveLength(512 * 4);
  });

  it('counts labels in every turn', () => {
    expect(turnTokens({ action: null, observation: null })).toBe(TURN_OVERHEAD_TOKENS);
    expect(turnTokens({ action: 'abcd', observation: 'e' })).toBe(TURN_OVERHEAD_TOKENS + 2);
    expect(() => serialiseHistory('x', [], 4)).toThrow(RangeError);
  });
});

describe('structuredFeatures', () => {
  it('writes progress, previous severity, previous switch and log turn index', () => {
    const out = new Float32Array(6);
    structuredFeatures({ t: 4, expectedSteps: 10, previousSeverity: 2, previousSwitched: true }, out, 1);
    expect(Array.from(out)).toEqual([0, 0.5, Math.fround(0.8), 1, Math.fround(Math.log1p(4)), 0]);
    structuredFeatures({ t: 30, expectedSteps: 10, previousSeverity: 0, previousSwitched: false }, out, 0);
    expect(out[0]).toBe(1);
    expect(out[1]).toBe(0);
  });
});
