/**
 * What the user chose or dropped, as files with the path relative to what they picked: a dropped run folder
 * keeps `trajs/<id>/<id>.traj.json` beside `logs/<id>/report.json`, which the core needs to find sidecars.
 * Hidden files and folders (`.DS_Store`, `.git/`) are left out here, as `routelens import` leaves them out.
 *
 * Dropped folders are walked through the File and Directory Entries API. The walker is written against the
 * few members it uses (`EntryLike`), which the DOM's FileSystemEntry types satisfy, so a test can hand it
 * fake entries (a synthetic drop event cannot carry a folder).
 */

export interface PickedFile {
  file: File;
  /** Relative path with `/` separators, e.g. `run-7/trajs/a/a.traj.json`. */
  path: string;
}

export interface Picked {
  files: PickedFile[];
  /** Hidden files (or hidden folders, one each) that were left out. */
  hidden: number;
  /** Dropped items the browser would not hand over (a folder without read permission, say). */
  unreadable: string[];
}

export interface EntryLike {
  readonly name: string;
  readonly isFile: boolean;
  readonly isDirectory: boolean;
}

export interface FileEntryLike extends EntryLike {
  file(ok: (file: File) => void, fail?: (err: DOMException) => void): void;
}

export interface DirectoryReaderLike {
  readEntries(ok: (entries: EntryLike[]) => void, fail?: (err: DOMException) => void): void;
}

export interface DirectoryEntryLike extends EntryLike {
  createReader(): DirectoryReaderLike;
}

/** One item of a drop, captured while the drop event runs (a DataTransfer is emptied once the handler returns). */
export interface DropItem {
  entry: EntryLike | null;
  file: File | null;
}

const isFileEntry = (e: EntryLike): e is FileEntryLike => e.isFile && 'file' in e;
const isDirectoryEntry = (e: EntryLike): e is DirectoryEntryLike => e.isDirectory && 'createReader' in e;

/** Hidden folders that hold agent logs, kept: Crush writes its sessions to `<project>/.crush/crush.db`. */
const LOG_FOLDERS = new Set(['.crush']);
const isHiddenName = (name: string): boolean => name.startsWith('.') && !LOG_FOLDERS.has(name);

/** True when any segment of the path starts with a dot (`.DS_Store`, `.git/config`, `run/.cache/x`), bar LOG_FOLDERS. */
export function isHiddenPath(path: string): boolean {
  return path.split('/').some(isHiddenName);
}

/** Files from an `<input type=file>` (a folder picker fills `webkitRelativePath`). */
export function fromFileList(files: Iterable<File>): Picked {
  const out: Picked = { files: [], hidden: 0, unreadable: [] };
  for (const file of files) {
    const path = (file.webkitRelativePath || file.name).replace(/\\/g, '/');
    if (isHiddenPath(path)) out.hidden++;
    else out.files.push({ file, path });
  }
  return out;
}

/** Adds `more` to `files`; a path chosen twice keeps the later file. Sorted by path, as the core imports them. */
export function mergeFiles(files: PickedFile[], more: PickedFile[]): PickedFile[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  for (const f of more) byPath.set(f.path, f);
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Must run inside the drop handler: afterwards the browser no longer hands out the items. */
export function snapshotDrop(data: DataTransfer): DropItem[] {
  const items: DropItem[] = [];
  for (const item of Array.from(data.items)) {
    if (item.kind !== 'file') continue;
    items.push({ entry: item.webkitGetAsEntry(), file: item.getAsFile() });
  }
  // Some sources fill `files` but not `items`.
  if (items.length === 0) for (const file of Array.from(data.files)) items.push({ entry: null, file });
  return items;
}

function fileOf(entry: FileEntryLike): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

function readBatch(reader: DirectoryReaderLike): Promise<EntryLike[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

/** Every entry of a folder: `readEntries` hands them out in batches (100 in Chromium) until it returns none. */
export async function readAllEntries(dir: DirectoryEntryLike): Promise<EntryLike[]> {
  const reader = dir.createReader();
  const all: EntryLike[] = [];
  for (;;) {
    const batch = await readBatch(reader);
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

async function walk(entry: EntryLike, prefix: string, out: Picked): Promise<void> {
  const path = prefix + entry.name;
  if (isHiddenName(entry.name)) {
    // A hidden folder counts as one left-out item: walking .git only to count it is not worth the time.
    out.hidden++;
    return;
  }
  try {
    if (isDirectoryEntry(entry)) {
      const children = await readAllEntries(entry);
      for (const child of children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) await walk(child, `${path}/`, out);
    } else if (isFileEntry(entry)) {
      out.files.push({ file: await fileOf(entry), path });
    }
  } catch {
    out.unreadable.push(path);
  }
}

/** The files of a drop, folders walked, with paths relative to the dropped items. */
export async function collectDrop(items: DropItem[]): Promise<Picked> {
  const out: Picked = { files: [], hidden: 0, unreadable: [] };
  for (const item of items) {
    if (item.entry && isDirectoryEntry(item.entry)) {
      await walk(item.entry, '', out);
    } else if (item.file) {
      const path = item.file.name;
      if (isHiddenPath(path)) out.hidden++;
      else out.files.push({ file: item.file, path });
    } else if (item.entry) {
      await walk(item.entry, '', out);
    }
  }
  return out;
}
