// The alert rule grammar and its evaluation, with worked examples (docs/alerts.md states the same rules).
import { describe, expect, it } from 'vitest';
import { describeRule, evaluateRule, parseRule, type AlertCall, type AlertRule } from './alertRules.ts';

function rule(text: string): AlertRule {
  const parsed = parseRule(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.rule;
}

const NOW = Date.parse('2026-11-29T12:00:00Z');
const MIN = 60_000;

/** Calls to `model`, `cost` each, one a minute ending `endMinAgo` minutes before NOW. */
function calls(n: number, over: Partial<AlertCall> = {}, endMinAgo = 0): AlertCall[] {
  return Array.from({ length: n }, (_, i) => ({
    t: i, model: 'claude-opus-4', cost: 0.1, timestampMs: NOW - (endMinAgo + n - 1 - i) * MIN, hasError: false, ...over,
  }));
}

const renumber = (list: AlertCall[]): AlertCall[] => list.map((c, i) => ({ ...c, t: i }));

describe('parseRule', () => {
  it('reads every measure and writes it back in its canonical spelling', () => {
    const cases: [string, string][] = [
      ['rate>5/h', 'rate>5/h'],
      [' rate > $5 / H ', 'rate>5/h'],
      ['rate>=0.5/m in 30m', 'rate>=0.5/m in 30m'],
      ['rate<100/d', 'rate<100/d'],
      ['cost>10', 'cost>10'],
      ['COST >= $2.50', 'cost>=2.5'],
      ['model~Opus streak>20', 'model~opus streak>20'],
      ['model ~ opus   calls > 5', 'model~opus calls>5'],
      ['errors>=3 in 5', 'errors>=3 in 5'],
      ['errors >= 3 in 10m', 'errors>=3 in 10m'],
      ['errors>0', 'errors>0'],
      ['calls>200', 'calls>200'],
      ['switches>=4', 'switches>=4'],
      ['streak=3', 'streak=3'],
      ['model~openrouter/anthropic/claude-3.5 cost<=1', 'model~openrouter/anthropic/claude-3.5 cost<=1'],
    ];
    for (const [text, canonical] of cases) {
      const parsed = parseRule(text);
      expect(parsed.ok ? parsed.text : parsed.error, text).toBe(canonical);
    }
  });

  it('says what is wrong and at which column', () => {
    const cases: [string, string][] = [
      ['rate>5/x', 'rule "rate>5/x": column 8: expected a time unit after "/" (m, h or d), found "x"'],
      ['rate>5', 'rule "rate>5": column 7: expected "/" and a time unit after the amount (e.g. 5/h), found the end of the rule'],
      ['rate>5/h in 5', 'rule "rate>5/h in 5": column 13: rate reads a time window (e.g. in 30m), not a number of calls'],
      ['speed>5', 'rule "speed>5": column 1: expected a measure (rate, cost, calls, streak, switches, errors), found "speed"'],
      ['cost 10', 'rule "cost 10": column 6: expected a comparison (>, >=, <, <= or =), found "10"'],
      ['cost=>10', 'rule "cost=>10": column 5: "=>" is not a comparison: use >, >=, <, <= or ='],
      ['calls>2.5', 'rule "calls>2.5": column 7: a whole number of calls must be a whole number, not 2.5'],
      ['model~opus', 'rule "model~opus": column 11: expected a condition after model~opus (e.g. streak>20 or calls>100), found the end of the rule'],
      ['model opus streak>2', 'rule "model opus streak>2": column 7: expected "~" after model (model~TEXT matches models whose name holds TEXT), found "opus"'],
      ['errors>=3 in 5x', 'rule "errors>=3 in 5x": column 15: expected a space or the end of the rule, found "x"'],
      ['errors>=3 in 0', 'rule "errors>=3 in 0": column 14: a window of calls must hold at least 1 call'],
      ['errors>=3 in 40d', 'rule "errors>=3 in 40d": column 14: a time window must be more than 0 and at most 30d'],
      ['cost>10 and calls>3', 'rule "cost>10 and calls>3": column 9: expected the end of the rule, found "and"'],
      ['', 'rule "": empty (e.g. rate>5/h, cost>10, model~opus streak>20, errors>=3 in 5)'],
    ];
    for (const [text, error] of cases) {
      const parsed = parseRule(text);
      expect(parsed.ok ? `parsed as ${parsed.text}` : parsed.error, text).toBe(error);
    }
  });

  it('says in words what a rule watches for', () => {
    expect(['rate>5/h', 'rate>=0.5/m in 30m', 'cost>10', 'model~opus streak>20', 'streak>=50', 'errors>=3 in 5', 'errors>2 in 10m', 'errors=0', 'calls<=200', 'model~opus switches>1']
      .map((text) => describeRule(rule(text)))).toEqual([
      'spend of more than $5/h over the last 10 min',
      'spend of at least $0.50/m over the last 30 min',
      'more than $10 spent so far',
      'more than 20 calls in a row to models matching "opus"',
      'at least 50 calls in a row to one model',
      'at least 3 calls with errors within 5 calls in a row',
      'more than 2 calls with errors in the last 10 min',
      'exactly 0 calls with errors so far',
      'at most 200 calls',
      'more than 1 model switch onto models matching "opus"',
    ]);
  });

  it('gives the column as a number for the editor to point at', () => {
    expect(parseRule('rate>5/x')).toMatchObject({ ok: false, column: 8, reason: 'expected a time unit after "/" (m, h or d), found "x"' });
  });
});

describe('evaluateRule', () => {
  it('rate: $1.20 over the last 10 minutes is $7.20/h; older calls do not count', () => {
    // 12 calls of $0.10 in the last 12 minutes: 10 of them (minutes 0–9 ago) are in the window.
    const list = calls(12);
    expect(evaluateRule(rule('rate>5/h'), list, NOW)).toEqual({
      outcome: 'fires', message: '$6.00/h over the last 10 min (rule rate>5/h)',
    });
    // The same calls an hour ago: nothing in the window.
    expect(evaluateRule(rule('rate>5/h'), calls(12, {}, 60), NOW).outcome).toBe('quiet');
    // 12 calls at $0.12: $1.20 in the window.
    expect(evaluateRule(rule('rate>5/h'), calls(12, { cost: 0.12 }), NOW).message).toBe('$7.20/h over the last 10 min (rule rate>5/h)');
    expect(evaluateRule(rule('rate>0.1/m'), calls(12, { cost: 0.12 }), NOW)).toMatchObject({ outcome: 'fires', message: '$0.1200/m over the last 10 min (rule rate>0.1/m)' });
    expect(evaluateRule(rule('rate>5/h in 30m'), calls(12), NOW)).toMatchObject({ outcome: 'quiet', message: '$2.40/h over the last 30 min (rule rate>5/h in 30m)' });
  });

  it('rate: a call of unknown cost is never $0 — fires on the known part only when that suffices, else cannot tell', () => {
    const mixed = calls(10, { cost: 0.12 });
    mixed[3] = { ...(mixed[3] as AlertCall), cost: null };
    mixed[4] = { ...(mixed[4] as AlertCall), cost: null };
    // Known: 8 × $0.12 = $0.96 in 10 min = $5.76/h > 5: fires, saying what it did not count.
    expect(evaluateRule(rule('rate>5/h'), mixed, NOW)).toEqual({
      outcome: 'fires', message: '$5.76/h over the last 10 min; 2 calls of unknown cost not counted (rule rate>5/h)',
    });
    // Above 6/h it might be or not: unknown, not quiet.
    expect(evaluateRule(rule('rate>6/h'), mixed, NOW)).toEqual({
      outcome: 'unknown', message: 'cannot tell: $5.76/h over the last 10 min; 2 calls of unknown cost not counted (rule rate>6/h)',
    });
    // "below 6/h" cannot be told either (the unknown calls could be $0 or $100) …
    expect(evaluateRule(rule('rate<6/h'), mixed, NOW).outcome).toBe('unknown');
    // … but "below 5/h" is already broken by the known part.
    expect(evaluateRule(rule('rate<5/h'), mixed, NOW).outcome).toBe('quiet');
    // Every cost unknown: never fires as if they were $0.
    expect(evaluateRule(rule('rate<1/h'), calls(10, { cost: null }), NOW).outcome).toBe('unknown');
  });

  it('rate: a call without a time is not placed in the window, and is said', () => {
    const list = [...calls(5, { cost: 0.5 }), { t: 9, model: 'x', cost: 0.5, timestampMs: null, hasError: false }];
    // Known: $2.50 in 10 min = $15/h.
    expect(evaluateRule(rule('rate>10/h'), list, NOW)).toEqual({
      outcome: 'fires', message: '$15.00/h over the last 10 min; 1 call without a time not counted (rule rate>10/h)',
    });
    expect(evaluateRule(rule('rate>20/h'), list, NOW).outcome).toBe('unknown');
  });

  it('cost: spend so far, on known costs; a filter counts only its models', () => {
    const list = renumber([...calls(50, { cost: 0.25 }), ...calls(10, { model: 'claude-sonnet-4', cost: 1 })]);
    expect(evaluateRule(rule('cost>10'), list, NOW)).toEqual({ outcome: 'fires', message: '$22.50 spent so far (rule cost>10)' });
    expect(evaluateRule(rule('model~sonnet cost>10'), list, NOW)).toEqual({
      outcome: 'quiet', message: '$10.00 spent so far to models matching "sonnet" (rule model~sonnet cost>10)',
    });
    const unknown = [...list, { t: 60, model: 'x', cost: null, timestampMs: NOW, hasError: false }];
    expect(evaluateRule(rule('cost>30'), unknown, NOW)).toMatchObject({ outcome: 'unknown' });
    expect(evaluateRule(rule('cost>20'), unknown, NOW)).toEqual({
      outcome: 'fires', message: '$22.50 spent so far; 1 call of unknown cost not counted (rule cost>20)',
    });
    // A log that gives only the session's total (Copilot CLI's usage, SWE-agent's final cost): that total is the spend.
    const untold = calls(5, { cost: null });
    expect(evaluateRule(rule('cost>10'), untold, NOW, { totalUsd: 12.5 })).toEqual({ outcome: 'fires', message: "$12.50 spent so far (the log's total) (rule cost>10)" });
    expect(evaluateRule(rule('cost<10'), untold, NOW, { totalUsd: 12.5 }).outcome).toBe('quiet');
    // It is not split by model.
    expect(evaluateRule(rule('model~opus cost>10'), untold, NOW, { totalUsd: 12.5 }).outcome).toBe('unknown');
    // $0 known and one unknown call: "cost<1" cannot be told (reading unknown as $0 would fire it).
    expect(evaluateRule(rule('cost<1'), [{ t: 0, model: 'x', cost: null, timestampMs: null, hasError: false }], NOW).outcome).toBe('unknown');
  });

  it('streak: the longest run of consecutive calls, to one model or to the models matching the filter', () => {
    const list = renumber([
      ...calls(15, { model: 'claude-opus-4' }), ...calls(1, { model: 'gpt-5' }), ...calls(21, { model: 'claude-opus-4.1' }), ...calls(2, { model: 'gpt-5' }),
    ]);
    expect(evaluateRule(rule('model~opus streak>20'), list, NOW)).toEqual({
      outcome: 'fires', message: '21 calls in a row to claude-opus-4.1 (rule model~opus streak>20)',
    });
    expect(evaluateRule(rule('model~opus streak>21'), list, NOW).outcome).toBe('quiet');
    // Two opus models back to back make one streak under the filter, two without it.
    const joined = renumber([...calls(12, { model: 'claude-opus-4' }), ...calls(12, { model: 'claude-opus-4.1' })]);
    expect(evaluateRule(rule('model~OPUS streak>20'), joined, NOW).message).toBe('24 calls in a row to claude-opus-4, claude-opus-4.1 (rule model~opus streak>20)');
    expect(evaluateRule(rule('streak>20'), joined, NOW)).toEqual({ outcome: 'quiet', message: '12 calls in a row to claude-opus-4 (rule streak>20)' });
    const many = renumber(['opus-a', 'opus-b', 'opus-c', 'opus-d', 'opus-e'].flatMap((model) => calls(2, { model })));
    expect(evaluateRule(rule('model~opus streak>5'), many, NOW).message).toBe('10 calls in a row to opus-a, opus-b, opus-c and 2 more (rule model~opus streak>5)');
    expect(evaluateRule(rule('model~gemini streak>0'), list, NOW)).toEqual({ outcome: 'quiet', message: 'no calls to models matching "gemini" (rule model~gemini streak>0)' });
  });

  it('errors in N calls: the most errored stretch of N consecutive calls anywhere in the episode', () => {
    const list = calls(20);
    for (const i of [4, 6, 8]) list[i] = { ...(list[i] as AlertCall), hasError: true };
    expect(evaluateRule(rule('errors>=3 in 5'), list, NOW)).toEqual({
      outcome: 'fires', message: '3 calls with errors within 5 calls (turns 4–8) (rule errors>=3 in 5)',
    });
    expect(evaluateRule(rule('errors>=3 in 4'), list, NOW)).toEqual({
      outcome: 'quiet', message: '2 calls with errors within 4 calls (turns 3–6) (rule errors>=3 in 4)',
    });
    expect(evaluateRule(rule('errors>2'), list, NOW)).toMatchObject({ outcome: 'fires', message: '3 calls with errors (rule errors>2)' });
  });

  it('errors in a time window: calls with errors stamped in it; an unstamped one is not counted and is said', () => {
    const list = calls(30);
    for (const i of [2, 3, 25, 28]) list[i] = { ...(list[i] as AlertCall), hasError: true };
    // Calls 25 and 28 are 4 and 1 minutes old; 2 and 3 are 27 and 26.
    expect(evaluateRule(rule('errors>=2 in 10m'), list, NOW)).toMatchObject({ outcome: 'fires', message: '2 calls with errors in the last 10 min (rule errors>=2 in 10m)' });
    expect(evaluateRule(rule('errors>=3 in 10m'), list, NOW).outcome).toBe('quiet');
    list.push({ t: 30, model: 'x', cost: 0, timestampMs: null, hasError: true });
    expect(evaluateRule(rule('errors>=3 in 10m'), list, NOW)).toEqual({
      outcome: 'unknown', message: 'cannot tell: 2 calls with errors in the last 10 min; 1 call without a time not counted (rule errors>=3 in 10m)',
    });
    expect(evaluateRule(rule('errors>=3 in 1h'), list, NOW).outcome).toBe('fires');
  });

  it('calls and switches, with and without a filter', () => {
    const list = renumber([...calls(3, { model: 'a-opus' }), ...calls(2, { model: 'b' }), ...calls(1, { model: 'a-opus' }), ...calls(1, { model: 'c' })]);
    expect(evaluateRule(rule('calls>200'), calls(201), NOW)).toEqual({ outcome: 'fires', message: '201 calls (rule calls>200)' });
    expect(evaluateRule(rule('calls>200'), calls(200), NOW).outcome).toBe('quiet');
    expect(evaluateRule(rule('model~opus calls=4'), list, NOW)).toEqual({ outcome: 'fires', message: '4 calls to models matching "opus" (rule model~opus calls=4)' });
    expect(evaluateRule(rule('switches>=3'), list, NOW)).toEqual({ outcome: 'fires', message: '3 model switches (rule switches>=3)' });
    expect(evaluateRule(rule('model~opus switches>=2'), list, NOW)).toEqual({
      outcome: 'quiet', message: '1 model switch onto models matching "opus" (rule model~opus switches>=2)',
    });
  });
});
