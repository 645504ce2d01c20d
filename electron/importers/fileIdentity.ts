/**
 * Whether a file stayed the same while it was imported (issue 38 item 2). Importers open the file themselves
 * (line readers, whole JSON documents, zip archives, a SQLite copy), so its bytes are hashed in one pass and
 * parsed in another; an agent still writing the file between them would have its content stored under a hash it
 * does not match, and the file's real content later skipped as "already imported". The file's identity is taken
 * before the hash and compared after the importer has read it, before anything is committed; any difference
 * refuses the file. The live-following import (issue 36) asks the same question through `whatChanged`.
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { READ_CHUNK_BYTES } from './lineReader.ts';

/** What `stat` says of a file at one moment, and when it was asked. */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  takenAtNs: bigint;
}

/**
 * How close to a file's last write a stat cannot tell a later write from none: a write in the same timestamp
 * tick leaves mtime and ctime as they were. Ticks are the kernel's coarse clock (1 to 10 ms) where times carry
 * fractions of a second (ext4, XFS, btrfs, APFS), and 1 or 2 s where they do not (ext3, HFS+, FAT); each bound
 * leaves room for a file server's clock running a little ahead of ours. A file copied or uploaded a moment ago
 * is read a second time only within 100 ms of its last write.
 */
const FINE_TICK_NS = 100_000_000n;
const COARSE_TICK_NS = 3_000_000_000n;
const SECOND_NS = 1_000_000_000n;

/**
 * The file `path` leads to (symlinks followed: importers open the path, so what it leads to is what they read),
 * or null when there is none.
 */
export function fileIdentity(path: string): FileIdentity | null {
  const st = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (!st) return null;
  return {
    dev: st.dev, ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs,
    takenAtNs: BigInt(Date.now()) * 1_000_000n,
  };
}

/** How the file at `path` differs from `before`, in a few words, or null when stat sees no difference. */
export function changeSince(before: FileIdentity, path: string): string | null {
  const now = fileIdentity(path);
  if (now === null) return 'removed';
  if (now.dev !== before.dev || now.ino !== before.ino) return 'replaced by another file';
  if (now.size !== before.size) return `size ${before.size} → ${now.size}`;
  // ctime as well as mtime: a writer can set mtime back (utimes), never ctime.
  if (now.mtimeNs !== before.mtimeNs || now.ctimeNs !== before.ctimeNs) return `rewritten, size ${now.size}`;
  return null;
}

/**
 * True when the file was last written so shortly before `before` was taken that a same-size rewrite after it
 * could fall in the same timestamp tick and leave stat unchanged: then only the bytes can tell.
 */
export function statCannotTell(before: FileIdentity): boolean {
  const last = before.mtimeNs > before.ctimeNs ? before.mtimeNs : before.ctimeNs;
  // ctime, which only the kernel sets, shows the file system's precision (mtime may be whole seconds from a tar).
  const tick = before.ctimeNs % SECOND_NS === 0n ? COARSE_TICK_NS : FINE_TICK_NS;
  return before.takenAtNs - last < tick;
}

/** The SHA-256 of a file's bytes, in hex. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: READ_CHUNK_BYTES })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * What changed in the file at `path` since `before` was taken and `hash` computed from its bytes, or null when it
 * is the file that was hashed. Stat decides in the common case (no second read: the formats bench reads each file
 * once); a file written within a timestamp tick of `before` is hashed again, since a same-size rewrite in that
 * tick changes neither size nor times.
 */
export async function whatChanged(path: string, before: FileIdentity, hash: string): Promise<string | null> {
  const changed = changeSince(before, path);
  if (changed !== null || !statCannotTell(before)) return changed;
  let again: string;
  try {
    again = await hashFile(path);
  } catch {
    return 'removed';
  }
  return again === hash ? null : `rewritten, size ${before.size}`;
}

/** The refusal of a file that changed while it was imported (`what` from whatChanged). */
export function changedWhileImported(what: string): string {
  return `changed while it was being imported (${what}): nothing of it was kept; import it again once the agent has finished writing it`;
}
