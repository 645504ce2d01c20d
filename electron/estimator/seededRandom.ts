/**
 * The estimator's one source of randomness (initialisation, shuffling, dropout, the validation split):
 * sfc32 seeded through murmur3 fmix32 from (seed, stream), so the same seed gives bit-identical weights and
 * each use draws from its own stream (changing the split never changes the initialisation).
 */

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spare: number | null = null;

  constructor(seed: number, stream = 0) {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
    const lo = seed >>> 0;
    const hi = Math.floor(seed / 4294967296) >>> 0;
    this.a = fmix32(lo ^ 0x9e3779b9);
    this.b = fmix32(hi ^ 0x6d2b79f5 ^ this.a);
    this.c = fmix32((stream >>> 0) ^ 0xbb67ae85 ^ this.b);
    this.d = 1;
    for (let i = 0; i < 16; i++) this.uint32();
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

  /** Standard normal (Box–Muller). */
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Fisher–Yates, in place. */
  shuffle<T extends { length: number; [i: number]: number }>(a: T): T {
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const x = a[i] as number;
      a[i] = a[j] as number;
      a[j] = x;
    }
    return a;
  }
}

/** Stream ids, one per use of randomness. */
export const STREAM = { split: 1, init: 2, shuffle: 3, dropout: 4 } as const;
