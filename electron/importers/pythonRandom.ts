/**
 * CPython's `random.Random(seed)` as far as `shuffle` needs it: the MT19937 generator seeded the way CPython
 * seeds it from an int (init_by_array over the seed's 32-bit words), `getrandbits`, and `_randbelow` by
 * rejection. MTRouter assigns its train / val / test_id variations with `random.Random(42).shuffle`, so
 * reproducing its splits bit for bit needs this exact stream; no npm package we keep reproduces CPython's
 * seeding, and the whole of it is these few lines. Tested against CPython 3.11 output (pythonRandom.test.ts).
 */

const N = 624;
const M = 397;

export class PythonRandom {
  private readonly mt = new Uint32Array(N);
  private index = N;

  /** `random.Random(seed)` for a non-negative integer seed. */
  constructor(seed: number) {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
    const key: number[] = [];
    for (let s = seed; s > 0; s = Math.floor(s / 2 ** 32)) key.push(s % 2 ** 32);
    this.initByArray(key.length ? key : [0]);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] as number;
      mt[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] as number;
      mt[i] = ((mt[i] as number) ^ Math.imul(prev ^ (prev >>> 30), 1664525)) + (key[j] as number) + j;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] as number;
      mt[i] = (((mt[i] as number) ^ Math.imul(prev ^ (prev >>> 30), 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
    this.index = N;
  }

  private twist(): void {
    const mt = this.mt;
    for (let kk = 0; kk < N; kk++) {
      const y = ((mt[kk] as number) & 0x80000000) | ((mt[(kk + 1) % N] as number) & 0x7fffffff);
      mt[kk] = (mt[(kk + M) % N] as number) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    }
    this.index = 0;
  }

  /** The next 32-bit output (CPython's genrand_uint32). */
  uint32(): number {
    if (this.index >= N) this.twist();
    let y = this.mt[this.index++] as number;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `getrandbits(k)` for 1 ≤ k ≤ 32. */
  getrandbits(k: number): number {
    return this.uint32() >>> (32 - k);
  }

  /** `_randbelow(n)`: uniform in [0, n) by rejection on bit_length(n) bits, for 1 ≤ n ≤ 2^32. */
  randbelow(n: number): number {
    const k = Math.floor(Math.log2(n)) + 1;
    let r = this.getrandbits(Math.min(k, 32));
    while (r >= n) r = this.getrandbits(Math.min(k, 32));
    return r;
  }

  /** `shuffle(x)` in place (Fisher–Yates from the end, as CPython does). */
  shuffle<T>(x: T[]): void {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      const t = x[i] as T;
      x[i] = x[j] as T;
      x[j] = t;
    }
  }
}
