import { describe, expect, it } from 'vitest';
import { fmtUsdTicks } from './format.ts';

const labels = (values: number[]) => values.map(fmtUsdTicks(values));

describe('money tick labels', () => {
  it('give every tick of an axis the same decimals, as many as the step needs', () => {
    expect(labels([0, 0.5, 1, 1.5, 2])).toEqual(['$0.00', '$0.50', '$1.00', '$1.50', '$2.00']);
    expect(labels([0, 0.005, 0.01, 0.015])).toEqual(['$0.000', '$0.005', '$0.010', '$0.015']);
    expect(labels([0, 5, 10, 15])).toEqual(['$0', '$5', '$10', '$15']);
    expect(labels([0, 500, 1000])).toEqual(['$0', '$500', '$1,000']);
  });

  it('put the sign before the dollar', () => {
    expect(labels([-0.1, 0, 0.1])).toEqual(['−$0.10', '$0.00', '$0.10']);
  });
});
