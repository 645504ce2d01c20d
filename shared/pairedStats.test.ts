import { describe, expect, it } from 'vitest';
import { bootstrapIntervals } from './bootstrap.ts';
import { mcnemarExact, newcombePairedInterval, pairedMeanDiffInterval, pairedMeanDiffIntervals, winsTiesLosses } from './pairedStats.ts';

/** Two-sided exact McNemar from first principles: Σ_{i ≤ k} C(n, i) in exact integers, over 2^(n−1). */
function mcnemarByIntegers(b: number, c: number): number {
  const n = b + c;
  const k = Math.min(b, c);
  let binom = 1n;
  let tail = 0n;
  for (let i = 0; i <= k; i++) {
    if (i > 0) binom = (binom * BigInt(n - i + 1)) / BigInt(i);
    tail += binom;
  }
  // tail / 2^(n−1) to double precision: keep the top 64 bits of the numerator, scale the rest by powers of two.
  const shift = Math.max(0, tail.toString(2).length - 64);
  const exponent = shift - (n - 1);
  const half = Math.trunc(exponent / 2);
  return Math.min(1, Number(tail >> BigInt(shift)) * 2 ** half * 2 ** (exponent - half));
}

describe('exact McNemar, worked by hand', () => {
  it('is 1 without discordant pairs, and with a single one', () => {
    // (0, 0): nothing to test. (1, 0): P(X ≤ 0 | n = 1) = ½, doubled = 1.
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(1, 0)).toBe(1);
    expect(mcnemarExact(0, 1)).toBe(1);
  });

  it('is exact where the chi-square approximation is not: 5 discordant pairs all one way', () => {
    // P(X ≤ 0 | n = 5) = 1/32; two-sided 2/32 = 0.0625. The asymptotic McNemar χ² = (5 − 0)²/5 = 5 would give
    // p = P(χ²₁ ≥ 5) = 0.0253, "significant" at 5%: the exact test is not, which is why we use it.
    expect(mcnemarExact(5, 0)).toBeCloseTo(0.0625, 15);
    expect(mcnemarExact(0, 5)).toBeCloseTo(0.0625, 15);
  });

  it('gives the binomial tail for (10, 2) and (3, 7)', () => {
    // (10, 2): n = 12, k = 2: C(12,0) + C(12,1) + C(12,2) = 1 + 12 + 66 = 79; p = 2 · 79/4096 = 158/4096.
    expect(mcnemarExact(10, 2)).toBeCloseTo(158 / 4096, 14);
    // (3, 7): n = 10, k = 3: 1 + 10 + 45 + 120 = 176; p = 2 · 176/1024 = 352/1024 = 0.34375.
    expect(mcnemarExact(3, 7)).toBeCloseTo(0.34375, 14);
    expect(mcnemarExact(7, 3)).toBe(mcnemarExact(3, 7));
  });

  it('caps at 1 when the split is even', () => {
    // (4, 4): P(X ≤ 4 | n = 8) = 163/256 > ½, doubled > 1.
    expect(mcnemarExact(4, 4)).toBe(1);
  });

  it('stays accurate with 10,000 discordant pairs, where 2^-n underflows a double', () => {
    // 5100 vs 4900: the normal approximation with continuity correction, z = (200 − 1)/√10000 = 1.99, gives 0.0466.
    const p = mcnemarExact(5100, 4900);
    expect(p).toBeCloseTo(0.0466, 3);
    expect(p / mcnemarByIntegers(5100, 4900)).toBeCloseTo(1, 10);
    for (const [b, c] of [
      [6000, 4000],
      [4990, 5010],
      // 2^-1043 alone is below the smallest normal double; C(1043, ≤ 3) lifts the tail back to about 1e-306.
      [1040, 3],
    ] as const) {
      const exact = mcnemarByIntegers(b, c);
      expect(exact).toBeGreaterThan(0);
      expect(mcnemarExact(b, c) / exact).toBeCloseTo(1, 10);
    }
    // All 1000 one way: exactly 2 · 2^-1000 = 2^-999, still a normal double.
    expect(mcnemarExact(1000, 0) / 2 ** -999).toBeCloseTo(1, 10);
    // All 10,000 one way: 2^-9999 is below the smallest double; 0 is its correct rounding, not NaN.
    expect(mcnemarExact(0, 10_000)).toBe(0);
  });

  it('refuses what is not a count', () => {
    expect(() => mcnemarExact(-1, 3)).toThrow(/aOnly must be a count/);
    expect(() => mcnemarExact(1.5, 3)).toThrow(RangeError);
    expect(() => mcnemarExact(2, Number.NaN)).toThrow(/bOnly/);
  });
});

/**
 * Newcombe (1998) method 10 from first principles, in his notation, with B as the first reading:
 * e = both succeed, f = B only, g = A only, h = neither; θ = p1 − p2 = (e+f)/n − (e+g)/n = p_B − p_A.
 * Wilson limits as the roots of |p̂ − p| = z·√(p(1 − p)/n), i.e. (1 + z²/n)p² − (2p̂ + z²/n)p + p̂² = 0.
 */
function newcombeFromFirstPrinciples(
  e: number,
  f: number,
  g: number,
  h: number,
  { z = 1.959964, correctPhi = true } = {},
): [number, number] {
  const n = e + f + g + h;
  const wilsonRoots = (x: number): [number, number] => {
    const p = x / n;
    const qa = 1 + (z * z) / n;
    const qb = -(2 * p + (z * z) / n);
    const qc = p * p;
    const disc = Math.sqrt(qb * qb - 4 * qa * qc);
    return [(-qb - disc) / (2 * qa), (-qb + disc) / (2 * qa)];
  };
  const p1 = (e + f) / n;
  const p2 = (e + g) / n;
  const [l2, u2] = wilsonRoots(e + f);
  const [l3, u3] = wilsonRoots(e + g);
  // φ̂ corrected: a positive eh − fg is reduced by n/2 (not below 0), a negative one is kept; 0 if a margin is empty.
  const margins = (e + f) * (g + h) * (e + g) * (f + h);
  const cross = e * h - f * g;
  const shrunk = correctPhi && cross > 0 ? Math.max(cross - n / 2, 0) : cross;
  const phi = margins === 0 ? 0 : shrunk / Math.sqrt(margins);
  const delta = Math.sqrt((p1 - l2) ** 2 - 2 * phi * (p1 - l2) * (u3 - p2) + (u3 - p2) ** 2);
  const epsilon = Math.sqrt((u2 - p1) ** 2 - 2 * phi * (u2 - p1) * (p2 - l3) + (p2 - l3) ** 2);
  return [p1 - p2 - delta, p1 - p2 + epsilon];
}

/** Our argument order (both, aOnly, bOnly, neither) from Newcombe's (e, f, g, h). */
const fromNewcombe = (e: number, f: number, g: number, h: number) => newcombePairedInterval(e, g, f, h);

describe("Newcombe's paired interval (1998, method 10)", () => {
  it('reproduces his worked examples (e, f, g, h → limits of θ = (f − g)/n, 4 dp)', () => {
    // Newcombe, Stat Med 17:2635–2650 (1998), method 10 limits, as transcribed in a public test suite (we could not
    // read the paper itself); every row is also checked against the first-principles computation above. The brief's
    // "(36,12,2,0) → −0.0528..0.3382" is not what method 10 gives for this table: it gives 0.0569..0.3404 (θ = 0.2).
    // Rows differ from ours by at most 1e-4 ((1,97,1,1): 0.87367 vs the printed 0.8736).
    const rows: [number, number, number, number, number, number][] = [
      [36, 12, 2, 0, 0.0569, 0.3404],
      [20, 12, 2, 16, 0.0562, 0.3292],
      [18, 12, 2, 18, 0.0562, 0.329],
      [36, 14, 0, 0, 0.1528, 0.4167],
      [35, 14, 0, 1, 0.1461, 0.4175],
      [18, 14, 0, 18, 0.1441, 0.3963],
      [2, 97, 1, 0, 0.8721, 0.9854],
      [1, 97, 1, 1, 0.8736, 0.985],
      [0, 29, 1, 0, 0.6666, 0.9882],
      [2, 98, 0, 0, 0.9178, 0.9945],
      [1, 98, 0, 1, 0.9171, 0.9916],
      [0, 30, 0, 0, 0.8395, 1],
      [54, 0, 0, 0, -0.0664, 0.0664],
      [53, 0, 0, 1, -0.0729, 0.0729],
      [30, 0, 0, 24, -0.0358, 0.0358],
      [29, 0, 0, 25, -0.0354, 0.0354],
      [28, 0, 0, 26, -0.0352, 0.0352],
      [27, 0, 0, 27, -0.0351, 0.0351],
    ];
    for (const [e, f, g, h, lower, upper] of rows) {
      const [lo, hi] = fromNewcombe(e, f, g, h);
      expect(Math.abs(lo - lower), `lower of ${[e, f, g, h]}`).toBeLessThanOrEqual(1e-4);
      expect(Math.abs(hi - upper), `upper of ${[e, f, g, h]}`).toBeLessThanOrEqual(1e-4);
      const [l, u] = newcombeFromFirstPrinciples(e, f, g, h);
      expect(lo).toBeCloseTo(l, 12);
      expect(hi).toBeCloseTo(Math.min(1, u), 12);
    }
  });

  it('matches Fagerland, Lydersen & Laake (2017) §8 on Cavo et al. (2012)', () => {
    // Their table [[59, 6], [16, 80]], estimate p1+ − p+1 = (6 − 16)/161 = −0.0621, 95% CI −0.1186 to −0.0046 (as
    // asserted in the contingencytables R package's tests). With B as the rows: both 59, B only 6, A only 16.
    const [lo, hi] = newcombePairedInterval(59, 16, 6, 80);
    expect(lo).toBeCloseTo(-0.1186, 4);
    expect(hi).toBeCloseTo(-0.0046, 4);
  });

  it('is for B − A: swapping the sides mirrors the interval', () => {
    // More B-only than A-only pairs: B is better, the interval sits above 0; swapped, it sits below.
    const [lo, hi] = newcombePairedInterval(36, 2, 12, 0);
    expect(lo).toBeGreaterThan(0);
    const [sLo, sHi] = newcombePairedInterval(36, 12, 2, 0);
    expect(sLo).toBeCloseTo(-hi, 14);
    expect(sHi).toBeCloseTo(-lo, 14);
  });

  it('shrinks a positive φ by n/2, as the published limits require', () => {
    // (20, 12, 2, 16): eh − fg = 320 − 24 = 296 > n/2 = 25, so φ uses 271. The uncorrected φ is larger, which
    // narrows the interval away from the printed 0.0562..0.3292.
    const [lo, hi] = fromNewcombe(20, 12, 2, 16);
    const [rawLo, rawHi] = newcombeFromFirstPrinciples(20, 12, 2, 16, { correctPhi: false });
    expect(rawLo - lo).toBeGreaterThan(5e-4);
    expect(hi - rawHi).toBeGreaterThan(5e-4);
    expect(lo).toBeCloseTo(0.0562, 4);
    expect(hi).toBeCloseTo(0.3292, 4);
  });

  it('keeps to [−1, 1] and answers the whole range without pairs', () => {
    const [lo, hi] = newcombePairedInterval(0, 0, 30, 0);
    expect(hi).toBe(1);
    expect(lo).toBeGreaterThan(0.8);
    expect(newcombePairedInterval(0, 0, 0, 0)).toEqual([-1, 1]);
  });

  it('widens with z', () => {
    const [lo95, hi95] = newcombePairedInterval(40, 4, 9, 47);
    const [lo99, hi99] = newcombePairedInterval(40, 4, 9, 47, 2.575829);
    expect(lo99).toBeLessThan(lo95);
    expect(hi99).toBeGreaterThan(hi95);
  });

  it('refuses what is not a count', () => {
    expect(() => newcombePairedInterval(1, -2, 3, 4)).toThrow(/aOnly must be a count/);
    expect(() => newcombePairedInterval(1, 2, 3, 4, 0)).toThrow(/z must be positive/);
  });
});

describe('paired bootstrap of a mean difference', () => {
  const diffs = Float64Array.from({ length: 1000 }, (_, i) => i % 10);

  it('gives the same interval for the same seed, another for another seed', () => {
    const a = pairedMeanDiffInterval(diffs, 500, 7);
    expect(pairedMeanDiffInterval(diffs, 500, 7)).toEqual(a);
    expect(pairedMeanDiffInterval(diffs, 500, 8)).not.toEqual(a);
  });

  it('centres on the known mean with the normal width', () => {
    // 0..9 repeated: mean 4.5, population variance (10² − 1)/12 = 8.25, standard error √(8.25/1000) = 0.0908,
    // so a 95% interval of about 4.5 ± 1.96 · 0.0908 = [4.322, 4.678].
    const ci = pairedMeanDiffInterval(diffs, 4000, 1);
    expect(ci).not.toBeNull();
    const [lo, hi] = ci!;
    expect(lo).toBeGreaterThan(4.29);
    expect(lo).toBeLessThan(4.35);
    expect(hi).toBeGreaterThan(4.65);
    expect(hi).toBeLessThan(4.71);
  });

  it('collapses to [d, d] when every difference is d', () => {
    const ci = pairedMeanDiffInterval([0.25, 0.25, 0.25, 0.25], 200, 3);
    expect(ci![0]).toBeCloseTo(0.25, 14);
    expect(ci![1]).toBeCloseTo(0.25, 14);
  });

  it('is null without pairs or without replicates', () => {
    expect(pairedMeanDiffInterval([], 1000, 1)).toBeNull();
    expect(pairedMeanDiffInterval([1, 2], 0, 1)).toBeNull();
  });

  it('refuses an unknown difference instead of nulling resamples silently', () => {
    expect(() => pairedMeanDiffInterval([1, Number.NaN, 2], 100, 1)).toThrow(/difference 1 is not a finite number/);
  });
});

describe('wins, ties and losses of B against A', () => {
  it('counts B above A as a B win, within eps as a tie, and leaves unknown pairs out', () => {
    const a = [0.5, 0.5, 0.9, 0.2, Number.NaN, 1];
    const b = [0.7, 0.5 + 1e-12, 0.1, 0.2, 0.3, Number.NaN];
    expect(winsTiesLosses(a, b)).toEqual({ a: 1, tie: 2, b: 1 });
    // A coarser eps turns the 0.2 gap into a tie.
    expect(winsTiesLosses([0.5], [0.7], 0.25)).toEqual({ a: 0, tie: 1, b: 0 });
  });

  it('refuses unpaired arrays', () => {
    expect(() => winsTiesLosses([1, 2], [1])).toThrow(/differ in length/);
  });
});

describe('pairedMeanDiffIntervals (the fast path)', () => {
  it('draws exactly what bootstrapIntervals draws for the same seed', () => {
    const diffs = Float64Array.from({ length: 257 }, (_, i) => Math.sin(i) * 3 + (i % 7));
    const [slow] = bootstrapIntervals(diffs.length, 500, 42, 1, (count, out) => {
      let s = 0;
      for (let i = 0; i < diffs.length; i++) s += (count[i] as number) * (diffs[i] as number);
      out[0] = s / diffs.length;
    });
    const [fast] = pairedMeanDiffIntervals([diffs], 500, 42);
    expect(fast?.[0]).toBeCloseTo(slow?.[0] as number, 12);
    expect(fast?.[1]).toBeCloseTo(slow?.[1] as number, 12);
  });

  it('resamples two columns together, each over its defined pairs (NaN is never a 0)', () => {
    const score = [1, 1, 1, 1];
    const cost = [2, Number.NaN, 2, 2];
    const [s, c] = pairedMeanDiffIntervals([score, cost], 200, 3);
    expect(s).toEqual([1, 1]);
    expect(c).toEqual([2, 2]);
    expect(pairedMeanDiffIntervals([[Number.NaN], [1]], 10, 1)[0]).toBeNull();
  });
});
