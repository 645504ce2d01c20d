/**
 * Reading members of a ZIP archive (Inspect's `.eval` logs) with bounded memory and zip-bomb guards.
 *
 * The central directory is read first (zipDirectory.ts) and the declared sizes of the members to be read are
 * checked against the limits before anything is inflated. Each member is then inflated by zlib with its declared
 * size as the output limit, so a member that inflates to more than it declares fails as soon as it passes that
 * size: fflate's unzipSync, used before, cut such a member's output at its declared size but went on inflating
 * the rest (a 200 KB member of 200 MB of zeros declared as 100 bytes cost ~1 s, so a 200 MB archive ~15 min;
 * fuzz.test.ts). Members are inflated one at a time, in the order asked; the archive itself is read whole.
 */
import { readFileSync, statSync } from 'node:fs';
import * as zlib from 'node:zlib';
import { ImportError } from './types.ts';
import { readZipDirectory, memberData, type ZipMember } from './zipDirectory.ts';

export interface ArchiveLimits {
  /** Sum of the declared uncompressed sizes of the members read (2 GiB). */
  maxTotalBytes: number;
  /** One member, decoded to one string: below V8's ~512 MiB string limit. */
  maxEntryBytes: number;
  /** The archive file itself, which is read into memory. */
  maxArchiveBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxTotalBytes: 2 * 1024 * 1024 * 1024,
  maxEntryBytes: 500 * 1024 * 1024,
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

export class EvalArchive {
  readonly entries: ArchiveEntry[];
  private readonly byName: Map<string, ZipMember>;

  private constructor(
    private readonly file: string,
    private readonly data: Buffer,
    private readonly limits: ArchiveLimits,
  ) {
    let members: ZipMember[];
    try {
      members = readZipDirectory(data);
    } catch (err) {
      throw new ImportError(file, 1, `not a readable ZIP archive: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.entries = members.map((m) => ({ name: m.name, size: m.size, originalSize: m.originalSize }));
    // A name listed twice: the last entry wins, as in unzip tools.
    this.byName = new Map(members.map((m) => [m.name, m]));
  }

  static open(file: string, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): EvalArchive {
    const size = statSync(file).size;
    if (size > limits.maxArchiveBytes) {
      throw new ImportError(file, 1, `archive is ${size} bytes, over the ${limits.maxArchiveBytes}-byte limit`);
    }
    return new EvalArchive(file, readFileSync(file), limits);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /**
   * Checks the declared sizes of the members that will be read against the limits, before inflating any.
   * A member over the per-entry limit or a total over the archive limit is a zip bomb or not a log.
   */
  checkSizes(names: readonly string[]): void {
    let total = 0;
    for (const name of names) {
      const entry = this.byName.get(name);
      if (!entry) continue;
      if (entry.originalSize > this.limits.maxEntryBytes) {
        throw new ImportError(this.file, 1, `${name}: declares ${entry.originalSize} bytes uncompressed, over the ${this.limits.maxEntryBytes}-byte limit per member (zip bomb?)`);
      }
      total += entry.originalSize;
      if (total > this.limits.maxTotalBytes) {
        throw new ImportError(this.file, 1, `members declare over ${this.limits.maxTotalBytes} bytes uncompressed in all (zip bomb?)`);
      }
    }
  }

  /** Inflates the named members, in order, one at a time. */
  *read(names: readonly string[]): Generator<{ name: string; bytes: Uint8Array; compressed: number }> {
    this.checkSizes(names);
    for (const name of names) {
      const member = this.byName.get(name);
      if (!member) throw new ImportError(this.file, 1, `${name}: missing from the archive`);
      yield { name, bytes: this.inflate(member), compressed: member.size };
    }
  }

  private inflate(member: ZipMember): Uint8Array {
    const corrupt = (why: string): ImportError => new ImportError(this.file, 1, `${member.name}: corrupt archive member (${why})`);
    let raw: Buffer;
    try {
      raw = memberData(this.data, member);
    } catch (err) {
      throw corrupt(err instanceof Error ? err.message : String(err));
    }
    let out: Buffer;
    if (member.compression === 0) {
      out = raw;
    } else if (member.compression === 8) {
      try {
        // One byte over the declared size is enough to know it lies; zlib stops there.
        out = zlib.inflateRawSync(raw, { maxOutputLength: member.originalSize + 1 });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
          throw new ImportError(this.file, 1, `${member.name}: inflates to more than the ${member.originalSize} bytes it declares (zip bomb?)`);
        }
        throw corrupt(err instanceof Error ? err.message : String(err));
      }
    } else {
      throw new ImportError(this.file, 1, `${member.name}: compression method ${member.compression} is not supported (only stored and deflate)`);
    }
    if (out.length !== member.originalSize) {
      throw corrupt(`${out.length} bytes, ${member.originalSize} declared`);
    }
    // zlib.crc32 arrived in Node 20.15; on an older Node the sizes are the only check.
    if (typeof zlib.crc32 === 'function' && zlib.crc32(out) >>> 0 !== member.crc >>> 0) throw corrupt('CRC mismatch');
    return out;
  }
}
