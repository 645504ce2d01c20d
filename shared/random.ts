/**
 * Seeded pseudo-random numbers, one implementation of each generator:
 *   - `Sfc32`, the state and draws of sfc32 (Chris Doty-Humphrey's Small Fast Counter, 128-bit state), which
 *     the simulator (fixtures/simulator/rng.ts) and the estimator (electron/estimator/seededRandom.ts) extend
 *     with their own seeding: their streams are part of what the same seed must reproduce;
 *   - `mulberry32`, below.
 */

/** murmur3 fmix32: a bijective avalanche on 32 bits (seeding, salts). */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Sfc32 {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** The state words as the subclass's seeding made them, then `warmUp` draws thrown away. */
  protected constructor(a: number, b: number, c: number, d: number, warmUp: number) {
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    for (let i = 0; i < warmUp; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

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
