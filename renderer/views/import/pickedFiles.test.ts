import { describe, expect, it } from 'vitest';
import {
  collectDrop,
  fromFileList,
  isHiddenPath,
  mergeFiles,
  readAllEntries,
  type DirectoryEntryLike,
  type EntryLike,
  type FileEntryLike,
} from './pickedFiles.ts';

/** A fake FileSystemFileEntry. */
function fileEntry(name: string, text = name): FileEntryLike {
  return { name, isFile: true, isDirectory: false, file: (ok) => ok(new File([text], name)) };
}

/** A fake FileSystemDirectoryEntry whose reader hands out `batch` entries per call, then an empty batch (like Chromium's 100). */
function dirEntry(name: string, children: EntryLike[], batch = 2): DirectoryEntryLike & { calls: number } {
  const dir = {
    name,
    isFile: false,
    isDirectory: true,
    calls: 0,
    createReader: () => {
      let offset = 0;
      return {
        readEntries: (ok: (entries: EntryLike[]) => void) => {
          dir.calls++;
          const next = children.slice(offset, offset + batch);
          offset += next.length;
          setTimeout(() => ok(next), 0);
        },
      };
    },
  };
  return dir;
}

function brokenDir(name: string): DirectoryEntryLike {
  return {
    name,
    isFile: false,
    isDirectory: true,
    createReader: () => ({ readEntries: (_ok, fail) => fail?.(new DOMException('denied', 'NotReadableError')) }),
  };
}

describe('walking dropped folders', () => {
  it('reads a folder until readEntries returns no more entries', async () => {
    const dir = dirEntry('run', [fileEntry('a.jsonl'), fileEntry('b.jsonl'), fileEntry('c.jsonl'), fileEntry('d.jsonl'), fileEntry('e.jsonl')]);
    const entries = await readAllEntries(dir);
    expect(entries.map((e) => e.name)).toEqual(['a.jsonl', 'b.jsonl', 'c.jsonl', 'd.jsonl', 'e.jsonl']);
    expect(dir.calls).toBe(4); // 2 + 2 + 1, then the empty batch that ends it
  });

  it('keeps each file’s path relative to what was dropped, so a run folder keeps its layout', async () => {
    const run = dirEntry('run-7', [
      dirEntry('trajs', [dirEntry('a', [fileEntry('a.traj.json', '{"x":1}')])]),
      dirEntry('logs', [dirEntry('a', [fileEntry('report.json')])]),
      fileEntry('.DS_Store'),
      dirEntry('.git', [fileEntry('config')]),
    ]);
    const picked = await collectDrop([
      { entry: run, file: null },
      { entry: fileEntry('loose.jsonl'), file: new File(['{}'], 'loose.jsonl') },
    ]);
    expect(picked.files.map((f) => f.path)).toEqual(['run-7/logs/a/report.json', 'run-7/trajs/a/a.traj.json', 'loose.jsonl']);
    expect(await picked.files[1]?.file.text()).toBe('{"x":1}');
    expect(picked.hidden).toBe(2);
    expect(picked.unreadable).toEqual([]);
  });

  it('keeps a project’s .crush folder, where Crush keeps its session database', async () => {
    const project = dirEntry('proj', [dirEntry('.crush', [fileEntry('crush.db'), fileEntry('crush.db-wal')]), dirEntry('.git', [fileEntry('HEAD')])]);
    const picked = await collectDrop([{ entry: project, file: null }]);
    expect(picked.files.map((f) => f.path)).toEqual(['proj/.crush/crush.db', 'proj/.crush/crush.db-wal']);
    expect(picked.hidden).toBe(1);
  });

  it('uses the file when the browser gives no entry (a synthetic drop), and lists what it cannot read', async () => {
    const picked = await collectDrop([
      { entry: null, file: new File(['{}'], 'x.jsonl') },
      { entry: null, file: new File([''], '.hidden') },
      { entry: dirEntry('ok', [brokenDir('locked'), fileEntry('y.jsonl')]), file: null },
    ]);
    expect(picked.files.map((f) => f.path)).toEqual(['x.jsonl', 'ok/y.jsonl']);
    expect(picked.hidden).toBe(1);
    expect(picked.unreadable).toEqual(['ok/locked']);
  });
});

describe('picked files', () => {
  it('takes the folder picker’s relative paths and leaves hidden files out', () => {
    const inFolder = new File(['a'], 'a.traj.json');
    Object.defineProperty(inFolder, 'webkitRelativePath', { value: 'run/trajs/a/a.traj.json' });
    const dsStore = new File([''], '.DS_Store');
    Object.defineProperty(dsStore, 'webkitRelativePath', { value: 'run/.DS_Store' });
    const picked = fromFileList([inFolder, dsStore, new File(['b'], 'b.jsonl')]);
    expect(picked.files.map((f) => f.path)).toEqual(['run/trajs/a/a.traj.json', 'b.jsonl']);
    expect(picked.hidden).toBe(1);
  });

  it('knows hidden paths', () => {
    expect(isHiddenPath('.DS_Store')).toBe(true);
    expect(isHiddenPath('run/.cache/x.json')).toBe(true);
    expect(isHiddenPath('run/a.b.jsonl')).toBe(false);
    expect(isHiddenPath('proj/.crush/crush.db')).toBe(false);
  });

  it('merges a second choice, the later file winning a path chosen twice, sorted by path', () => {
    const first = new File(['1'], 'b.jsonl');
    const second = new File(['2'], 'b.jsonl');
    const merged = mergeFiles([{ file: first, path: 'b.jsonl' }], [{ file: second, path: 'b.jsonl' }, { file: first, path: 'a.jsonl' }]);
    expect(merged.map((f) => f.path)).toEqual(['a.jsonl', 'b.jsonl']);
    expect(merged[1]?.file).toBe(second);
  });
});
