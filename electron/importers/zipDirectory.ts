/**
 * The central directory of a ZIP archive (APPNOTE 6.3.10 §4.3.12–16), read from the end of the file: each
 * member's name, sizes, compression method, CRC and where its data starts, including the zip64 fields Python's
 * zipfile writes for large archives. Throws a plain Error saying what is wrong; the caller names the file.
 * Nothing here trusts a declared size further than the bounds of the buffer.
 */

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

function need(data: Buffer, at: number, bytes: number, what: string): void {
  if (at < 0 || at + bytes > data.length) throw new Error(`${what} lies outside the file`);
}

/** Finds the end-of-central-directory record: the last 22 bytes, or earlier when the archive has a comment. */
function findEnd(data: Buffer): number {
  const lowest = Math.max(0, data.length - 22 - 0xffff);
  for (let at = data.length - 22; at >= lowest; at--) {
    if (data.readUInt32LE(at) === EOCD && at + 22 + data.readUInt16LE(at + 20) === data.length) return at;
  }
  throw new Error('no end-of-central-directory record (truncated?)');
}

export function readZipDirectory(data: Buffer): ZipMember[] {
  if (data.length < 22) throw new Error('too short to be a ZIP archive');
  const end = findEnd(data);
  let count = data.readUInt16LE(end + 10);
  let offset = data.readUInt32LE(end + 16);
  if (count === 0xffff || offset === U32_MAX) {
    const locator = end - 20;
    need(data, locator, 20, 'zip64 locator');
    if (data.readUInt32LE(locator) !== EOCD64_LOCATOR) throw new Error('zip64 locator missing');
    const record = u64(data, locator + 8);
    need(data, record, 56, 'zip64 end record');
    if (data.readUInt32LE(record) !== EOCD64) throw new Error('zip64 end record missing');
    count = u64(data, record + 32);
    offset = u64(data, record + 48);
  }
  // Each directory entry takes at least 46 bytes: a count the file cannot hold is a lie, not a loop bound.
  if (count * 46 > data.length) throw new Error(`directory claims ${count} members, more than the file can hold`);
  const members: ZipMember[] = [];
  let p = offset;
  for (let i = 0; i < count; i++) {
    need(data, p, 46, 'central directory entry');
    if (data.readUInt32LE(p) !== CENTRAL) throw new Error(`central directory entry ${i} is damaged`);
    const flags = data.readUInt16LE(p + 8);
    const nameLength = data.readUInt16LE(p + 28);
    const extraLength = data.readUInt16LE(p + 30);
    const commentLength = data.readUInt16LE(p + 32);
    need(data, p + 46, nameLength + extraLength + commentLength, 'central directory entry');
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
          need(data, f, 8, 'zip64 field');
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

/** The member's compressed bytes, found through its local header (whose own name and extra lengths may differ). */
export function memberData(data: Buffer, member: ZipMember): Buffer {
  need(data, member.localOffset, 30, 'local header');
  if (data.readUInt32LE(member.localOffset) !== LOCAL) throw new Error('local header missing');
  const start = member.localOffset + 30 + data.readUInt16LE(member.localOffset + 26) + data.readUInt16LE(member.localOffset + 28);
  need(data, start, member.size, 'member data');
  return data.subarray(start, start + member.size);
}
