import { describe, expect, it } from 'vitest';
import { agoText, rateText } from './liveText.ts';

describe('live text', () => {
  const now = Date.parse('2026-11-29T23:00:00.000Z');
  it('says how long ago, coarser as it gets older', () => {
    expect(agoText('2026-11-29T22:59:58.000Z', now)).toBe('just now');
    expect(agoText('2026-11-29T22:59:20.000Z', now)).toBe('40 s ago');
    expect(agoText('2026-11-29T22:57:00.000Z', now)).toBe('3 min ago');
    expect(agoText('2026-11-29T20:50:00.000Z', now)).toBe('2 h ago');
    expect(agoText('not a time', now)).toBe('—');
  });
  it('never shows an unknown rate as $0', () => {
    expect(rateText(null, 0)).toBe('—');
    expect(rateText(6, 0)).toMatch(/^\$6(\.0+)?\/h$/);
    expect(rateText(6, 2)).toMatch(/^≥ \$6/);
  });
});
