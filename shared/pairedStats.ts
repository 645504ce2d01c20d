/**
 * Paired statistics for Compare (issue 18): the same tasks run on side A and side B, so each task is its own
 * control. Differences are always B − A. Pure functions, no I/O, so the engine, the CLI and the tests agree.
 */
import { quantile } from './bootstrap.ts';
import { wilsonInterval } from './formulas.ts';

const Z95 = 1.959964;

/** Counts come from the engine's own tallies: anything else is a bug there, said in one line. */
function assertCounts(counts: Record<string, number>): void {
  for (const [name, v] of Object.entries(counts)) {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${name} must be a count (a whole number ≥ 0), got ${v}`);
  }
}

/**
 * Exact McNemar: two-sided p of the binomial test on the discordant pairs (aOnly = A succeeds, B fails; bOnly the
 * reverse). Only discordant pairs carry information about the difference; under H0 each is A's or B's with
 * probability ½, so p = min(1, 2 · P(X ≤ min(aOnly, bOnly))), X ~ Binomial(aOnly + bOnly, ½).
 */
export function mcnemarExact(aOnly: number, bOnly: number): number {
  assertCounts({ aOnly, bOnly });
  const n = aOnly + bOnly;
  if (n === 0) return 1;
  const k = Math.min(aOnly, bOnly);
  // The largest term of the lower tail is pmf(k) (k ≤ n/2): take it in log space (2^-n underflows past n ≈ 1074),
  // then walk down with pmf(i − 1) = pmf(i) · i / (n − i + 1), which only shrinks, so nothing overflows.
  let logPmfK = -n * Math.LN2;
  for (let i = 1; i <= k; i++) logPmfK += Math.log(n - k + i) - Math.log(i);
  let sum = 1;
  let term = 1;
  for (let i = k; i >= 1 && term > 1e-17 * sum; i--) {
    term *= i / (n - i + 1);
    sum += term;
  }
  return Math.min(1, 2 * Math.exp(logPmfK + Math.log(sum)));
}

/**
 * 95% interval (z = 1.959964 by default) for the paired difference of proportions p_B − p_A, Newcombe 1998
 * method 10 (hybrid score with the phi correction), from the 2×2 counts. Each margin gets its Wilson interval;
 * the two are combined "square and add" with the correlation φ between the margins, which is what narrows a
 * paired interval against an unpaired one. φ is shrunk towards 0 by n/2 when positive (Newcombe's correction,
 * not applied to a negative φ) and taken as 0 when a margin is empty.
 */
export function newcombePairedInterval(
  both: number,
  aOnly: number,
  bOnly: number,
  neither: number,
  z = Z95,
): [number, number] {
  assertCounts({ both, aOnly, bOnly, neither });
  if (!(z > 0)) throw new RangeError(`z must be positive, got ${z}`);
  const n = both + aOnly + bOnly + neither;
  if (n === 0) return [-1, 1];
  // Newcombe's table with B as the first reading: e = both, f = bOnly, g = aOnly, h = neither, θ = (f − g)/n.
  const bHits = both + bOnly;
  const aHits = both + aOnly;
  const pB = bHits / n;
  const pA = aHits / n;
  const [lB, uB] = wilsonInterval(bHits, n, z);
  const [lA, uA] = wilsonInterval(aHits, n, z);
  const marginProduct = bHits * (n - bHits) * aHits * (n - aHits);
  let phi = 0;
  if (marginProduct > 0) {
    const cross = both * neither - bOnly * aOnly;
    const corrected = cross > n / 2 ? cross - n / 2 : cross < 0 ? cross : 0;
    phi = corrected / Math.sqrt(marginProduct);
  }
  const theta = pB - pA;
  const down = squareAndAdd(pB - lB, uA - pA, phi);
  const up = squareAndAdd(uB - pB, pA - lA, phi);
  return [Math.max(-1, theta - down), Math.min(1, theta + up)];
}

/** √(x² − 2φxy + y²): the distance to one limit, from the two margins' distances to theirs. */
function squareAndAdd(x: number, y: number, phi: number): number {
  return Math.sqrt(Math.max(0, x * x - 2 * phi * x * y + y * y));
}

/**
 * Seeded paired bootstrap of a mean difference: resample the n pairs B times; 95% percentile interval, or null
 * (n = 0 or B = 0). Resampling whole pairs (not each side on its own) keeps the pairing's correlation. The
 * differences must be known: an unknown one (NaN) would silently null most resamples, so it is refused.
 */
export function pairedMeanDiffInterval(diffs: ArrayLike<number>, B: number, seed: number): [number, number] | null {
  const n = diffs.length;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(diffs[i])) throw new RangeError(`difference ${i} is not a finite number: ${diffs[i]}`);
  }
  return pairedMeanDiffIntervals([diffs], B, seed)[0] ?? null;
}

/**
 * Several paired differences over the same pairs, resampled together: each replicate draws the n pairs once and
 * every column takes the mean of its defined values (NaN = not defined for that pair, e.g. a cost that is
 * unknown), so score and cost intervals see the same resamples and the draws are made once. The draws are those
 * of bootstrapIntervals (same seed, same order), summed as they are drawn: no multiplicity array, no second pass
 * (issue 18's 1 s budget at 30k pairs × 2000 replicates). Null for a column defined on fewer than 1 pair, or
 * when fewer than half the replicates define it.
 */
export function pairedMeanDiffIntervals(columns: readonly ArrayLike<number>[], B: number, seed: number): ([number, number] | null)[] {
  const n = columns[0]?.length ?? 0;
  if (columns.some((c) => c.length !== n)) throw new RangeError('paired columns differ in length');
  if (columns.length > 2) throw new RangeError('at most two paired columns at once');
  if (B <= 0 || n === 0) return columns.map(() => null);
  // Two columns, written out and interleaved (value, defined) per pair: one cache line per draw. A loop over an
  // array of columns inside the draw loop ran 2.5× slower in V8, and four separate arrays twice as slow.
  const two = columns.length === 2;
  const packed = new Float64Array(n * 4);
  for (let c = 0; c < columns.length; c++) {
    const col = columns[c] as ArrayLike<number>;
    for (let i = 0; i < n; i++) {
      const v = col[i] as number;
      const ok = Number.isFinite(v);
      packed[i * 4 + c * 2] = ok ? v : 0;
      packed[i * 4 + c * 2 + 1] = ok ? 1 : 0;
    }
  }
  const m0 = new Float64Array(B);
  const m1 = new Float64Array(B);
  let f0 = 0;
  let f1 = 0;
  // mulberry32 (shared/random.ts) with its state in this loop: the same draws as mulberry32(seed), checked by
  // pairedStats.test.ts, without a call per draw (60M draws at 30k pairs × 2000 replicates).
  let a = seed >>> 0;
  for (let b = 0; b < B; b++) {
    let s0 = 0;
    let c0 = 0;
    let s1 = 0;
    let c1 = 0;
    for (let r = 0; r < n; r++) {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = Math.imul(a ^ (a >>> 15), a | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      const j = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n) * 4;
      s0 += packed[j] as number;
      c0 += packed[j + 1] as number;
      s1 += packed[j + 2] as number;
      c1 += packed[j + 3] as number;
    }
    if (c0 > 0) m0[f0++] = s0 / c0;
    if (two && c1 > 0) m1[f1++] = s1 / c1;
  }
  const interval = (m: Float64Array, got: number): [number, number] | null => {
    if (got < B / 2) return null;
    const sorted = m.subarray(0, got).sort();
    return [quantile(sorted, 0.025), quantile(sorted, 0.975)];
  };
  return two ? [interval(m0, f0), interval(m1, f1)] : [interval(m0, f0)];
}

/**
 * Wins/ties/losses of B against A over paired values (a tie within `eps`). A pair with an unknown value (NaN) is
 * no one's win: it is left out of all three counts.
 */
export function winsTiesLosses(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  eps = 1e-9,
): { a: number; tie: number; b: number } {
  if (a.length !== b.length) throw new RangeError(`paired values differ in length: ${a.length} vs ${b.length}`);
  const out = { a: 0, tie: 0, b: 0 };
  for (let i = 0; i < a.length; i++) {
    const d = (b[i] as number) - (a[i] as number);
    if (Number.isNaN(d)) continue;
    if (Math.abs(d) <= eps) out.tie++;
    else if (d > 0) out.b++;
    else out.a++;
  }
  return out;
}
