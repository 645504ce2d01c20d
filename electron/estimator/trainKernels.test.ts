import { describe, expect, it } from 'vitest';
import { SeededRandom } from './seededRandom.ts';
import { KernelMemory } from './trainKernels.ts';

// Each kernel against the scalar loop it stands for, written out plainly: equal to the last bit, at a width
// that is a multiple of the kernels' 8 (or 4, or 2) lanes and at one that leaves a tail.
const rng = new SeededRandom(7);
const fill = <T extends Float32Array | Float64Array>(a: T, scale = 1): T => {
  for (let i = 0; i < a.length; i++) a[i] = (2 * rng.next() - 1) * scale;
  return a;
};

describe.each([256, 13])('kernels, %i columns', (n) => {
  const mem = new KernelMemory();
  const rows = 40;
  const W = fill(mem.f32(rows * n));
  const X = fill(mem.f64(rows * n));
  const idx = mem.i32(25);
  for (let k = 0; k < idx.length; k++) idx[k] = (k * 7) % rows;
  const val = fill(mem.f64(idx.length));

  it('gatherRows: base + Σ val·W[idx] over float32 rows, in list order', () => {
    const base = fill(mem.f64(2 * n));
    const out = mem.f64(3 * n);
    mem.gatherRows(out, n, base, n, idx, val, 3, 21, W, n);
    const want = new Float64Array(3 * n);
    for (let j = 0; j < n; j++) {
      let a = base[n + j]!;
      for (let k = 3; k < 21; k++) a += val[k]! * W[idx[k]! * n + j]!;
      want[n + j] = a;
    }
    expect(Array.from(out)).toEqual(Array.from(want));
  });

  it('gatherGradRow: Σ val·X[idx] over float64 rows, 0 for an empty list', () => {
    const g = fill(mem.f64(2 * n));
    mem.gatherGradRow(g, n, idx, val, 0, idx.length, X, n);
    mem.gatherGradRow(g, 0, idx, val, 5, 5, X, n);
    for (let j = 0; j < n; j++) {
      let a = 0;
      for (let k = 0; k < idx.length; k++) a += val[k]! * X[idx[k]! * n + j]!;
      expect(g[n + j]).toBe(a);
      expect(g[j]).toBe(0);
    }
  });

  it('backpropActive: (W[i] · d) · mask[i] in four lanes, only for the listed units', () => {
    const units = 8;
    const Wu = fill(mem.f32(units * n));
    const d = fill(mem.f64(2 * n));
    const mask = fill(mem.f64(2 * units));
    const gu = mem.f64(2 * units);
    const list = mem.i32(3);
    list.set([1, 4, 6]);
    mem.backpropActive(gu, mask, units, list, 0, 3, Wu, d, n, n);
    for (let i = 0; i < units; i++) {
      if (![1, 4, 6].includes(i)) {
        expect(gu[units + i]).toBe(0);
        continue;
      }
      const s = [0, 0, 0, 0];
      let j = 0;
      for (; j + 4 <= n; j += 4) for (let l = 0; l < 4; l++) s[l]! += Wu[i * n + j + l]! * d[n + j + l]!;
      for (; j < n; j++) s[0]! += Wu[i * n + j]! * d[n + j]!;
      expect(gu[units + i]).toBe((s[0]! + s[1]! + (s[2]! + s[3]!)) * mask[units + i]!);
    }
  });

  it('adamw: the PyTorch update, float32 parameters rounded once', () => {
    const count = n + 1; // odd: the last parameter takes the one-lane path
    const theta = fill(mem.f32(count));
    const grad = fill(mem.f64(count), 3);
    const m = fill(mem.f64(count), 0.1);
    const v = Float64Array.from(fill(new Float64Array(count)), Math.abs);
    const vm = mem.f64(count);
    vm.set(v);
    const s = { scale: 0.37, b1: 0.9, ob1: 1 - 0.9, b2: 0.999, ob2: 1 - 0.999, decay: 1 - 1e-3 * 0.01, lr: 1e-3, c1: 1 / (1 - 0.9 ** 3), c2: 1 / (1 - 0.999 ** 3), eps: 1e-8 };
    const want = Float32Array.from(theta);
    const wantM = Float64Array.from(m);
    const wantV = Float64Array.from(v);
    for (let i = 0; i < count; i++) {
      const g = grad[i]! * s.scale;
      const mi = s.b1 * wantM[i]! + s.ob1 * g;
      const vi = s.b2 * wantV[i]! + s.ob2 * g * g;
      wantM[i] = mi;
      wantV[i] = vi;
      want[i] = want[i]! * s.decay - (s.lr * mi * s.c1) / (Math.sqrt(vi * s.c2) + s.eps);
    }
    mem.adamw(theta, grad, m, vm, s);
    expect(Array.from(theta)).toEqual(Array.from(want));
    expect(Array.from(m)).toEqual(Array.from(wantM));
    expect(Array.from(vm)).toEqual(Array.from(wantV));
  });

  it('sumSquares: Σ x² in index order', () => {
    let s = 0;
    for (let i = 0; i < X.length; i++) s += X[i]! ** 2;
    expect(mem.sumSquares(X)).toBe(s);
  });
});

describe('KernelMemory', () => {
  it('keeps earlier views valid while it grows', () => {
    const mem = new KernelMemory();
    const first = mem.f64(1000);
    first[999] = 42;
    const big = mem.f32(3_000_000); // 12 MB: several pages of growth
    big[big.length - 1] = 1.5;
    expect(first[999]).toBe(42);
    expect(first.byteOffset % 16).toBe(0);
    expect(big.byteOffset % 16).toBe(0);
    expect(big.byteOffset).toBeGreaterThanOrEqual(first.byteOffset + first.byteLength);
  });
});
