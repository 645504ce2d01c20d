import { describe, expect, it } from 'vitest';
import { COLUMNS } from './episodeRows.ts';
import { RowBinaryBatch, RowValueError, rowEncoder } from './rowBinary.ts';
import { shardedColumns } from '../schema/schema.ts';

/** An independent RowBinary reader (BigInt and Buffer's own readers) for the types the store uses. */
function readRows(bytes: Buffer, types: string[]): unknown[][] {
  let at = 0;
  const varint = (): number => {
    let x = 0;
    let shift = 1;
    for (;;) {
      const b = bytes[at++] as number;
      x += (b & 0x7f) * shift;
      if (b < 0x80) return x;
      shift *= 128;
    }
  };
  const one = (type: string): unknown => {
    const inner = /^Nullable\((.+)\)$/.exec(type);
    if (inner) return bytes[at++] === 1 ? null : one(inner[1] as string);
    const take = <T>(n: number, f: (o: number) => T): T => {
      const v = f(at);
      at += n;
      return v;
    };
    switch (type) {
      case 'String': {
        const n = varint();
        return take(n, (o) => bytes.toString('utf8', o, o + n));
      }
      case 'UInt8': return take(1, (o) => bytes.readUInt8(o));
      case 'UInt32': return take(4, (o) => bytes.readUInt32LE(o));
      case 'Int32': return take(4, (o) => bytes.readInt32LE(o));
      case 'UInt64': return Number(take(8, (o) => bytes.readBigUInt64LE(o)));
      case 'Int64': return Number(take(8, (o) => bytes.readBigInt64LE(o)));
      case 'Float32': return take(4, (o) => bytes.readFloatLE(o));
      case 'Float64': return take(8, (o) => bytes.readDoubleLE(o));
      default: throw new Error(type);
    }
  };
  const rows: unknown[][] = [];
  while (at < bytes.length) rows.push(types.map(one));
  return rows;
}

const typesOf = (table: keyof typeof COLUMNS): string[] => {
  const types = new Map(shardedColumns(table).map((c) => [c.name, c.type]));
  return COLUMNS[table].map((c) => types.get(c) as string);
};

/** A deterministic stream of values (xorshift), so a failure names a reproducible row. */
function values(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('RowBinaryBatch', () => {
  it('writes every type of the turns table so that an independent reader gets the values back, across chunks', () => {
    const types = typesOf('turns');
    const rnd = values(7);
    const strings = ['', 'gpt-4o', 'é', 'x'.repeat(127), 'y'.repeat(128), '🙂'.repeat(40), `a\tb\nc\\d\0`, 'é'.repeat(50), 'ü'.repeat(5000)];
    const valueOf = (type: string, i: number): unknown => {
      if (type.startsWith('Nullable(') && rnd() < 0.3) return null;
      const t = type.replace(/^Nullable\((.+)\)$/, '$1');
      switch (t) {
        case 'String': return strings[i % strings.length];
        case 'UInt8': return Math.floor(rnd() * 256);
        case 'UInt32': return Math.floor(rnd() * 2 ** 32);
        case 'Int32': return Math.floor(rnd() * 2 ** 32) - 2 ** 31;
        case 'UInt64': return i % 5 === 0 ? Number.MAX_SAFE_INTEGER : Math.floor(rnd() * 2 ** 52);
        case 'Int64': return i % 7 === 0 ? Number.MIN_SAFE_INTEGER : Math.floor((rnd() - 0.5) * 2 ** 53);
        case 'Float32': return Math.fround((rnd() - 0.5) * 1e6);
        default: return (rnd() - 0.5) * 10 ** Math.floor(rnd() * 20);
      }
    };
    const rows = Array.from({ length: 3000 }, (_v, i) => types.map((t, c) => valueOf(t, i + c)));
    // A row larger than a chunk gets one of its own.
    (rows[100] as unknown[])[COLUMNS.turns.indexOf('model')] = 'z'.repeat(1_100_000);
    const batch = new RowBinaryBatch(rowEncoder('turns', COLUMNS.turns));
    for (const r of rows) batch.add(r);
    expect(batch.rows).toBe(rows.length);
    const bytes = batch.bytes;
    const chunks = batch.take();
    expect(chunks.length).toBeGreaterThan(2);
    const whole = Buffer.concat(chunks);
    expect(whole.length).toBe(bytes);
    expect(readRows(whole, types)).toEqual(rows);
    expect([batch.rows, batch.bytes, batch.take()]).toEqual([0, 0, []]);
  });

  it('takes ids given as decimal strings or bigints, a non-finite number as NULL, and rounds a Float32 as Math.fround', () => {
    const batch = new RowBinaryBatch(rowEncoder('estimates', ['scoring_id', 'episode_key', 'pos', 's_hat']));
    batch.add(['4503599627370495', 12n, 3, 0.1]);
    expect(readRows(Buffer.concat(batch.take()), ['UInt64', 'UInt64', 'UInt32', 'Float32'])).toEqual([[4503599627370495, 12, 3, Math.fround(0.1)]]);
    const text = new RowBinaryBatch(rowEncoder('turns', ['cost', 'latency_ms']));
    text.add([Number.NaN, Number.POSITIVE_INFINITY]);
    expect(Buffer.concat(text.take())).toEqual(Buffer.from([1, 1]));
  });

  it('refuses a value its column cannot hold, naming the column, rather than storing something else', () => {
    const batch = new RowBinaryBatch(rowEncoder('turn_candidates', ['run', 'pos', 'logged_score']));
    expect(() => batch.add(['r', 1.5, 0])).toThrow(/turn_candidates\.pos: 1\.5 cannot be stored as UInt32/);
    expect(() => batch.add(['r', -1, 0])).toThrow(RowValueError);
    expect(() => batch.add(['r', 2 ** 32, 0])).toThrow(RowValueError);
    expect(() => batch.add([null, 1, 0])).toThrow(/turn_candidates\.run: null cannot be stored as String/);
    expect(() => batch.add(['r', 1, '0.5'])).toThrow(/logged_score/);
    expect(() => batch.add(['r', 1])).toThrow(/2 values for 3 columns/);
    expect(() => rowEncoder('turns', ['no_such'])).toThrow(/turns\.no_such: not a column/);
  });

  it('leaves no part of a refused row behind: the rows around it read back alone', () => {
    const batch = new RowBinaryBatch(rowEncoder('turn_candidates', ['run', 'pos', 'logged_score']));
    batch.add(['before', 1, 0.5]);
    const bytes = batch.bytes;
    expect(() => batch.add(['half written', 2, 'not a number'])).toThrow(RowValueError);
    expect([batch.rows, batch.bytes]).toEqual([1, bytes]);
    batch.add(['after', 3, 1.5]);
    expect(readRows(Buffer.concat(batch.take()), ['String', 'UInt32', 'Float64'])).toEqual([['before', 1, 0.5], ['after', 3, 1.5]]);
  });
});
