/**
 * Episode bootstrap: resample whole episodes (the turns of one episode are not independent) with a seeded
 * PRNG, so the same seed gives the same intervals, and every policy of one replay sees the same resamples
 * (which is what makes paired differences meaningful). In shared/ because Compare's paired statistics
 * (shared/pairedStats.ts) resample the same way as replay does.
 */
import { mulberry32 } from './random.ts';

/** Linear-interpolated quantile of an ascending array. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

/**
 * Draws `B` resamples of `n` episodes and hands each to `statistic` as multiplicities (count[i] = how often
 * episode i was drawn); returns per statistic output the 95% percentile interval over the resamples whose
 * value is finite (null when fewer than half are: the interval would describe a different population).
 */
export function bootstrapIntervals(
  n: number,
  B: number,
  seed: number,
  nStats: number,
  statistic: (count: Uint32Array, out: Float64Array) => void,
): ([number, number] | null)[] {
  if (B <= 0 || n === 0) return Array.from({ length: nStats }, () => null);
  const random = mulberry32(seed);
  const count = new Uint32Array(n);
  const values: Float64Array[] = Array.from({ length: nStats }, () => new Float64Array(B));
  const finite = new Int32Array(nStats);
  const out = new Float64Array(nStats);
  for (let b = 0; b < B; b++) {
    count.fill(0);
    for (let k = 0; k < n; k++) count[Math.floor(random() * n)]!++;
    out.fill(Number.NaN);
    statistic(count, out);
    for (let s = 0; s < nStats; s++) {
      const v = out[s] as number;
      if (Number.isFinite(v)) values[s]![finite[s]!++] = v;
    }
  }
  return values.map((v, s) => {
    const m = finite[s] as number;
    if (m < B / 2) return null;
    const sorted = v.subarray(0, m).sort();
    return [quantile(sorted, 0.025), quantile(sorted, 0.975)];
  });
}
