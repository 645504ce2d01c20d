import { describe, expect, it } from 'vitest';
import { aecTargets, lift, normaliseScore, progressWeight, turnPenalty, wilsonInterval } from './formulas.ts';

describe('progress weight', () => {
  it('is 0.3 up to p0, 1.0 from p1, linear between', () => {
    expect(progressWeight(0)).toBe(0.3);
    expect(progressWeight(0.3)).toBe(0.3);
    expect(progressWeight(0.5)).toBeCloseTo(0.65, 12);
    expect(progressWeight(0.7)).toBe(1);
    expect(progressWeight(1)).toBe(1);
  });
});

describe('AEC targets, worked by hand', () => {
  // N = 10, S_norm = 0.72, errors: t=1 high, t=4 medium, t=8 low, five more clean turns.
  // base = 0.1
  // t=1: p=0.2 → w=0.3 → 0.1·1.0·0.3 = 0.03 (floor 0.02) → 0.03
  // t=4: p=0.5 → w=0.65 → 0.1·0.8·0.65 = 0.052
  // t=8: p=0.9 → w=1.0 → 0.1·0.2·1.0 = 0.02 (floor 0.02) → 0.02
  // S̃: t≤1 → 0.72−0.102 = 0.618; t=2..4 → 0.72−0.072 = 0.648; t=5..8 → 0.70; t=9 → 0.72
  const sev = [null, 'high', null, null, 'medium', null, null, null, 'low', null] as const;
  const out = aecTargets(0.72, sev, 10);
  it('gives the penalties', () => {
    expect(out.map((o) => o.penalty)).toEqual([0, 0.03, 0, 0, 0.052, 0, 0, 0, 0.02, 0].map((x) => expect.closeTo(x, 12)));
  });
  it('gives S̃ as the score minus the penalties still to come', () => {
    const expected = [0.618, 0.618, 0.648, 0.648, 0.648, 0.7, 0.7, 0.7, 0.7, 0.72];
    out.forEach((o, i) => expect(o.s_tilde).toBeCloseTo(expected[i] as number, 12));
  });
  it('floors a low-severity early error at 0.2·base', () => {
    expect(turnPenalty(0, 10, 'low')).toBeCloseTo(0.02, 12); // 0.1·0.2·0.3 = 0.006 < 0.02
  });
  it('caps progress at 1 for turns past N', () => {
    expect(turnPenalty(30, 10, 'high')).toBeCloseTo(0.1, 12);
  });
  it('leaves S̃ null but keeps penalties when the outcome is unknown', () => {
    const o = aecTargets(null, ['high'], 8);
    expect(o[0]?.s_tilde).toBeNull();
    expect(o[0]?.penalty).toBeCloseTo(0.125 * 0.3, 12);
  });
});

describe('score normalisation', () => {
  it('scales by the range and clamps', () => {
    expect(normaliseScore(72, [-100, 100], true)).toBeCloseTo(0.86, 12);
    expect(normaliseScore(150, [-100, 100], null)).toBe(1);
  });
  it('uses success when there is no score', () => {
    expect(normaliseScore(null, null, true)).toBe(1);
    expect(normaliseScore(undefined, null, false)).toBe(0);
    expect(normaliseScore(null, null, null)).toBeNull();
  });
});

describe('Wilson interval', () => {
  it('matches a hand computation', () => {
    // k = 8, n = 10: centre (0.8 + 0.19208) / 1.38416 = 0.71674; half 1.96·sqrt(0.016 + 0.0096040)/1.38416 = 0.22657
    const [lo, hi] = wilsonInterval(8, 10);
    expect(lo).toBeCloseTo(0.4902, 4);
    expect(hi).toBeCloseTo(0.9433, 4);
  });
  it('stays inside [0, 1] at the edges', () => {
    expect(wilsonInterval(0, 5)[0]).toBe(0);
    expect(wilsonInterval(5, 5)[1]).toBe(1);
  });
});

describe('lift', () => {
  it('is P(m|c) / P(m)', () => {
    // 30 of 40 category-c turns on m; m has 50 of 200 turns: (30/40) / (50/200) = 3
    expect(lift(30, 40, 50, 200)).toBe(3);
  });
});
