/**
 * The estimator's one source of randomness (initialisation, shuffling, dropout, the validation split):
 * sfc32 seeded through murmur3 fmix32 from (seed, stream), so the same seed gives bit-identical weights and
 * each use draws from its own stream (changing the split never changes the initialisation).
 */
import { Sfc32, fmix32 } from '../../shared/random.ts';

export class SeededRandom extends Sfc32 {
  private spare: number | null = null;

  constructor(seed: number, stream = 0) {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
    const lo = seed >>> 0;
    const hi = Math.floor(seed / 4294967296) >>> 0;
    const a = fmix32(lo ^ 0x9e3779b9);
    const b = fmix32(hi ^ 0x6d2b79f5 ^ a);
    const c = fmix32((stream >>> 0) ^ 0xbb67ae85 ^ b);
    super(a, b, c, 1, 16);
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
