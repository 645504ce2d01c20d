/**
 * mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). The one used wherever a result must be the
 * same for the same seed (bootstrap intervals, test fixtures, fuzz schedules) without the estimator's streams
 * (electron/estimator/seededRandom.ts, whose draws the trainer's determinism depends on).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
