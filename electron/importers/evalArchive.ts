/**
 * Reading members of a ZIP archive (Inspect's `.eval` logs) with bounded memory and zip-bomb guards.
 *
 * fflate's `unzipSync` inflates each selected member into a buffer of the size its central-directory entry
 * declares, so checking declared sizes before anything is inflated bounds memory even when the sizes lie
 * (a member that inflates to more than it declared is cut off there and then fails to parse). Members are
 * inflated in batches of at most `batchBytes` declared bytes, so a log with many samples never holds more
 * than one batch of them at once; the archive itself is read whole.
 */
import { readFileSync, statSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { ImportError } from './types.ts';

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

/** Declared uncompressed bytes per inflate pass: many small samples share one pass over the directory. */
const BATCH_BYTES = 64 * 1024 * 1024;

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
  private readonly byName: Map<string, ArchiveEntry>;

  private constructor(
    private readonly file: string,
    private readonly data: Uint8Array,
    private readonly limits: ArchiveLimits,
  ) {
    const entries: ArchiveEntry[] = [];
    this.unzip((e) => {
      entries.push({ name: e.name, size: e.size, originalSize: e.originalSize });
      return false;
    });
    this.entries = entries;
    this.byName = new Map(entries.map((e) => [e.name, e]));
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

  /** Inflates the named members, in order, a batch at a time. Call `checkSizes` with the same names first. */
  *read(names: readonly string[]): Generator<{ name: string; bytes: Uint8Array; compressed: number }> {
    this.checkSizes(names);
    let i = 0;
    while (i < names.length) {
      const batch = new Set<string>();
      let bytes = 0;
      while (i < names.length && (batch.size === 0 || bytes + (this.byName.get(names[i] ?? '')?.originalSize ?? 0) <= BATCH_BYTES)) {
        const name = names[i++] ?? '';
        batch.add(name);
        bytes += this.byName.get(name)?.originalSize ?? 0;
      }
      yield* this.inflate(batch);
    }
  }

  private *inflate(batch: Set<string>): Generator<{ name: string; bytes: Uint8Array; compressed: number }> {
    let files: Record<string, Uint8Array>;
    try {
      files = unzipSync(this.data, { filter: (e) => batch.has(e.name) });
    } catch (err) {
      // Find the member at fault, so the error names it.
      if (batch.size > 1) {
        for (const name of batch) yield* this.inflate(new Set([name]));
        return;
      }
      const [name] = batch;
      throw new ImportError(this.file, 1, `${name}: corrupt archive member (${err instanceof Error ? err.message : String(err)})`);
    }
    for (const name of batch) {
      const data = files[name];
      if (!data) throw new ImportError(this.file, 1, `${name}: missing from the archive`);
      yield { name, bytes: data, compressed: this.byName.get(name)?.size ?? 0 };
    }
  }

  private unzip(filter: (e: ArchiveEntry & { compression: number }) => boolean): Record<string, Uint8Array> {
    try {
      return unzipSync(this.data, { filter });
    } catch (err) {
      if (err instanceof ImportError) throw err;
      throw new ImportError(this.file, 1, `not a readable ZIP archive: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
