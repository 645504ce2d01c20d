// The Compare view's pure parts: the form → the `compare` input, the task filters, and the image PDF.
import { describe, expect, it } from 'vitest';
import type { CompareTask } from '../../../shared/apiCompare.ts';
import { compareInput, EMPTY_SIDE } from './compareForm.ts';
import { diffCost, diffPoints, pValue } from './compareFormat.ts';
import { filterCounts, keepTask } from './taskFilter.ts';

describe('compareInput', () => {
  it('says what is missing in one line, and makes no input', () => {
    expect(compareInput(EMPTY_SIDE, { ...EMPTY_SIDE, runIds: [2] }, '')).toEqual({ ok: false, message: 'Choose at least one run for A.' });
    expect(compareInput({ runIds: [1], field: 'model', value: '  ' }, { ...EMPTY_SIDE, runIds: [2] }, '')).toMatchObject({ ok: false, message: expect.stringContaining('main model that A keeps') });
    expect(compareInput({ ...EMPTY_SIDE, runIds: [1] }, { ...EMPTY_SIDE, runIds: [1] }, '')).toMatchObject({ ok: false, message: expect.stringContaining('same episodes') });
  });

  it('one run split by a field on both sides, with a counterfactual', () => {
    const check = compareInput({ runIds: [1], field: 'model', value: ' gpt-5 ' }, { runIds: [1], field: 'model', value: 'kimi-k2' }, 'deepseek-v3.2');
    expect(check).toEqual({
      ok: true,
      input: { a: { runIds: [1], where: { field: 'model', value: 'gpt-5' } }, b: { runIds: [1], where: { field: 'model', value: 'kimi-k2' } }, bootstrap: 2000, counterfactual_model: 'deepseek-v3.2' },
    });
  });
});

describe('task filters', () => {
  const t = (winner: CompareTask['winner'], a: number | null, b: number | null) => ({ winner, a_success: a, b_success: b }) as CompareTask;
  const tasks = [t('a', 1, 0), t('b', 0, 1), t('tie', 0, 0), t('tie', 0.5, 0.5), t(null, null, null), t('tie', 1, 1)];
  it('both fail means at most half the episodes succeeded on each side; unknown is not a failure', () => {
    expect(filterCounts(tasks)).toEqual({ all: 6, a: 1, b: 1, 'both-fail': 2 });
    expect(keepTask(t(null, null, 0), 'both-fail')).toBe(false);
  });
});

describe('formats', () => {
  it('writes the sign of every difference, and exact p-values', () => {
    expect(diffPoints(0.125)).toBe('+12.5 pp');
    expect(diffCost(-0.0123)).toBe('−$0.0123');
    expect([pValue(0.0004), pValue(0.03125), pValue(1)]).toEqual(['p < 0.001', 'p = 0.031', 'p = 1']);
  });
});
