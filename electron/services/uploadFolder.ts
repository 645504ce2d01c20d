/**
 * Where files uploaded from the import dialog wait while they are imported: a private folder under the system's
 * temporary folder, the dropped layout kept inside it. The request names the paths, so they are checked as a set
 * before anything is written (no `..`, names a file system takes, no path both a file and a folder, none twice),
 * and a failure names the path the user gave, never our folder. The folder carries the process id: a serve killed
 * mid-import leaves it behind, and the next start removes those whose process is gone.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';

export class UploadPathError extends Error {}

/** Longest name of one folder entry: 255 bytes on ext4 and APFS (NTFS: 255 UTF-16 units, never fewer bytes' worth). */
export const MAX_NAME_BYTES = 255;
/** Longest relative path taken: well inside PATH_MAX (4,096 on Linux, 1,024 on macOS) once under the temporary folder. */
export const MAX_PATH_BYTES = 768;
const MAX_PARTS = 32;
const PREFIX = 'routelens-upload-';
/** A folder of a version that did not name its process is left this long (ms) before it counts as abandoned. */
const UNNAMED_KEPT_MS = 24 * 3600 * 1000;

/** Long names are cut in messages: the message must stay readable, whatever the request held. */
const quoted = (raw: string): string => `"${raw.length > 80 ? `${raw.slice(0, 80)}…` : raw}"`;

/** A relative path from the user, made safe to join under our folder: no `..`, no absolute paths or drive letters. */
export function safeRelativePath(raw: string): string {
  return uploadParts(raw).join(sep);
}

function uploadParts(raw: string): string[] {
  const parts = raw.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.length > MAX_PARTS) throw new UploadPathError(`unusable file path ${quoted(raw)}`);
  for (const p of parts) {
    if (p === '..' || /^[a-zA-Z]:$/.test(p) || p.includes('\0')) throw new UploadPathError(`unsafe file path ${quoted(raw)}`);
    if (Buffer.byteLength(p) > MAX_NAME_BYTES) {
      throw new UploadPathError(`file path ${quoted(raw)} has a name of ${Buffer.byteLength(p)} bytes (a file system takes ${MAX_NAME_BYTES})`);
    }
  }
  if (Buffer.byteLength(parts.join('/')) > MAX_PATH_BYTES) {
    throw new UploadPathError(`file path ${quoted(raw)} is longer than ${MAX_PATH_BYTES} bytes`);
  }
  return parts;
}

/** Each path's parts, once the set is known to fit one folder tree: none given twice, none both a file and a folder. */
export function uploadLayout(paths: readonly string[]): string[][] {
  const files = new Map<string, string>();
  const folders = new Map<string, string>();
  const layout = paths.map((raw) => {
    const parts = uploadParts(raw);
    const key = parts.join('/');
    const twin = files.get(key);
    if (twin !== undefined) throw new UploadPathError(`file path ${quoted(raw)} is given twice (also as ${quoted(twin)})`);
    const inside = folders.get(key);
    if (inside !== undefined) throw new UploadPathError(`file paths ${quoted(raw)} and ${quoted(inside)} clash: "${key}" would be both a file and a folder`);
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      const file = files.get(folder);
      if (file !== undefined) throw new UploadPathError(`file paths ${quoted(file)} and ${quoted(raw)} clash: "${folder}" would be both a file and a folder`);
      if (!folders.has(folder)) folders.set(folder, raw);
    }
    files.set(key, raw);
    return parts;
  });
  return layout;
}

/** What a failed write says: the file system's code, never the folder it was writing in. */
const FILE_SYSTEM_REFUSALS = new Set(['EEXIST', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG', 'EINVAL', 'EILSEQ']);

/**
 * Writes the files into a new folder and returns it (`root`, to remove when done) and the folder the import reads
 * (`uploads`). A path the file system still refuses (a name that differs only in case on a case-insensitive disk)
 * is the request's fault; nothing of a failed upload is left behind.
 */
export function writeUploads(files: readonly { path: string; data_base64: string }[]): { root: string; uploads: string } {
  const layout = uploadLayout(files.map((f) => f.path));
  const root = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
  const uploads = join(root, 'upload');
  try {
    files.forEach((f, i) => {
      const target = join(uploads, ...(layout[i] as string[]));
      try {
        mkdirSync(dirname(target), { recursive: true });
        // 'wx': a second name the disk takes as the same file is refused, never written over the first.
        writeFileSync(target, Buffer.from(f.data_base64, 'base64'), { flag: 'wx' });
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (typeof code === 'string' && FILE_SYSTEM_REFUSALS.has(code)) {
          throw new UploadPathError(`file path ${quoted(f.path)} cannot be written beside the others (${code})`, { cause: err });
        }
        throw new Error(`could not write the uploaded file ${quoted(f.path)}: ${typeof code === 'string' ? code : 'write failed'}`, { cause: err });
      }
    });
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return { root, uploads };
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as { code?: unknown }).code === 'ESRCH';
  }
}

/** Removes upload folders left by processes that are gone (killed mid-import); returns how many. */
export function removeAbandonedUploads(now = Date.now()): number {
  const dir = tmpdir();
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(PREFIX));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const owner = /^routelens-upload-(\d+)-[^-]+$/.exec(name);
    const path = join(dir, name);
    try {
      if (owner) {
        const pid = Number(owner[1]);
        if (pid === process.pid || !processGone(pid)) continue;
      } else if (now - statSync(path).mtimeMs < UNNAMED_KEPT_MS) continue;
      rmSync(path, { recursive: true, force: true });
      removed++;
    } catch {
      // Another user's folder, or one removed meanwhile: not ours to report.
    }
  }
  return removed;
}
