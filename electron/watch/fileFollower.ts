/**
 * One followed log file held open between its changes (issue 36). A format read a line at a time (the importer's
 * `follow`) is given only the complete lines written since the last read, from the cursor; a partial last line
 * waits for its newline. Any other format is read again whole when it changes (Gemini CLI's JSON document,
 * OpenHands' event folders), its episodes replacing the file's. Either way the episodes are what a one-shot
 * import of the file as it stands gives.
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import { changedWhileImported, fileIdentity, hashFile, whatChanged, type FileIdentity } from '../importers/fileIdentity.ts';
import { lineText, READ_CHUNK_BYTES } from '../importers/lineReader.ts';
import { ImportError, type ImportContext, type Importer, type LineFold } from '../importers/types.ts';

/** Bytes at the file's start and just before the cursor whose hashes tell an append from a rewrite. */
export const MARK_BYTES = 4096;

/** What a read of the file found, against what was read before. */
export type FileChange =
  | { kind: 'unchanged' }
  | { kind: 'appended'; bytes: number; lines: number }
  /** The file is not the one read before (another inode, cut shorter, or its read part rewritten): read again whole. */
  | { kind: 'restarted'; why: string }
  | { kind: 'removed' };

export const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** `length` bytes of the file from `at` (fewer at its end). */
function readAt(fd: number, at: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, at + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

export class FileFollower {
  /** Bytes read and folded: the file's complete lines up to here (for a whole-file format, its size when read). */
  cursor = 0;
  /** SHA-256 of the bytes before the cursor: the file's content hash once it ends there. */
  contentHash = '';
  headHash = '';
  tailHash = '';
  identity: FileIdentity | null = null;
  /** Per episode (run and id), the digests of its turns as last committed: the writer keeps what did not change. */
  readonly digests = new Map<string, string[]>();
  /** Warnings already said for this file (an importer repeats them on each read). */
  readonly said = new Set<string>();
  private fold: LineFold | null = null;
  private hash: Hash = createHash('sha256');
  private lineNo = 0;
  /** Bytes past the cursor known to hold no newline: a partial last line, not read again while it grows. */
  private scanned = 0;
  private head: Buffer = Buffer.alloc(0);
  private tail: Buffer = Buffer.alloc(0);

  /** What the importer warned on the last read (it says them again on each read: the watcher says each once). */
  readonly warned: string[] = [];
  private readonly ctx: ImportContext;

  constructor(
    readonly path: string,
    readonly importer: Importer,
  ) {
    this.ctx = { root: dirname(path), warn: (m) => this.warned.push(m) };
    this.reset();
  }

  /** True for a format read line by line from the cursor; false for one read again whole on every change. */
  get incremental(): boolean {
    return this.fold !== null;
  }

  private reset(): void {
    this.fold = this.importer.follow?.(this.path, this.ctx) ?? null;
    this.hash = createHash('sha256');
    this.cursor = 0;
    this.lineNo = 0;
    this.scanned = 0;
    this.head = Buffer.alloc(0);
    this.tail = Buffer.alloc(0);
    this.contentHash = sha256(Buffer.alloc(0));
    this.headHash = this.contentHash;
    this.tailHash = this.contentHash;
    this.digests.clear();
  }

  /** Why the file is no longer the one read up to the cursor, or null when it only grew (or stayed). */
  private restartReason(now: FileIdentity): string | null {
    const before = this.identity;
    if (before === null) return null;
    if (now.dev !== before.dev || now.ino !== before.ino) return 'replaced by another file (rotated or rewritten whole)';
    if (Number(now.size) < this.cursor) return `truncated (${this.cursor} → ${now.size} bytes)`;
    if (!this.incremental) return null;
    const fd = openSync(this.path, 'r');
    try {
      if (!readAt(fd, 0, this.head.length).equals(this.head)) return 'rewritten (its start changed)';
      if (!readAt(fd, this.cursor - this.tail.length, this.tail.length).equals(this.tail)) return 'rewritten (lines already read changed)';
    } finally {
      closeSync(fd);
    }
    return null;
  }

  /**
   * Reads what changed since the last read. Line formats: the complete lines after the cursor go through the fold
   * (a bad line throws ImportError: the file is refused until it changes again). Whole formats: nothing is read
   * here; `episodes` reads the file. `upTo`: read no further than this byte (a cursor to resume from).
   */
  async readChanges(upTo = Number.POSITIVE_INFINITY): Promise<FileChange> {
    const now = fileIdentity(this.path);
    if (now === null) return { kind: 'removed' };
    const why = this.restartReason(now);
    if (why !== null) this.reset();
    const first = this.identity === null || why !== null;
    const sameStat = !first && this.identity !== null && now.size === this.identity.size && now.mtimeNs === this.identity.mtimeNs && now.ctimeNs === this.identity.ctimeNs;
    this.identity = now;
    if (!this.incremental) {
      if (sameStat) return { kind: 'unchanged' };
      return why !== null ? { kind: 'restarted', why } : { kind: 'appended', bytes: Number(now.size) - this.cursor, lines: 0 };
    }
    const read = await this.readLines(Math.min(Number(now.size), upTo));
    if (why !== null) return { kind: 'restarted', why };
    return read.bytes === 0 ? { kind: 'unchanged' } : { kind: 'appended', ...read };
  }

  /** Folds the complete lines between the cursor and `size`, in order; the bytes after the last newline wait. */
  private async readLines(size: number): Promise<{ bytes: number; lines: number }> {
    const fold = this.fold as LineFold;
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const start = this.cursor;
    let lines = 0;
    let at = start;
    const fd = openSync(this.path, 'r');
    try {
      /** How much to read from the cursor: a chunk, or the whole of a line longer than one. */
      let want = READ_CHUNK_BYTES;
      if (this.scanned > this.cursor) {
        // A partial line seen before: only what was appended to it since is looked at for its newline.
        const nl = this.newlineAt(fd, this.scanned, size);
        if (nl === -1) return this.waitForNewline(size, fold, start);
        want = this.lineUpTo(nl, fold);
      }
      while (at < size) {
        const chunk = readAt(fd, this.cursor, Math.min(want, size - this.cursor));
        if (chunk.length === 0) break; // cut shorter while read: the next change restarts it
        at = this.cursor + chunk.length;
        let from = 0;
        for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
          this.lineNo++;
          if (nl - from > fold.maxLineBytes) throw new ImportError(this.path, this.lineNo, `line longer than ${fold.maxLineBytes} bytes`);
          const text = lineText(decoder, chunk.subarray(from, nl), this.path, this.lineNo, this.lineNo === 1);
          await fold.line(this.lineNo, text);
          lines++;
          from = nl + 1;
        }
        if (from === 0) {
          // A line longer than a chunk: its end is looked for ahead, not by reading it again from its start with
          // each chunk (a line of tens of MB written a piece at a time would be read over and over).
          const nl = this.newlineAt(fd, at, size);
          if (nl === -1) return this.waitForNewline(size, fold, start, lines);
          want = this.lineUpTo(nl, fold);
          continue;
        }
        this.consume(chunk.subarray(0, from));
        want = READ_CHUNK_BYTES;
      }
    } finally {
      closeSync(fd);
    }
    return { bytes: this.cursor - start, lines };
  }

  /** No newline after the cursor up to `size`: remembered, so the next read looks only at what follows. */
  private waitForNewline(size: number, fold: LineFold, start: number, lines = 0): { bytes: number; lines: number } {
    this.scanned = size;
    if (size - this.cursor > fold.maxLineBytes) throw new ImportError(this.path, this.lineNo + 1, `line longer than ${fold.maxLineBytes} bytes`);
    return { bytes: this.cursor - start, lines };
  }

  /** The bytes from the cursor through the newline at `nl` (refused, before being read, when the line is too long). */
  private lineUpTo(nl: number, fold: LineFold): number {
    if (nl - this.cursor > fold.maxLineBytes) throw new ImportError(this.path, this.lineNo + 1, `line longer than ${fold.maxLineBytes} bytes`);
    return nl + 1 - this.cursor;
  }

  /** Where the first newline at or after `from` (and before `size`) is, or -1. */
  private newlineAt(fd: number, from: number, size: number): number {
    for (let at = from; at < size;) {
      const chunk = readAt(fd, at, Math.min(READ_CHUNK_BYTES, size - at));
      if (chunk.length === 0) return -1;
      const nl = chunk.indexOf(10);
      if (nl !== -1) return at + nl;
      at += chunk.length;
    }
    return -1;
  }

  private consume(bytes: Buffer): void {
    this.hash.update(bytes);
    this.cursor += bytes.length;
    if (this.head.length < MARK_BYTES) this.head = Buffer.concat([this.head, bytes.subarray(0, MARK_BYTES - this.head.length)]);
    const joined = Buffer.concat([this.tail, bytes]);
    this.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - MARK_BYTES)));
    this.contentHash = this.hash.copy().digest('hex');
    this.headHash = sha256(this.head);
    this.tailHash = sha256(this.tail);
  }

  /** The file's episodes as they stand (ImportError when the file makes none yet or is not readable as its format). */
  async episodes(): Promise<CanonicalEpisode[]> {
    if (this.fold !== null) return this.fold.episodes();
    return this.readWhole();
  }

  /** A whole-file format, read as `import` reads it; a file written during the read is refused until it settles. */
  private async readWhole(): Promise<CanonicalEpisode[]> {
    const before = fileIdentity(this.path);
    if (before === null) throw new ImportError(this.path, 0, 'removed');
    const hash = await hashFile(this.path);
    const out: CanonicalEpisode[] = [];
    for await (const ep of this.importer.read(this.path, this.ctx)) out.push(ep);
    const changed = await whatChanged(this.path, before, hash);
    if (changed !== null) throw new ImportError(this.path, 0, changedWhileImported(changed));
    this.identity = before;
    this.cursor = Number(before.size);
    this.contentHash = hash;
    this.headHash = hash;
    this.tailHash = hash;
    return out;
  }

  /** The file this one's episodes also read (a sidechain's parent), whose changes make it read again. */
  dependsOn(): string | null {
    return this.fold?.dependsOn() ?? null;
  }
}
