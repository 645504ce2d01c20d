import { describe, expect, it } from 'vitest';
import { csvDecimals, roundForCsv, toCsv } from './csv.ts';

describe('CSV numbers', () => {
  it('rounds money to 6 decimals and other fractions to 4', () => {
    expect(csvDecimals('mean_cost_usd')).toBe(6);
    expect(csvDecimals('price_in_per_m')).toBe(6);
    expect(csvDecimals('share')).toBe(4);
    const csv = toCsv(['cost_usd', 'share', 'n'], [[0.1 + 0.2, 0.1 + 0.2, 3], [0.0000957123, 2 / 3, 10]]);
    expect(csv).toBe('cost_usd,share,n\r\n0.3,0.3,3\r\n0.000096,0.6667,10\r\n');
  });

  it('keeps tiny values instead of writing 0, and leaves integers and non-finite values alone', () => {
    expect(roundForCsv(1.234e-7, 4)).toBe(1.234e-7);
    expect(roundForCsv(0, 4)).toBe(0);
    expect(roundForCsv(123456789, 4)).toBe(123456789);
    expect(roundForCsv(-0.123456, 4)).toBe(-0.1235);
    expect(toCsv(['x'], [[Number.NaN]])).toBe('x\r\n\r\n');
  });
});
