import { describe, expect, it } from 'vitest';
import { formatBytes, formatCost, formatLatency, formatPercent, formatScore, formatTokensShort, plural } from './numbers.ts';

describe('number formats', () => {
  it('prints costs with a precision that suits their size', () => {
    expect(formatCost(0)).toBe('$0');
    expect(formatCost(1.26719)).toBe('$1.27');
    expect(formatCost(0.26231396)).toBe('$0.262');
    expect(formatCost(0.00034812)).toBe('$0.000348');
    expect(formatCost(0.017)).toBe('$0.0170');
    expect(formatCost(0.003, { trimZeros: true })).toBe('$0.003');
    expect(formatCost(12345.6)).toBe('$12,346');
    expect(formatCost(null)).toBe('—');
  });

  it('prints shares, scores, latencies and token counts', () => {
    expect(formatPercent(0.5714285714)).toBe('57.1%');
    expect(formatPercent(1)).toBe('100%');
    expect(formatScore(35)).toBe('35');
    expect(formatScore(0.123456)).toBe('0.123');
    expect(formatLatency(586)).toBe('586 ms');
    expect(formatLatency(3816)).toBe('3.8 s');
    expect(formatTokensShort(1196)).toBe('1.2k');
    expect(plural(1, 'turn')).toBe('1 turn');
    expect(plural(1200, 'turn')).toBe('1,200 turns');
  });
});

describe('byte sizes', () => {
  it('uses binary units with one decimal below ten', () => {
    expect(formatBytes(820)).toBe('820 B');
    expect(formatBytes(14_540)).toBe('14 KiB');
    expect(formatBytes(3.4 * 1024 * 1024)).toBe('3.4 MiB');
    expect(formatBytes(400 * 1024 * 1024)).toBe('400 MiB');
  });
});
