// CPython 3.11's own output for the same seeds and calls (`random.Random(seed)`), printed once and kept here.
import { describe, expect, it } from 'vitest';
import { PythonRandom } from './pythonRandom.ts';

describe('PythonRandom reproduces CPython', () => {
  it('seeds from an int as CPython does (one and two 32-bit words, and zero)', () => {
    const first = (seed: number): number[] => {
      const r = new PythonRandom(seed);
      return [r.getrandbits(32), r.getrandbits(32)];
    };
    expect(first(42)).toEqual([2746317213, 478163327]);
    expect(first(0)).toEqual([3626764237, 1654615998]);
    expect(first(2 ** 40 + 5)).toEqual([2166296868, 2220160828]);
  });

  it('draws _randbelow by rejection on bit_length bits', () => {
    const r = new PythonRandom(42);
    expect([1, 2, 3, 1000, 2 ** 31 + 7].map((n) => r.randbelow(n))).toEqual([0, 0, 2, 281, 1051802512]);
  });

  it('shuffles as random.shuffle does', () => {
    const small = Array.from({ length: 10 }, (_, i) => i);
    new PythonRandom(42).shuffle(small);
    expect(small).toEqual([7, 3, 2, 8, 5, 6, 9, 4, 0, 1]);
    // The size of HLE's in-distribution question list, past the first twist of the generator.
    const big = Array.from({ length: 1789 }, (_, i) => i);
    new PythonRandom(7).shuffle(big);
    expect(big.slice(0, 8)).toEqual([1635, 1103, 394, 474, 752, 462, 1588, 454]);
    expect(big.reduce((a, v, i) => a + i * v, 0)).toBe(1420068266);
  });

  it('refuses seeds CPython would hash instead', () => {
    expect(() => new PythonRandom(-1)).toThrow(RangeError);
    expect(() => new PythonRandom(0.5)).toThrow(RangeError);
  });
});
