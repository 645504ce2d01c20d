// MTRouter's splits: the variation cut is compared with CPython running the reference's rule
// (research/data/split.py over data_split.yaml and ScienceWorld 1.2.3's variation counts).
import { describe, expect, it } from 'vitest';
import { hleSplit, scienceWorldSplit, scienceWorldVariationSplits } from './mtrouterSplits.ts';

/** CPython 3.11, `DataSplit.initialize_variations` with the reference's config (printed once). */
const REFERENCE: Record<string, { train: number[]; val: number[]; test_id: number[] }> = {
  boil: { train: [1, 5, 6, 9, 10, 11, 12, 13, 14, 15, 16, 19, 21, 22, 25, 26, 27, 29], val: [2, 4, 17, 18, 24, 28], test_id: [0, 3, 7, 8, 20, 23] },
  melt: { train: [1, 2, 3, 7, 9, 11, 12, 14, 15, 16, 17, 19, 20, 21, 23, 26, 27, 29], val: [4, 6, 10, 13, 22, 28], test_id: [0, 5, 8, 18, 24, 25] },
  'chemistry-mix': { train: [0, 3, 4, 5, 8, 10, 12, 13, 14, 15, 16, 17, 21, 24, 25, 27, 28, 29], val: [1, 2, 7, 9, 22, 23], test_id: [6, 11, 18, 19, 20, 26] },
  'find-animal': { train: [0, 2, 3, 4, 6, 9, 11, 13, 15, 16, 18, 19, 23, 25, 26, 27, 28, 29], val: [1, 7, 10, 17, 21, 24], test_id: [5, 8, 12, 14, 20, 22] },
  'find-plant': { train: [0, 1, 2, 3, 5, 6, 9, 10, 14, 15, 16, 19, 20, 21, 22, 25, 26, 27], val: [4, 7, 11, 12, 13, 24], test_id: [8, 17, 18, 23, 28, 29] },
  'grow-plant': { train: [1, 2, 4, 5, 6, 7, 9, 11, 12, 13, 14, 15, 16, 18, 19, 22, 25, 28], val: [8, 10, 20, 24, 26, 29], test_id: [0, 3, 17, 21, 23, 27] },
  'identify-life-stages-1': { train: [1, 3, 4, 6, 7, 9, 10, 13], val: [0, 5], test_id: [2, 8, 11, 12] },
  'lifespan-longest-lived': { train: [0, 1, 3, 5, 6, 8, 9, 10, 11, 12, 13, 14, 16, 19, 21, 22, 27, 29], val: [4, 15, 17, 20, 24, 25], test_id: [2, 7, 18, 23, 26, 28] },
  'inclined-plane-determine-angle': { train: [1, 4, 5, 6, 8, 9, 11, 12, 13, 14, 15, 16, 19, 20, 22, 25, 26, 29], val: [17, 18, 21, 23, 24, 27], test_id: [0, 2, 3, 7, 10, 28] },
  'measure-melting-point-known-substance': { train: [0, 2, 4, 5, 7, 8, 9, 10, 12, 15, 16, 17, 18, 19, 20, 22, 27, 29], val: [1, 11, 14, 23, 24, 28], test_id: [3, 6, 13, 21, 25, 26] },
  'power-component': { train: [4, 5, 6, 7, 9, 11, 12, 13, 15, 16, 18, 19], val: [0, 1, 8, 10], test_id: [2, 3, 14, 17] },
  'test-conductivity': { train: [1, 2, 3, 5, 7, 10, 11, 16, 18, 19, 20, 21, 22, 23, 24, 27, 28, 29], val: [4, 6, 9, 13, 15, 17], test_id: [0, 8, 12, 14, 25, 26] },
  'mendelian-genetics-known-plant': { train: [0, 1, 4, 6, 8, 9, 10, 11, 13, 14, 15, 16, 17, 22, 24, 25, 26, 28], val: [3, 7, 12, 18, 20, 23], test_id: [2, 5, 19, 21, 27, 29] },
};

describe('MTRouter splits', () => {
  it('ScienceWorld variations: exactly the reference cut of the 13 in-distribution task types', () => {
    const ours = scienceWorldVariationSplits();
    expect([...ours.keys()]).toEqual(Object.keys(REFERENCE));
    for (const [task, cut] of Object.entries(REFERENCE)) {
      const byVariation = ours.get(task) as Map<number, string>;
      for (const split of ['train', 'val', 'test_id'] as const) {
        const mine = [...byVariation].filter(([, s]) => s === split).map(([v]) => v).sort((a, b) => a - b);
        expect(mine, `${task} ${split}`).toEqual(cut[split]);
      }
    }
    // 11 types of 30 variations give 6 test variations each; identify-life-stages-1 (14) and power-component (20) give 4.
    const tests = [...ours.values()].flatMap((m) => [...m.values()]).filter((s) => s === 'test_id');
    expect(tests).toHaveLength(74);
  });

  it('ScienceWorld task types: held out, in-distribution past the cap, unused', () => {
    expect(scienceWorldSplit('use-thermometer', 400)).toBe('ood_test');
    expect(scienceWorldSplit('mendelian-genetics-unknown-plant', 0)).toBe('ood_test');
    expect(scienceWorldSplit('test-conductivity', 12)).toBe('test_id');
    expect(scienceWorldSplit('test-conductivity', 31)).toBe('id');
    expect(scienceWorldSplit('boil', null)).toBe('id');
    expect(scienceWorldSplit('chemistry-mix-paint-tertiary-color', 1)).toBeNull();
  });

  it('HLE: six in-distribution subject categories, two held out (Table 6)', () => {
    for (const c of ['Math', 'Physics', 'Chemistry', 'Biology/Medicine', 'Engineering', 'Computer Science/AI']) expect(hleSplit(c)).toBe('id');
    expect(hleSplit('Humanities/Social Science')).toBe('ood_test');
    expect(hleSplit('Other')).toBe('ood_test');
    expect(hleSplit('Mathematics')).toBeNull();
    expect(hleSplit(null)).toBeNull();
  });
});
