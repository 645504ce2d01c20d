/**
 * The folders "Follow folders…" remembers (followed_roots): listed on the API's read connection, changed on a writer
 * connection in the write queue's turn, like every other write (writeQueue.ts).
 */
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { FollowedFolder } from '../../shared/apiLive.ts';
import type { Db } from '../db/dbHandle.ts';
import { InputError } from '../services/serviceErrors.ts';

export function listFollowedRoots(db: Db): FollowedFolder[] {
  return db.prepare('SELECT path, added_at FROM followed_roots ORDER BY added_at, path').all() as FollowedFolder[];
}

/** The folder a user named, as stored: absolute, normalised, and a folder that exists now (else an input error). */
export function checkedFolder(path: string): string {
  const trimmed = path.trim();
  if (!isAbsolute(trimmed)) throw new InputError(`${JSON.stringify(trimmed)} is not an absolute path: give the whole path of the folder`);
  const folder = resolve(trimmed);
  let isFolder: boolean;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    throw new InputError(`no folder at ${folder}`);
  }
  if (!isFolder) throw new InputError(`${folder} is a file, not a folder: follow the folder it is in`);
  return folder;
}

export function addFollowedRoots(writer: Db, folders: readonly string[], now = new Date()): void {
  const insert = writer.prepare('INSERT OR IGNORE INTO followed_roots (path, added_at) VALUES (?, ?)');
  writer.transaction(() => {
    for (const folder of folders) insert.run(folder, now.toISOString());
  })();
}

/** Whether the folder was followed. Its files already imported stay, as a one-shot import's would. */
export function removeFollowedRoot(writer: Db, path: string): boolean {
  return writer.prepare('DELETE FROM followed_roots WHERE path = ?').run(path).changes > 0;
}
