import { describe, expect, it } from 'vitest';
import { cutoffMonths, standardiseModelFeatures } from './modelFeatures.ts';

describe('model features', () => {
  it('log1p + z-scores each feature over the pool, missing values at the mean', () => {
    const raw = [
      [1, 10, null, 1000, 100, 12, 50, null],
      [3, 10, null, 4000, 100, 24, 150, null],
      [null, 10, null, 16000, 100, 36, 250, null],
    ];
    const { features, mean, std } = standardiseModelFeatures(raw);
    const at = (i: number, j: number): number => features[i * 8 + j] as number;
    expect(at(2, 0)).toBe(0); // missing → the mean
    expect(at(0, 0)).toBeCloseTo(-1, 5); // two known values: ±1
    expect(at(1, 0)).toBeCloseTo(1, 5);
    expect(mean[0]).toBeCloseTo((Math.log(2) + Math.log(4)) / 2, 10);
    for (const i of [0, 1, 2]) {
      expect(at(i, 1)).toBe(0); // constant feature
      expect(at(i, 2)).toBe(0); // unknown everywhere
      expect(at(i, 7)).toBe(0);
    }
    expect(std[1]).toBe(1);
    // log1p spacing: 1000 → 4000 → 16000 are equally spaced after the log.
    expect(at(1, 3)).toBeCloseTo(0, 2);
    expect(at(0, 3)).toBeCloseTo(-at(2, 3), 2);
  });

  it('reads knowledge cut-offs as months since 2020', () => {
    expect(cutoffMonths('2020-01-01')).toBe(0);
    expect(cutoffMonths('2024-09-30')).toBeCloseTo(56 + 29 / 31, 10);
    expect(cutoffMonths('2023')).toBe(36);
    expect(cutoffMonths('2025-03')).toBe(62);
    expect(cutoffMonths('unknown')).toBeNull();
    expect(cutoffMonths(null)).toBeNull();
  });
});
