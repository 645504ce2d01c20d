/**
 * Rows for a sharded table in ClickHouse's RowBinary format, written straight into buffers outside the JavaScript
 * heap: no text per value, no escaping, and no parsing of text numbers on the server. Replacing TabSeparated lines
 * with it cut an import's CPU by about a third (the numbers' decimal text was the largest single cost) and the
 * servers' share as well. Each column's encoder comes from the table's own definition (schema.ts), so the bytes
 * always match the types the store was created with.
 *
 * RowBinary: values in column order, no separators. Integers and floats little-endian at their width; a String is
 * its UTF-8 byte count as an unsigned LEB128 varint, then the bytes; a Nullable is one byte, 1 for NULL, else 0 and
 * the value.
 */
import { ImportError } from '../../../importers/types.ts';
import { shardedColumns } from '../schema/schema.ts';

const CHUNK_BYTES = 1 << 20;
const TWO_32 = 2 ** 32;

/** A value that cannot go in its column: a bug in the caller (the importer's schema rules out such values). */
export class RowValueError extends Error {}

/**
 * A value that a SQLite database holds but the store's column cannot (a turn budget past Int32, say) refuses its
 * file, naming the episode, as any other fault of the file is refused.
 */
export function unstorable(shown: string, episode: string | null, message: string): ImportError {
  return new ImportError(shown, 1, `${episode === null ? '' : `episode "${episode}": `}${message} in a ClickHouse store`);
}

function fail(where: string, type: string, v: unknown): never {
  throw new RowValueError(`${where}: ${typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : String(v)} cannot be stored as ${type}`);
}

/** A whole number in [lo, hi], given as a number, a bigint or decimal digits (the store's ids come back as strings). */
function integer(v: unknown, lo: number, hi: number, where: string, type: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'bigint' || (typeof v === 'string' && /^-?\d{1,16}$/.test(v)) ? Number(v) : Number.NaN;
  // The bounds lie within the safe integers, so in range and whole is a safe integer; NaN fails the comparisons.
  if (!(n >= lo && n <= hi && Math.floor(n) === n)) fail(where, type, v);
  return n;
}

function text(v: unknown, where: string): string {
  if (v === null || v === undefined) fail(where, 'String', v);
  return typeof v === 'string' ? v : String(v);
}

/** No value: null, undefined, or a non-finite number (NULL, as SQLite's reader and the columnar cache treat it). */
const none = (v: unknown): boolean => v === null || v === undefined || (typeof v === 'number' && v - v !== 0);

const INTEGER_RANGE: Record<string, readonly [number, number, number]> = {
  // [lowest, highest, bytes]
  UInt8: [0, 255, 1],
  UInt32: [0, TWO_32 - 1, 4],
  Int32: [-(2 ** 31), 2 ** 31 - 1, 4],
  UInt64: [0, Number.MAX_SAFE_INTEGER, 8],
  Int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 8],
};

/** Statements that write `x` (checked already) of `type` at `at` in `buf`. */
function writeCode(type: string, x: string): string {
  if (type === 'String') return `at = putString(buf, at, ${x});`;
  if (type === 'Float64') return `at = buf.writeDoubleLE(${x}, at);`;
  if (type === 'Float32') return `at = buf.writeFloatLE(${x}, at);`;
  const bytes = (INTEGER_RANGE[type] as readonly [number, number, number])[2];
  if (bytes === 1) return `buf[at++] = ${x};`;
  // A typed array's store keeps the low 8 bits of the number, so shifts give two's complement bytes for negatives too.
  const le = (v: string, at: string): string => `buf[${at}] = ${v}; buf[${at} + 1] = ${v} >>> 8; buf[${at} + 2] = ${v} >>> 16; buf[${at} + 3] = ${v} >>> 24;`;
  if (bytes === 4) return `${le(x, 'at')} at += 4;`;
  // A safe integer as 64 bits, two's complement: the high half floors, so the low half is never negative.
  return `{ const hi = Math.floor(${x} / ${TWO_32}); const lo = ${x} - hi * ${TWO_32}; ${le('lo', 'at')} ${le('hi', 'at + 4')} at += 8; }`;
}

/** Statements that check and convert value `i` of the row into `x<i>` (null for a NULL), adding its room to `need`. */
function checkCode(type: string, i: number, where: string): string {
  const nullable = /^Nullable\((.+)\)$/.exec(type);
  const inner = nullable ? (nullable[1] as string) : type;
  const v = `v[${i}]`;
  const w = JSON.stringify(where);
  let convert: string;
  if (inner === 'String') convert = `text(${v}, ${w})`;
  else if (inner === 'Float32' || inner === 'Float64') convert = `(typeof ${v} === 'number' ? ${v} : fail(${w}, ${JSON.stringify(inner)}, ${v}))`;
  else if (INTEGER_RANGE[inner]) {
    const [lo, hi] = INTEGER_RANGE[inner];
    convert = `integer(${v}, ${lo}, ${hi}, ${w}, ${JSON.stringify(inner)})`;
  } else throw new RowValueError(`${where}: the store's type ${type} has no RowBinary encoder`);
  const line = nullable ? `const x${i} = none(${v}) ? null : ${convert};` : `const x${i} = ${convert};`;
  if (inner !== 'String') return line;
  return `${line} need += ${nullable ? `x${i} === null ? 0 : ` : ''}x${i}.length * 3;`;
}

/**
 * One function per table that checks a row's values and writes them, compiled from the table's column types
 * (schema.ts, never input): a call per value through an array of closures was the largest part of encoding, and
 * every value is checked before the first byte is written, so a refused row leaves nothing behind.
 */
export type RowEncoder = (batch: RowBinaryBatch, v: readonly unknown[]) => void;

/** The encoder of `columns` of sharded table `table`, in that order. */
export function rowEncoder(table: string, columns: readonly string[]): RowEncoder {
  const types = new Map(shardedColumns(table).map((c) => [c.name, c.type]));
  const checks: string[] = [];
  const writes: string[] = [];
  columns.forEach((name, i) => {
    const type = types.get(name);
    if (type === undefined) throw new RowValueError(`${table}.${name}: not a column of the store's ${table} table`);
    checks.push(checkCode(type, i, `${table}.${name}`));
    const nullable = /^Nullable\((.+)\)$/.exec(type);
    writes.push(nullable ? `if (x${i} === null) buf[at++] = 1; else { buf[at++] = 0; ${writeCode(nullable[1] as string, `x${i}`)} }` : writeCode(type, `x${i}`));
  });
  const body = [
    `if (v.length !== ${columns.length}) throw new RowValueError(\`a row of \${v.length} values for ${columns.length} columns\`);`,
    // Room for the row's worst case (a UTF-16 unit is at most 3 bytes of UTF-8, a value's head at most 10), so a
    // row never spans two chunks and no write needs a bounds check of its own.
    `let need = ${columns.length * 10};`,
    ...checks,
    'const buf = b.reserve(need);',
    'let at = b.at;',
    ...writes,
    'b.at = at;',
    'b.rows++;',
  ].join('\n');
  // The code is built from the store's own DDL above, never from input.
  const make = new Function('RowValueError', 'fail', 'integer', 'text', 'none', 'putString', `return function encodeRow(b, v) {\n${body}\n};`) as (...helpers: unknown[]) => RowEncoder;
  return make(RowValueError, fail, integer, text, none, putString);
}

/** RowBinary rows waiting for an insert, in 1 MiB chunks (a row larger than that gets a chunk of its own). */
export class RowBinaryBatch {
  private chunks: Buffer[] = [];
  private buf = Buffer.allocUnsafe(CHUNK_BYTES);
  /** Where the next row goes in `buf` (the encoder moves it). */
  at = 0;
  private sealedBytes = 0;
  rows = 0;

  constructor(private readonly encode: RowEncoder) {}

  get bytes(): number {
    return this.sealedBytes + this.at;
  }

  /** One row: `values` in the order of the encoder's columns. */
  add(values: readonly unknown[]): void {
    this.encode(this, values);
  }

  /** The chunk with `need` bytes free at `at`: the current one, else a fresh one. */
  reserve(need: number): Buffer {
    if (need > this.buf.length - this.at) {
      this.seal();
      if (need > this.buf.length) this.buf = Buffer.allocUnsafe(need);
    }
    return this.buf;
  }

  /** Rows encoded elsewhere (an import thread), in chunks of whole rows. */
  addEncoded(chunks: readonly Buffer[], rows: number): void {
    this.seal();
    for (const c of chunks) {
      this.chunks.push(c);
      this.sealedBytes += c.length;
    }
    this.rows += rows;
  }

  /** The bytes added so far, in order, and an empty batch left behind. */
  take(): Buffer[] {
    this.seal();
    const out = this.chunks;
    this.chunks = [];
    this.rows = 0;
    this.sealedBytes = 0;
    return out;
  }

  private seal(): void {
    if (this.at === 0) return;
    this.chunks.push(this.buf.subarray(0, this.at));
    this.sealedBytes += this.at;
    this.buf = Buffer.allocUnsafe(CHUNK_BYTES);
    this.at = 0;
  }
}

/** `s` as a RowBinary String at `at` in `buf` (room checked by the caller); where the next value goes. */
function putString(buf: Buffer, at: number, s: string): number {
  const len = s.length;
  // Most strings are short names in ASCII (runs, models, ids): copied by hand, a Buffer.write call costs more.
  if (len < 0x80) {
    let p = at + 1;
    let i = 0;
    for (; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[p++] = c;
    }
    if (i === len) {
      buf[at] = len;
      return p;
    }
  }
  // The byte count is known only once written: room is left for the longest count the string could need, and
  // the bytes are moved back when the count is shorter (a copy only for strings of 43 characters or more).
  const head = varintSize(len * 3);
  const n = len === 0 ? 0 : buf.write(s, at + head, 'utf8');
  const size = varintSize(n);
  if (size < head) buf.copyWithin(at + size, at + head, at + head + n);
  let x = n;
  let p = at;
  while (x >= 0x80) {
    buf[p++] = (x & 0x7f) | 0x80;
    x >>>= 7;
  }
  buf[p] = x;
  return at + size + n;
}

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}
