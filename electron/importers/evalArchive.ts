/**
 * Reading members of a ZIP archive (Inspect's `.eval` logs) with bounded memory and zip-bomb guards.
 *
 * The central directory is read first (zipDirectory.ts); the archive itself is never read whole, only its
 * directory and then each member's bytes, by position. Every member read is counted against a budget of
 * inflated bytes: at most `maxInflateRatio` times the archive's size (a small archive may always reach
 * `minInflateBudget`), never more than `maxTotalBytes` in all, and never more than `maxEntryBytes` for one
 * member, which is decoded to one string and parsed whole (JSON.parse costs several times the text in memory;
 * archiveBomb.attack.test.ts measures the process's peak RSS near these limits). Declared sizes are checked
 * against the budget before anything is inflated (an honest bomb is refused in milliseconds); then each member is
 * inflated as a stream with a running count that stops as soon as it passes the smallest of its declared size,
 * the per-member cap and what is left of the budget, so a lying size costs no more than the limit either: the
 * declared size is never allocated up front. Real Inspect archives inflate 3–6× (fixtures/samples/inspect).
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { ImportError } from './types.ts';
import { FileSource, readZipDirectory, memberDataOffset, type ZipMember } from './zipDirectory.ts';

export interface ArchiveLimits {
  /** Total inflated bytes of the members read, as a multiple of the archive's size. */
  maxInflateRatio: number;
  /** The budget of a small archive is at least this, whatever its size. */
  minInflateBudget: number;
  /** The budget of any archive is at most this: an absolute cap on the total inflated bytes. */
  maxTotalBytes: number;
  /** One member, decoded to one string and parsed whole: this bounds the import's peak memory. */
  maxEntryBytes: number;
  /**
   * JSON values and keys in one member, as countJsonValues counts them: parsed (and decoded), each costs up to
   * ~200 bytes whatever its size in the text (`[]` is 2 bytes), so bytes alone do not bound a member's memory.
   */
  maxEntryValues: number;
  /** The archive file itself. */
  maxArchiveBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxInflateRatio: 100,
  minInflateBudget: 16 * 1024 * 1024,
  maxTotalBytes: 8 * 1024 * 1024 * 1024,
  maxEntryBytes: 32 * 1024 * 1024,
  maxEntryValues: 1_000_000,
  maxArchiveBytes: 2 * 1024 * 1024 * 1024,
};

export interface ArchiveEntry {
  name: string;
  /** Compressed size. */
  size: number;
  /** Declared uncompressed size. */
  originalSize: number;
}

export const ZIP_MAGIC = 'PK\u0003\u0004';

/**
 * Counts the JSON values in UTF-8 `bytes` the cheap way, before any parsing: each `{`, `[`, `,` and `:`
 * outside strings (a key costs as much as a value once parsed: ~200 bytes for a key no other object has).
 * An upper bound, about twice the values; stops counting once past `max`. Quote and backslash bytes never
 * occur inside multi-byte UTF-8.
 */
export function countJsonValues(bytes: Uint8Array, max: number): number {
  let count = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (inString) {
      if (b === 0x5c) i++;
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) {
      inString = true;
    } else if (b === 0x7b || b === 0x5b || b === 0x2c || b === 0x3a) {
      if (++count > max) return count;
    }
  }
  return count;
}

const BOMB = 'a zip bomb or not a log';
/** Compressed bytes read from the file at a time. */
const READ_CHUNK = 64 * 1024;

export class EvalArchive {
  readonly entries: ArchiveEntry[];
  /** Inflated bytes the members read so far may reach in all. */
  readonly budget: number;
  private readonly byName: Map<string, ZipMember>;
  /** Inflated bytes counted so far, against the budget. */
  private used = 0;

  private constructor(
    private readonly file: string,
    private readonly archiveBytes: number,
    members: ZipMember[],
    private readonly limits: ArchiveLimits,
  ) {
    this.entries = members.map((m) => ({ name: m.name, size: m.size, originalSize: m.originalSize }));
    // A name listed twice: the last entry wins, as in unzip tools.
    this.byName = new Map(members.map((m) => [m.name, m]));
    this.budget = Math.min(limits.maxTotalBytes, Math.max(limits.minInflateBudget, limits.maxInflateRatio * archiveBytes));
  }

  static open(file: string, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): EvalArchive {
    const source = new FileSource(file);
    try {
      if (source.size > limits.maxArchiveBytes) {
        throw new ImportError(file, 1, `archive is ${source.size} bytes, over the ${limits.maxArchiveBytes}-byte limit`);
      }
      let members: ZipMember[];
      try {
        members = readZipDirectory(source);
      } catch (err) {
        throw new ImportError(file, 1, `not a readable ZIP archive: ${err instanceof Error ? err.message : String(err)}`);
      }
      return new EvalArchive(file, source.size, members, limits);
    } finally {
      source.close();
    }
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** How the budget was set, for refusals. */
  private budgetText(): string {
    const { maxInflateRatio, minInflateBudget, maxTotalBytes } = this.limits;
    const why =
      this.budget === maxTotalBytes
        ? `the cap for any archive`
        : this.budget === minInflateBudget && minInflateBudget > maxInflateRatio * this.archiveBytes
          ? `the least any archive gets`
          : `${maxInflateRatio}× the archive's ${this.archiveBytes} bytes`;
    return `the budget of ${this.budget} bytes (${why})`;
  }

  /**
   * Checks the declared sizes of the members that will be read against the limits, before inflating any.
   * A member over the per-entry limit or a total over the budget is a zip bomb or not a log.
   */
  checkSizes(names: readonly string[]): void {
    let total = this.used;
    for (const name of names) {
      const entry = this.byName.get(name);
      if (!entry) continue;
      if (entry.originalSize > this.limits.maxEntryBytes) {
        throw new ImportError(this.file, 1, `${name}: declares ${entry.originalSize} bytes uncompressed, over the ${this.limits.maxEntryBytes}-byte limit per member — ${BOMB}`);
      }
      total += entry.originalSize;
      if (total > this.budget) {
        throw new ImportError(this.file, 1, `members declare over ${total} bytes uncompressed in all, past ${this.budgetText()} — ${BOMB}`);
      }
    }
  }

  /** Inflates the named members, in order, one at a time. */
  async *read(names: readonly string[]): AsyncGenerator<{ name: string; bytes: Uint8Array; compressed: number }> {
    this.checkSizes(names);
    for (const name of names) {
      const member = this.byName.get(name);
      if (!member) throw new ImportError(this.file, 1, `${name}: missing from the archive`);
      yield { name, bytes: await this.inflate(member), compressed: member.size };
    }
  }

  private async inflate(member: ZipMember): Promise<Buffer> {
    const corrupt = (why: string): ImportError => new ImportError(this.file, 1, `${member.name}: corrupt archive member (${why})`);
    // The member may produce the least of: its declared size, the per-member cap, what is left of the budget.
    const left = this.budget - this.used;
    const limit = Math.min(member.originalSize, this.limits.maxEntryBytes, left);
    const over = (): ImportError =>
      limit === member.originalSize
        ? new ImportError(this.file, 1, `${member.name}: inflates to more than the ${member.originalSize} bytes it declares (zip bomb?)`)
        : limit === this.limits.maxEntryBytes
          ? new ImportError(this.file, 1, `${member.name}: inflates past ${this.limits.maxEntryBytes} bytes, the limit for one member — ${BOMB}`)
          : new ImportError(this.file, 1, `${member.name}: inflates past ${this.budgetText()} — ${BOMB}`);
    if (member.compression !== 0 && member.compression !== 8) {
      throw new ImportError(this.file, 1, `${member.name}: compression method ${member.compression} is not supported (only stored and deflate)`);
    }

    let start: number;
    const source = new FileSource(this.file);
    try {
      start = memberDataOffset(source, member);
      if (member.compression === 0) {
        if (member.size > limit) throw over();
        const out = source.read(start, member.size);
        this.used += out.length;
        return this.verify(member, out, corrupt);
      }
    } catch (err) {
      if (err instanceof ImportError) throw err;
      throw corrupt(err instanceof Error ? err.message : String(err));
    } finally {
      source.close();
    }

    const input =
      member.size === 0
        ? Readable.from([])
        : createReadStream(this.file, { start, end: start + member.size - 1, highWaterMark: READ_CHUNK });
    const inflater = zlib.createInflateRaw();
    input.on('error', (err: Error) => inflater.destroy(err));
    input.pipe(inflater);
    const chunks: Buffer[] = [];
    let length = 0;
    try {
      for await (const chunk of inflater as AsyncIterable<Buffer>) {
        length += chunk.length;
        this.used += chunk.length;
        // One byte past the limit is enough to know: stop reading and inflating there.
        if (length > limit) throw over();
        chunks.push(chunk);
      }
    } catch (err) {
      if (err instanceof ImportError) throw err;
      throw corrupt(err instanceof Error ? err.message : String(err));
    } finally {
      input.destroy();
      inflater.destroy();
    }
    const out = Buffer.concat(chunks, length);
    chunks.length = 0;
    return this.verify(member, out, corrupt);
  }

  /** Refuses a member with more JSON values than the limit, before it is decoded and parsed. */
  checkValues(name: string, bytes: Uint8Array): void {
    const max = this.limits.maxEntryValues;
    if (countJsonValues(bytes, max) > max) {
      throw new ImportError(this.file, 1, `${name}: holds over ${max} JSON values, the limit for one member — ${BOMB}`);
    }
  }

  private verify(member: ZipMember, out: Buffer, corrupt: (why: string) => ImportError): Buffer {
    if (out.length !== member.originalSize) {
      throw corrupt(`${out.length} bytes, ${member.originalSize} declared`);
    }
    // zlib.crc32 arrived in Node 20.15; on an older Node the sizes are the only check.
    if (typeof zlib.crc32 === 'function' && zlib.crc32(out) >>> 0 !== member.crc >>> 0) throw corrupt('CRC mismatch');
    return out;
  }
}
