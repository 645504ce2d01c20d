// The budget modes' intervals for mean score and mean cost (issue 35 item 8).
import { describe, expect, it } from 'vitest';
import { bootstrapMeanInterval, MIN_BOOTSTRAP_VALUES } from './bootstrapMean.ts';

describe('bootstrapMeanInterval', () => {
  const values = Array.from({ length: 200 }, (_, i) => (i % 10) / 10);

  it('holds the mean, about ±1.96 standard errors wide', () => {
    const [lo, hi] = bootstrapMeanInterval(values)!;
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const se = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1) / values.length);
    expect(lo).toBeLessThan(mean);
    expect(hi).toBeGreaterThan(mean);
    expect((hi - lo) / (2 * 1.96 * se)).toBeGreaterThan(0.85);
    expect((hi - lo) / (2 * 1.96 * se)).toBeLessThan(1.15);
  });

  it('does not depend on the order the values come in', () => {
    expect(bootstrapMeanInterval([...values].reverse())).toEqual(bootstrapMeanInterval(values));
  });

  it(`gives none under ${MIN_BOOTSTRAP_VALUES} values`, () => {
    expect(bootstrapMeanInterval(values.slice(0, MIN_BOOTSTRAP_VALUES - 1))).toBeNull();
    expect(bootstrapMeanInterval(values.slice(0, MIN_BOOTSTRAP_VALUES))).not.toBeNull();
  });
});
