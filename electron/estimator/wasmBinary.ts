/**
 * A small WebAssembly binary writer: enough of the format (types, one imported shared memory, functions,
 * exports, code) and of the instruction set (integer addressing, f64 scalar and f64x2 SIMD arithmetic, loops)
 * to write the trainer's kernels (trainKernels.ts) as code, with no compiler or toolchain in the build.
 * Reference: the WebAssembly core specification 2.0, §5 (binary format), and the fixed-width SIMD proposal's
 * opcode table (0xFD prefix).
 */

export type ValType = 'i32' | 'f64' | 'v128';
const VAL_TYPE: Record<ValType, number> = { i32: 0x7f, f64: 0x7c, v128: 0x7b };

/** Opcodes without immediates (SIMD ones carry the 0xFD prefix and a LEB128 sub-opcode). */
const SIMPLE = {
  'i32.eqz': [0x45],
  'i32.lt_s': [0x48],
  'i32.gt_s': [0x4a],
  'i32.le_s': [0x4c],
  'i32.ge_s': [0x4e],
  'i32.add': [0x6a],
  'i32.sub': [0x6b],
  'i32.mul': [0x6c],
  'i32.shl': [0x74],
  'f64.add': [0xa0],
  'f64.sub': [0xa1],
  'f64.mul': [0xa2],
  'f64.div': [0xa3],
  'f64.sqrt': [0x9f],
  'f32.demote_f64': [0xb6],
  'f64.promote_f32': [0xbb],
  'f64x2.splat': [0xfd, 0x14],
  'f32x4.demote_f64x2_zero': [0xfd, 0x5e],
  'f64x2.promote_low_f32x4': [0xfd, 0x5f],
  'f64x2.sqrt': [0xfd, 0xef, 0x01],
  'f64x2.add': [0xfd, 0xf0, 0x01],
  'f64x2.sub': [0xfd, 0xf1, 0x01],
  'f64x2.mul': [0xfd, 0xf2, 0x01],
  'f64x2.div': [0xfd, 0xf3, 0x01],
  return: [0x0f],
} as const;
export type SimpleOp = keyof typeof SIMPLE;

/** Memory instructions: opcode bytes and log2 of the natural alignment (the hint written in the memarg). */
const MEMORY = {
  'i32.load': { code: [0x28], align: 2 },
  'f32.load': { code: [0x2a], align: 2 },
  'f64.load': { code: [0x2b], align: 3 },
  'f32.store': { code: [0x38], align: 2 },
  'f64.store': { code: [0x39], align: 3 },
  'v128.load': { code: [0xfd, 0x00], align: 4 },
  'v128.store': { code: [0xfd, 0x0b], align: 4 },
  'v128.load64_zero': { code: [0xfd, 0x5d], align: 3 },
} as const;
export type MemoryOp = keyof typeof MEMORY;

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const vector = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const name = (s: string): number[] => vector([...new TextEncoder().encode(s)].map((b) => [b]));
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];

/**
 * One function: named parameters and locals, and a body written as a sequence of stack-machine instructions.
 * Methods return `this`, so an expression reads left to right in evaluation order.
 */
export class WasmFunction {
  private readonly index = new Map<string, number>();
  private readonly code: number[] = [];

  constructor(
    readonly name: string,
    readonly params: Record<string, ValType>,
    readonly result: ValType | null,
    readonly locals: Record<string, ValType> = {},
  ) {
    for (const n of [...Object.keys(params), ...Object.keys(locals)]) {
      if (this.index.has(n)) throw new Error(`${name}: local ${n} declared twice`);
      this.index.set(n, this.index.size);
    }
  }

  private slot(local: string): number[] {
    const i = this.index.get(local);
    if (i === undefined) throw new Error(`${this.name}: no local ${local}`);
    return uleb(i);
  }

  get(local: string): this {
    this.code.push(0x20, ...this.slot(local));
    return this;
  }

  set(local: string): this {
    this.code.push(0x21, ...this.slot(local));
    return this;
  }

  i32(n: number): this {
    this.code.push(0x41, ...sleb(n));
    return this;
  }

  f64(x: number): this {
    this.code.push(0x44, ...new Uint8Array(new Float64Array([x]).buffer));
    return this;
  }

  op(...ops: SimpleOp[]): this {
    for (const o of ops) this.code.push(...SIMPLE[o]);
    return this;
  }

  /** A load or store at the address on the stack plus a constant byte offset. */
  mem(o: MemoryOp, offset = 0): this {
    const m = MEMORY[o];
    this.code.push(...m.code, m.align, ...uleb(offset));
    return this;
  }

  /** v128.store64_lane: stores lane `lane` (8 bytes) of the vector on the stack. */
  store64Lane(lane: number, offset = 0): this {
    this.code.push(0xfd, 0x5b, 3, ...uleb(offset), lane);
    return this;
  }

  /** f64x2.extract_lane. */
  lane(lane: number): this {
    this.code.push(0xfd, 0x21, lane);
    return this;
  }

  /** `while (cond) body`: cond leaves an i32 on the stack. */
  while(cond: () => void, body: () => void): this {
    this.code.push(0x02, 0x40, 0x03, 0x40); // block, loop (no result)
    cond();
    this.code.push(0x45, 0x0d, 1); // i32.eqz, br_if 1 (leave the block)
    body();
    this.code.push(0x0c, 0, 0x0b, 0x0b); // br 0 (next iteration), end loop, end block
    return this;
  }

  /** `local += step` for an i32 local. */
  inc(local: string, step = 1): this {
    return this.get(local).i32(step).op('i32.add').set(local);
  }

  encode(): { type: number[]; body: number[] } {
    const type = [0x60, ...vector(Object.values(this.params).map((t) => [VAL_TYPE[t]])), ...vector(this.result ? [[VAL_TYPE[this.result]]] : [])];
    const locals = vector(Object.values(this.locals).map((t) => [1, VAL_TYPE[t]]));
    const body = [...locals, ...this.code, 0x0b];
    return { type, body: [...uleb(body.length), ...body] };
  }
}

/** A module importing `env.memory` (shared, `maxPages` pages of 64 KiB at most) and exporting `functions`. */
export function wasmModule(functions: WasmFunction[], maxPages: number): Uint8Array<ArrayBuffer> {
  const encoded = functions.map((f) => f.encode());
  const bytes = [
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
    ...section(1, vector(encoded.map((e) => e.type))),
    ...section(2, vector([[...name('env'), ...name('memory'), 0x02, 0x03, ...uleb(1), ...uleb(maxPages)]])), // memory, shared, min 1
    ...section(3, vector(functions.map((_, i) => uleb(i)))),
    ...section(7, vector(functions.map((f, i) => [...name(f.name), 0x00, ...uleb(i)]))),
    ...section(10, vector(encoded.map((e) => e.body))),
  ];
  return new Uint8Array(bytes);
}
