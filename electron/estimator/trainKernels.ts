/**
 * The trainer's inner loops (train.ts) as WebAssembly SIMD kernels over one shared memory that holds the
 * network's parameters, gradients, optimiser state and batch buffers (KernelMemory).
 *
 * Why WebAssembly. V8 does not vectorise JavaScript: the best plain-JS form of the sparse first layer (8 output
 * columns in local variables, one load per multiply-add) ran 1.6 G multiply-adds/s on the 2-core AMD EPYC
 * container; the same loop with f64x2 lanes runs 4.2 G/s (CPU time, 64 rows × 263 random rows of a
 * 1028 × 256 float32 matrix, the shape of a hash-1024 history). The arithmetic stays float64: each output
 * element is the same sequence of IEEE operations as the scalar loop it replaces (start value, then + v·w in
 * list order; no fused multiply-add exists in these instructions), so the results are bit-identical to it.
 *
 * Every kernel takes byte addresses into the memory; the KernelMemory methods take typed-array views that it
 * allocated (never arrays from elsewhere) and element offsets.
 */
import { WasmFunction, wasmModule, type ValType } from './wasmBinary.ts';

/** 1 GiB: parameters, gradients, Adam moments and batch buffers of any network the trainer builds fit well within. */
const MAX_PAGES = 16384;
const PAGE = 65536;

type Locals = Record<string, ValType>;
const i32s = (...names: string[]): Locals => Object.fromEntries(names.map((n) => [n, 'i32']));
const v128s = (...names: string[]): Locals => Object.fromEntries(names.map((n) => [n, 'v128']));

/** Pushes `base + index·2^shift`. */
function address(f: WasmFunction, base: string, index: string, shift: number): WasmFunction {
  return f.get(base).get(index).i32(shift).op('i32.shl', 'i32.add');
}

/**
 * out[j] = start[j] + Σ_k val[k] · W[idx[k]·n + j] for j < n, k from k0 to k1 in order, where start is `base`
 * (a row of n float64) or 0 when there is no base. W holds float32 or float64 rows of n values. Eight columns
 * at a time in four f64x2 accumulators, the last n mod 8 one by one.
 */
function gatherKernel(name: string, weights: 'f32' | 'f64', withBase: boolean): WasmFunction {
  const params: Locals = i32s('out', ...(withBase ? ['base'] : []), 'idx', 'val', 'k0', 'k1', 'w', 'n');
  const f = new WasmFunction(name, params, null, { ...i32s('j', 'k', 'at'), ...v128s('v', 'a0', 'a1', 'a2', 'a3'), s: 'f64' });
  const shift = weights === 'f32' ? 2 : 3;
  // at = w + (idx[k]·n + j) · bytes per weight
  const rowAddress = (): void => {
    f.get('w');
    address(f, 'idx', 'k', 2).mem('i32.load').get('n').op('i32.mul').get('j').op('i32.add').i32(shift).op('i32.shl', 'i32.add').set('at');
  };
  f.i32(0).set('j');
  f.while(
    () => f.get('j').i32(8).op('i32.add').get('n').op('i32.le_s'),
    () => {
      for (let i = 0; i < 4; i++) {
        if (withBase) address(f, 'base', 'j', 3).mem('v128.load', 16 * i);
        else f.f64(0).op('f64x2.splat');
        f.set(`a${i}`);
      }
      f.get('k0').set('k');
      f.while(
        () => f.get('k').get('k1').op('i32.lt_s'),
        () => {
          address(f, 'val', 'k', 3).mem('f64.load').op('f64x2.splat').set('v');
          rowAddress();
          for (let i = 0; i < 4; i++) {
            f.get(`a${i}`).get('v').get('at');
            if (weights === 'f32') f.mem('v128.load64_zero', 8 * i).op('f64x2.promote_low_f32x4');
            else f.mem('v128.load', 16 * i);
            f.op('f64x2.mul', 'f64x2.add').set(`a${i}`);
          }
          f.inc('k');
        },
      );
      for (let i = 0; i < 4; i++) address(f, 'out', 'j', 3).get(`a${i}`).mem('v128.store', 16 * i);
      f.inc('j', 8);
    },
  );
  f.while(
    () => f.get('j').get('n').op('i32.lt_s'),
    () => {
      if (withBase) address(f, 'base', 'j', 3).mem('f64.load');
      else f.f64(0);
      f.set('s');
      f.get('k0').set('k');
      f.while(
        () => f.get('k').get('k1').op('i32.lt_s'),
        () => {
          rowAddress();
          f.get('s');
          address(f, 'val', 'k', 3).mem('f64.load').get('at');
          if (weights === 'f32') f.mem('f32.load').op('f64.promote_f32');
          else f.mem('f64.load');
          f.op('f64.mul', 'f64.add').set('s');
          f.inc('k');
        },
      );
      address(f, 'out', 'j', 3).get('s').mem('f64.store');
      f.inc('j');
    },
  );
  return f;
}

/**
 * For each listed unit i = idx[k], k0 ≤ k < k1: gu[i] = (W[i, :] · d) · mask[i], W float32 [·, n], d and gu
 * and mask float64. The dot product keeps four partial sums (lane j mod 4, the tail into lane 0) added as
 * (s0 + s1) + (s2 + s3): the order the trainer has always used, so its results do not move.
 */
function backpropActiveKernel(): WasmFunction {
  const f = new WasmFunction('backpropActive', i32s('gu', 'mask', 'idx', 'k0', 'k1', 'w', 'd', 'n'), null, {
    ...i32s('k', 'i', 'row', 'j'),
    ...v128s('a01', 'a23'),
    s0: 'f64',
    s1: 'f64',
    s2: 'f64',
    s3: 'f64',
  });
  f.get('k0').set('k');
  f.while(
    () => f.get('k').get('k1').op('i32.lt_s'),
    () => {
      address(f, 'idx', 'k', 2).mem('i32.load').set('i');
      f.get('w').get('i').get('n').op('i32.mul').i32(2).op('i32.shl', 'i32.add').set('row');
      f.f64(0).op('f64x2.splat').set('a01').f64(0).op('f64x2.splat').set('a23').i32(0).set('j');
      f.while(
        () => f.get('j').i32(4).op('i32.add').get('n').op('i32.le_s'),
        () => {
          for (const [acc, lo] of [['a01', 0], ['a23', 8]] as const) {
            f.get(acc);
            address(f, 'row', 'j', 2).mem('v128.load64_zero', lo).op('f64x2.promote_low_f32x4');
            address(f, 'd', 'j', 3).mem('v128.load', 2 * lo);
            f.op('f64x2.mul', 'f64x2.add').set(acc);
          }
          f.inc('j', 4);
        },
      );
      f.get('a01').lane(0).set('s0').get('a01').lane(1).set('s1').get('a23').lane(0).set('s2').get('a23').lane(1).set('s3');
      f.while(
        () => f.get('j').get('n').op('i32.lt_s'),
        () => {
          f.get('s0');
          address(f, 'row', 'j', 2).mem('f32.load').op('f64.promote_f32');
          address(f, 'd', 'j', 3).mem('f64.load');
          f.op('f64.mul', 'f64.add').set('s0');
          f.inc('j');
        },
      );
      address(f, 'gu', 'i', 3);
      f.get('s0').get('s1').op('f64.add').get('s2').get('s3').op('f64.add', 'f64.add');
      address(f, 'mask', 'i', 3).mem('f64.load').op('f64.mul').mem('f64.store');
      f.inc('k');
    },
  );
  return f;
}

const ADAM_SCALARS = ['scale', 'b1', 'ob1', 'b2', 'ob2', 'decay', 'lr', 'c1', 'c2', 'eps'] as const;

/**
 * One AdamW step over `count` parameters, two at a time:
 *   g = grad·scale;  m = b1·m + ob1·g;  v = b2·v + (ob2·g)·g;  θ = θ·decay − ((lr·m)·c1) / (√(v·c2) + eps)
 * with θ float32 (rounded to nearest on store) and grad, m, v float64 — the expression and its evaluation
 * order as train.ts's AdamW documents it.
 */
function adamwKernel(): WasmFunction {
  const scalars: Locals = Object.fromEntries(ADAM_SCALARS.map((n) => [n, 'f64']));
  const lanes: Locals = Object.fromEntries(ADAM_SCALARS.map((n) => [`${n}2`, 'v128']));
  const f = new WasmFunction('adamw', { ...i32s('theta', 'grad', 'm', 'v', 'count'), ...scalars }, null, {
    i: 'i32',
    ...lanes,
    ...v128s('g', 'mi', 'vi'),
    gs: 'f64',
    ms: 'f64',
    vs: 'f64',
  });
  for (const n of ADAM_SCALARS) f.get(n).op('f64x2.splat').set(`${n}2`);
  // The update on two lanes (`simd`, constants splatted into the `…2` locals) or on one.
  const update = (simd: boolean): void => {
    const c = (n: (typeof ADAM_SCALARS)[number]): string => (simd ? `${n}2` : n);
    const [g, mi, vi] = simd ? ['g', 'mi', 'vi'] : ['gs', 'ms', 'vs'];
    const [load, store, add, sub, mul, div, sqrt] = simd
      ? (['v128.load', 'v128.store', 'f64x2.add', 'f64x2.sub', 'f64x2.mul', 'f64x2.div', 'f64x2.sqrt'] as const)
      : (['f64.load', 'f64.store', 'f64.add', 'f64.sub', 'f64.mul', 'f64.div', 'f64.sqrt'] as const);
    address(f, 'grad', 'i', 3).mem(load).get(c('scale')).op(mul).set(g);
    f.get(c('b1'));
    address(f, 'm', 'i', 3).mem(load).op(mul).get(c('ob1')).get(g).op(mul, add).set(mi);
    f.get(c('b2'));
    address(f, 'v', 'i', 3).mem(load).op(mul).get(c('ob2')).get(g).op(mul).get(g).op(mul, add).set(vi);
    address(f, 'm', 'i', 3).get(mi).mem(store);
    address(f, 'v', 'i', 3).get(vi).mem(store);
    address(f, 'theta', 'i', 2); // the store's address, under the value
    if (simd) address(f, 'theta', 'i', 2).mem('v128.load64_zero').op('f64x2.promote_low_f32x4');
    else address(f, 'theta', 'i', 2).mem('f32.load').op('f64.promote_f32');
    f.get(c('decay')).op(mul);
    f.get(c('lr')).get(mi).op(mul).get(c('c1')).op(mul);
    f.get(vi).get(c('c2')).op(mul, sqrt).get(c('eps')).op(add, div, sub);
    if (simd) f.op('f32x4.demote_f64x2_zero').store64Lane(0);
    else f.op('f32.demote_f64').mem('f32.store');
  };
  f.i32(0).set('i');
  f.while(
    () => f.get('i').i32(2).op('i32.add').get('count').op('i32.le_s'),
    () => {
      update(true);
      f.inc('i', 2);
    },
  );
  f.while(
    () => f.get('i').get('count').op('i32.lt_s'),
    () => {
      update(false);
      f.inc('i');
    },
  );
  return f;
}

/** Σ x[i]² for i < count, one at a time in index order (the global gradient norm, so clipping is reproducible). */
function sumSquaresKernel(): WasmFunction {
  const f = new WasmFunction('sumSquares', i32s('x', 'count'), 'f64', { i: 'i32', s: 'f64', xi: 'f64' });
  f.i32(0).set('i').f64(0).set('s');
  f.while(
    () => f.get('i').get('count').op('i32.lt_s'),
    () => {
      address(f, 'x', 'i', 3).mem('f64.load').set('xi');
      f.get('s').get('xi').get('xi').op('f64.mul', 'f64.add').set('s');
      f.inc('i');
    },
  );
  f.get('s');
  return f;
}

interface KernelExports {
  gatherRows(out: number, base: number, idx: number, val: number, k0: number, k1: number, w: number, n: number): void;
  gatherGradRow(out: number, idx: number, val: number, k0: number, k1: number, x: number, n: number): void;
  backpropActive(gu: number, mask: number, idx: number, k0: number, k1: number, w: number, d: number, n: number): void;
  adamw(theta: number, grad: number, m: number, v: number, count: number, ...scalars: number[]): void;
  sumSquares(x: number, count: number): number;
}

let compiled: WebAssembly.Module | null = null;
function kernelModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(
    wasmModule([gatherKernel('gatherRows', 'f32', true), gatherKernel('gatherGradRow', 'f64', false), backpropActiveKernel(), adamwKernel(), sumSquaresKernel()], MAX_PAGES),
  );
  return compiled;
}

const F64 = Float64Array.BYTES_PER_ELEMENT;

/**
 * One network's memory: a shared WebAssembly memory that only grows (views allocated earlier stay valid,
 * since growing a shared memory never detaches its buffers), a bump allocator for typed-array views into it,
 * and the kernels bound to it.
 */
export class KernelMemory {
  private readonly memory = new WebAssembly.Memory({ initial: 1, maximum: MAX_PAGES, shared: true });
  private readonly k: KernelExports;
  private top = 0;

  constructor() {
    this.k = new WebAssembly.Instance(kernelModule(), { env: { memory: this.memory } }).exports as unknown as KernelExports;
  }

  private alloc(bytes: number): number {
    const at = Math.ceil(this.top / 16) * 16;
    const end = at + bytes;
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      const pages = Math.ceil((end - have) / PAGE);
      if (have / PAGE + pages > MAX_PAGES) throw new RangeError(`the network's training buffers need ${Math.ceil(end / 2 ** 20)} MiB, more than ${MAX_PAGES / 16} MiB`);
      this.memory.grow(pages);
    }
    this.top = end;
    return at;
  }

  // The offset first: allocating may grow the memory, and only the buffer read after that covers it.
  f32(n: number): Float32Array {
    const at = this.alloc(n * 4);
    return new Float32Array(this.memory.buffer, at, n);
  }

  f64(n: number): Float64Array {
    const at = this.alloc(n * F64);
    return new Float64Array(this.memory.buffer, at, n);
  }

  i32(n: number): Int32Array {
    const at = this.alloc(n * 4);
    return new Int32Array(this.memory.buffer, at, n);
  }

  /** out[oo + j] = base[bo + j] + Σ_{k0 ≤ k < k1} val[k] · W[idx[k]·n + j] for j < n (k in order). */
  gatherRows(out: Float64Array, oo: number, base: Float64Array, bo: number, idx: Int32Array, val: Float64Array, k0: number, k1: number, W: Float32Array, n: number): void {
    this.k.gatherRows(out.byteOffset + oo * F64, base.byteOffset + bo * F64, idx.byteOffset, val.byteOffset, k0, k1, W.byteOffset, n);
  }

  /** g[go + j] = Σ_{k0 ≤ k < k1} val[k] · X[idx[k]·n + j] for j < n (0 for an empty range). */
  gatherGradRow(g: Float64Array, go: number, idx: Int32Array, val: Float64Array, k0: number, k1: number, X: Float64Array, n: number): void {
    this.k.gatherGradRow(g.byteOffset + go * F64, idx.byteOffset, val.byteOffset, k0, k1, X.byteOffset, n);
  }

  /** gu[o + i] = (W[i·n … i·n+n) · d[o … o+n)) · mask[o + i] for each i = idx[k], k0 ≤ k < k1 (rows of n). */
  backpropActive(gu: Float64Array, mask: Float64Array, o: number, idx: Int32Array, k0: number, k1: number, W: Float32Array, d: Float64Array, dOff: number, n: number): void {
    this.k.backpropActive(gu.byteOffset + o * F64, mask.byteOffset + o * F64, idx.byteOffset, k0, k1, W.byteOffset, d.byteOffset + dOff * F64, n);
  }

  adamw(theta: Float32Array, grad: Float64Array, m: Float64Array, v: Float64Array, s: Record<(typeof ADAM_SCALARS)[number], number>): void {
    this.k.adamw(theta.byteOffset, grad.byteOffset, m.byteOffset, v.byteOffset, theta.length, ...ADAM_SCALARS.map((n) => s[n]));
  }

  sumSquares(x: Float64Array): number {
    return this.k.sumSquares(x.byteOffset, x.length);
  }
}
