/**
 * The central directory of a ZIP archive (APPNOTE 6.3.10 §4.3.12–16), read from the end of the file: each
 * member's name, sizes, compression method, CRC and where its data starts, including the zip64 fields Python's
 * zipfile writes for large archives. Throws a plain Error saying what is wrong; the caller names the file.
 * Nothing here trusts a declared size further than the bounds of the file. The archive is not read whole: a
 * ZipSource reads the end (the directory) and, later, each member's bytes, by position.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Random access to an archive's bytes. */
export interface ZipSource {
  readonly size: number;
  /** Exactly `length` bytes from `at`; throws when they lie outside the file. */
  read(at: number, length: number): Buffer;
}

/** A source over a buffer (tests, small archives). */
export function bufferSource(data: Buffer): ZipSource {
  return {
    size: data.length,
    read(at, length) {
      need(data.length, at, length, 'range');
      return data.subarray(at, at + length);
    },
  };
}

/** A source over an open file; the caller closes it. Reads are positional, so nothing else is held in memory. */
export class FileSource implements ZipSource {
  readonly size: number;
  private readonly fd: number;

  constructor(file: string) {
    this.fd = openSync(file, 'r');
    try {
      this.size = fstatSync(this.fd).size;
    } catch (err) {
      closeSync(this.fd);
      throw err;
    }
  }

  read(at: number, length: number): Buffer {
    need(this.size, at, length, 'range');
    const buf = Buffer.allocUnsafe(length);
    for (let done = 0; done < length; ) {
      const n = readSync(this.fd, buf, done, length - done, at + done);
      if (n === 0) throw new Error('the file ended early (changed while being read?)');
      done += n;
    }
    return buf;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** The central directory and the end records are read into memory: past this, the archive is not a log. */
export const MAX_DIRECTORY_BYTES = 64 * 1024 * 1024;

export interface ZipMember {
  name: string;
  /** Compression method: 0 stored, 8 deflate. */
  compression: number;
  /** Compressed size. */
  size: number;
  /** Declared uncompressed size. */
  originalSize: number;
  crc: number;
  /** Offset of the member's local header. */
  localOffset: number;
}

const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const U32_MAX = 0xffffffff;

function u64(data: Buffer, at: number): number {
  const v = data.readBigUInt64LE(at);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('zip64 field out of range');
  return Number(v);
}

function need(size: number, at: number, bytes: number, what: string): void {
  if (at < 0 || bytes < 0 || at + bytes > size) throw new Error(`${what} lies outside the file`);
}

/** Finds the end-of-central-directory record: the last 22 bytes, or earlier when the archive has a comment. */
function findEnd(source: ZipSource): number {
  const base = Math.max(0, source.size - 22 - 0xffff);
  const tail = source.read(base, source.size - base);
  for (let at = tail.length - 22; at >= 0; at--) {
    if (tail.readUInt32LE(at) === EOCD && at + 22 + tail.readUInt16LE(at + 20) === tail.length) return base + at;
  }
  throw new Error('no end-of-central-directory record (truncated?)');
}

export function readZipDirectory(source: ZipSource | Buffer): ZipMember[] {
  const src = Buffer.isBuffer(source) ? bufferSource(source) : source;
  if (src.size < 22) throw new Error('too short to be a ZIP archive');
  const end = findEnd(src);
  const eocd = src.read(end, 22);
  let count = eocd.readUInt16LE(10);
  let offset = eocd.readUInt32LE(16);
  if (count === 0xffff || offset === U32_MAX) {
    need(src.size, end - 20, 20, 'zip64 locator');
    const locator = src.read(end - 20, 20);
    if (locator.readUInt32LE(0) !== EOCD64_LOCATOR) throw new Error('zip64 locator missing');
    const recordAt = u64(locator, 8);
    need(src.size, recordAt, 56, 'zip64 end record');
    const record = src.read(recordAt, 56);
    if (record.readUInt32LE(0) !== EOCD64) throw new Error('zip64 end record missing');
    count = u64(record, 32);
    offset = u64(record, 48);
  }
  // Each directory entry takes at least 46 bytes: a count the file cannot hold is a lie, not a loop bound.
  if (count * 46 > src.size) throw new Error(`directory claims ${count} members, more than the file can hold`);
  need(src.size, offset, 0, 'central directory');
  // The directory runs from its offset to the end records; only that part of the file is read.
  const length = end - offset;
  if (length < 0) throw new Error('central directory lies outside the file');
  if (length > MAX_DIRECTORY_BYTES) throw new Error(`central directory of ${length} bytes, over the ${MAX_DIRECTORY_BYTES}-byte limit`);
  const data = src.read(offset, length);
  const members: ZipMember[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    need(data.length, p, 46, 'central directory entry');
    if (data.readUInt32LE(p) !== CENTRAL) throw new Error(`central directory entry ${i} is damaged`);
    const flags = data.readUInt16LE(p + 8);
    const nameLength = data.readUInt16LE(p + 28);
    const extraLength = data.readUInt16LE(p + 30);
    const commentLength = data.readUInt16LE(p + 32);
    need(data.length, p + 46, nameLength + extraLength + commentLength, 'central directory entry');
    const nameBytes = data.subarray(p + 46, p + 46 + nameLength);
    // Bit 11: UTF-8 names; otherwise CP437, of which ASCII (all Inspect writes) is the common part.
    const name = flags & 0x800 ? nameBytes.toString('utf8') : nameBytes.toString('latin1');
    let size = data.readUInt32LE(p + 20);
    let originalSize = data.readUInt32LE(p + 24);
    let localOffset = data.readUInt32LE(p + 42);
    // zip64 extended information: the 64-bit values, in this order, for those whose 32-bit field is all ones.
    for (let x = p + 46 + nameLength; x + 4 <= p + 46 + nameLength + extraLength; ) {
      const id = data.readUInt16LE(x);
      const length = data.readUInt16LE(x + 2);
      if (id === 0x0001) {
        let f = x + 4;
        const take = (): number => {
          need(data.length, f, 8, 'zip64 field');
          const v = u64(data, f);
          f += 8;
          return v;
        };
        if (originalSize === U32_MAX) originalSize = take();
        if (size === U32_MAX) size = take();
        if (localOffset === U32_MAX) localOffset = take();
      }
      x += 4 + length;
    }
    members.push({
      name,
      compression: data.readUInt16LE(p + 10),
      size,
      originalSize,
      crc: data.readUInt32LE(p + 16),
      localOffset,
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return members;
}

/**
 * Where the member's compressed bytes start, found through its local header (whose own name and extra lengths
 * may differ); they run for `member.size` bytes, inside the file.
 */
export function memberDataOffset(source: ZipSource, member: ZipMember): number {
  const local = source.read(member.localOffset, 30);
  if (local.readUInt32LE(0) !== LOCAL) throw new Error('local header missing');
  const start = member.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  need(source.size, start, member.size, 'member data');
  return start;
}
