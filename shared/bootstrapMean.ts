/**
 * A 95% interval for a mean over sessions: the episode bootstrap of shared/bootstrap.ts over the values sorted,
 * so the order a store happens to read them in (SQLite by id, ClickHouse by shard) does not move the interval.
 */
import { bootstrapIntervals } from './bootstrap.ts';

/** Fewer values than this get no interval: a percentile bootstrap of a handful of values is far too narrow. */
export const MIN_BOOTSTRAP_VALUES = 10;
export const BOOTSTRAP_RESAMPLES = 1000;

export function bootstrapMeanInterval(values: readonly number[], seed = 1, resamples = BOOTSTRAP_RESAMPLES): [number, number] | null {
  const n = values.length;
  if (n < MIN_BOOTSTRAP_VALUES) return null;
  const sorted = Float64Array.from(values).sort();
  return (
    bootstrapIntervals(n, resamples, seed, 1, (count, out) => {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += (count[i] as number) * (sorted[i] as number);
      out[0] = sum / n;
    })[0] ?? null
  );
}
