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
import { ImportError } from '../../importers/types.ts';
import { shardedColumns } from './schema.ts';

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

type Encoder = (batch: RowBinaryBatch, v: unknown) => void;

function fail(where: string, type: string, v: unknown): never {
  throw new RowValueError(`${where}: ${typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : String(v)} cannot be stored as ${type}`);
}

/** A whole number in range, given as a number, a bigint or decimal digits (the store's ids come back as strings). */
const integer = (where: string, type: string, lo: number, hi: number) => (v: unknown): number => {
  const n = typeof v === 'bigint' || (typeof v === 'string' && /^-?\d{1,16}$/.test(v)) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < lo || n > hi) fail(where, type, v);
  return n;
};

/** The encoder of one column's type, `where` naming it in errors. */
function encoderOf(type: string, where: string): Encoder {
  const nullable = /^Nullable\((.+)\)$/.exec(type);
  if (nullable) {
    const inner = encoderOf(nullable[1] as string, where);
    return (b, v) => {
      // A non-finite number is NULL, as SQLite's reader and the columnar cache treat it.
      if (v === null || v === undefined || (typeof v === 'number' && v - v !== 0)) {
        b.byte(1);
      } else {
        b.byte(0);
        inner(b, v);
      }
    };
  }
  const missing = (v: unknown): void => {
    if (v === null || v === undefined) fail(where, type, v);
  };
  switch (type) {
    case 'String':
      return (b, v) => {
        missing(v);
        b.string(typeof v === 'string' ? v : String(v));
      };
    case 'UInt8': {
      const check = integer(where, type, 0, 255);
      return (b, v) => b.byte(check(v));
    }
    case 'UInt32': {
      const check = integer(where, type, 0, TWO_32 - 1);
      return (b, v) => b.uint32(check(v));
    }
    case 'Int32': {
      const check = integer(where, type, -(2 ** 31), 2 ** 31 - 1);
      return (b, v) => b.int32(check(v));
    }
    case 'UInt64': {
      const check = integer(where, type, 0, Number.MAX_SAFE_INTEGER);
      return (b, v) => b.int64(check(v));
    }
    case 'Int64': {
      const check = integer(where, type, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
      return (b, v) => b.int64(check(v));
    }
    case 'Float32':
    case 'Float64': {
      const wide = type === 'Float64';
      return (b, v) => {
        if (typeof v !== 'number') fail(where, type, v);
        if (wide) b.float64(v);
        else b.float32(v);
      };
    }
    default:
      throw new RowValueError(`${where}: the store's type ${type} has no RowBinary encoder`);
  }
}

/** Encoders of `columns` of sharded table `table`, in that order. */
export function rowEncoder(table: string, columns: readonly string[]): Encoder[] {
  const types = new Map(shardedColumns(table).map((c) => [c.name, c.type]));
  return columns.map((name) => {
    const type = types.get(name);
    if (type === undefined) throw new RowValueError(`${table}.${name}: not a column of the store's ${table} table`);
    return encoderOf(type, `${table}.${name}`);
  });
}

/** RowBinary rows waiting for an insert, in 1 MiB chunks (a row larger than that gets a chunk of its own). */
export class RowBinaryBatch {
  private chunks: Buffer[] = [];
  private buf = Buffer.allocUnsafe(CHUNK_BYTES);
  private at = 0;
  private sealedBytes = 0;
  rows = 0;

  constructor(private readonly encoders: readonly Encoder[]) {}

  get bytes(): number {
    return this.sealedBytes + this.at;
  }

  /** One row: `values` in the order of the encoders. */
  add(values: readonly unknown[]): void {
    if (values.length !== this.encoders.length) throw new RowValueError(`a row of ${values.length} values for ${this.encoders.length} columns`);
    // Room for the row's worst case (a UTF-16 unit is at most 3 bytes of UTF-8, a value's head at most 10), so a
    // row never spans two chunks and no write needs a bounds check of its own.
    let need = 0;
    for (const v of values) need += typeof v === 'string' ? v.length * 3 + 10 : 10;
    if (need > this.buf.length - this.at) {
      this.seal();
      if (need > this.buf.length) this.buf = Buffer.allocUnsafe(need);
    }
    const start = this.at;
    try {
      for (let i = 0; i < values.length; i++) (this.encoders[i] as Encoder)(this, values[i]);
    } catch (e) {
      // A refused value leaves no part of its row behind: the rows after it must still line up.
      this.at = start;
      throw e;
    }
    this.rows++;
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

  byte(n: number): void {
    this.buf[this.at++] = n;
  }

  uint32(n: number): void {
    this.at = this.buf.writeUInt32LE(n, this.at);
  }

  int32(n: number): void {
    this.at = this.buf.writeInt32LE(n, this.at);
  }

  /** A safe integer as 64 bits, two's complement (the high half floors, so the low half is never negative). */
  int64(n: number): void {
    const hi = Math.floor(n / TWO_32);
    this.at = this.buf.writeUInt32LE(n - hi * TWO_32, this.at);
    this.at = this.buf.writeInt32LE(hi, this.at);
  }

  float32(n: number): void {
    this.at = this.buf.writeFloatLE(n, this.at);
  }

  float64(n: number): void {
    this.at = this.buf.writeDoubleLE(n, this.at);
  }

  string(s: string): void {
    const { buf } = this;
    const len = s.length;
    // Most strings are short names in ASCII (runs, models, ids): copied by hand, a Buffer.write call costs more.
    if (len < 0x80) {
      let p = this.at + 1;
      let i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[p++] = c;
      }
      if (i === len) {
        buf[this.at] = len;
        this.at = p;
        return;
      }
    }
    // The byte count is known only once written: room is left for the longest count the string could need, and
    // the bytes are moved back when the count is shorter (a copy only for strings of 43 characters or more).
    const head = varintSize(s.length * 3);
    const n = s.length === 0 ? 0 : buf.write(s, this.at + head, 'utf8');
    const size = varintSize(n);
    if (size < head) buf.copyWithin(this.at + size, this.at + head, this.at + head + n);
    let x = n;
    let p = this.at;
    while (x >= 0x80) {
      buf[p++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    buf[p] = x;
    this.at += size + n;
  }

  private seal(): void {
    if (this.at === 0) return;
    this.chunks.push(this.buf.subarray(0, this.at));
    this.sealedBytes += this.at;
    this.buf = Buffer.allocUnsafe(CHUNK_BYTES);
    this.at = 0;
  }
}

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}
