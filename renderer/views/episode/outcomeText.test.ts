import { describe, expect, it } from 'vitest';
import { choiceIndex, choiceLetter, explains, firstLine, looksLikePatch, targetsOf, testsLine, valueGloss, valueText, valueTone } from './outcomeText.ts';

describe("the outcome panel's words", () => {
  it('shows a value as logged, glossing only Inspect letter grades', () => {
    expect([valueText('C'), valueGloss('C'), valueTone('C')]).toEqual(['C', 'correct', 'good']);
    expect([valueText('I'), valueGloss('I'), valueTone('I')]).toEqual(['I', 'incorrect', 'bad']);
    expect([valueText('Correct'), valueGloss('Correct'), valueTone('Correct')]).toEqual(['Correct', null, null]);
    expect([valueText(false), valueTone(false)]).toEqual(['false', 'bad']);
    expect([valueText(0.6666), valueText(7), valueText(null), valueText({ accuracy: 1 })]).toEqual(['0.667', '7', '—', '{"accuracy":1}']);
  });

  it('matches a one-letter target or answer to its option, and nothing else', () => {
    expect([0, 1, 25, 26].map(choiceLetter)).toEqual(['A', 'B', 'Z', '27']);
    expect([choiceIndex('A', 4), choiceIndex(' c ', 4), choiceIndex('E', 4), choiceIndex('AB', 4), choiceIndex('ANSWER: C', 4), choiceIndex(null, 4)])
      .toEqual([0, 2, null, null, null, null]);
  });

  it('lists targets, counts tests and says when the log explains nothing', () => {
    expect([targetsOf({ target: ' Yes' }), targetsOf({ target: ['a', 'b'] }), targetsOf({}), targetsOf({ target: '' })]).toEqual([[' Yes'], ['a', 'b'], [], ['']]);
    expect(testsLine({ group: 'PASS_TO_PASS', passed: ['a', 'b'], failed: ['c'] })).toBe('PASS_TO_PASS 2/3');
    expect([explains({}), explains({ scorers: [] }), explains({ target: '' }), explains({ notes: ['scored 0 by default'] })]).toEqual([false, false, true, true]);
  });

  it('tells a patch from prose', () => {
    expect(looksLikePatch('\r\ndiff --git a/x b/x\r\n')).toBe(true);
    expect(looksLikePatch('--- a/x\n+++ b/x\n@@ -1,7 +1,7 @@\n')).toBe(true);
    expect(looksLikePatch('The AI Security Institute (AISI) is the premier governmental organization')).toBe(false);
  });

  it('cuts a one-line summary at its first non-blank line, and names an empty text', () => {
    expect(firstLine('\r\ndiff --git a/x b/x\r\nindex 1..2')).toBe('diff --git a/x b/x');
    expect([firstLine(''), firstLine(' \n ')]).toEqual(['(empty)', '(blank)']);
    expect(firstLine('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});
