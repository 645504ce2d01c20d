// Issue 38 item 7, uploads: paths that cannot all be written into one folder (a file `a` and a file `a/b`, a name
// past 255 bytes, one path twice) answered HTTP 500 quoting serve's temporary folder, or overwrote a file silently;
// now they are a 400 that names the paths. An upload left in the temporary folder by a serve killed mid-import
// stayed there for good; the next start removes it (and leaves a running process's upload alone).
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { spawnServe } from '../testing/serveChild.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { startServer } from './serve.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/routelens.mjs');
const example = join(root, 'fixtures/canonical/example.jsonl');
const tempDir = useSuiteTempDir();
const TOKEN = 'upload-attack-token';

const file = (path: string) => ({ path, data_base64: readFileSync(example).toString('base64') });

async function post(url: string, token: string, name: string, body: unknown): Promise<{ status: number; text: string }> {
  const r = await fetch(new URL(`/api/${name}`, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-routelens-token': token },
    body: JSON.stringify(body),
  });
  return { status: r.status, text: await r.text() };
}

const ownUploads = (dir: string, pid: number): string[] => readdirSync(dir).filter((n) => n.startsWith(`routelens-upload-${pid}-`));

describe('upload paths that cannot share one folder', () => {
  it('answer 400 naming the paths, never the temporary folder, and leave nothing behind', async () => {
    const dbPath = join(tempDir(), 'u.db');
    openDatabase(dbPath).close();
    const server = await startServer({ dbPath, token: TOKEN, staticDir: tempDir() });
    try {
      const cases: [string[], RegExp][] = [
        [['a', 'a/b'], /file paths "a" and "a\/b" clash: "a" would be both a file and a folder/],
        [['logs/a/b.jsonl', 'logs/a'], /clash: "logs\/a" would be both a file and a folder/],
        [['x.jsonl', './x.jsonl'], /is given twice/],
        [[`${'é'.repeat(128)}.jsonl`], /has a name of 262 bytes \(a file system takes 255\)/],
        [[Array.from({ length: 16 }, (_, i) => `folder-${i}-${'n'.repeat(40)}`).join('/')], /is longer than 768 bytes/],
      ];
      for (const [paths, reason] of cases) {
        const r = await post(server.url, TOKEN, 'startImport', { files: paths.map(file) });
        expect(r.status, `${paths.join(' + ')}: ${r.text}`).toBe(400);
        const body = JSON.parse(r.text) as { error: { kind: string; message: string } };
        expect(body.error.kind).toBe('input');
        expect(body.error.message).toMatch(reason);
        expect(r.text).not.toContain(tmpdir());
        expect(r.text).not.toContain('routelens-upload-');
      }
      expect(ownUploads(tmpdir(), process.pid)).toEqual([]);
      // The same files laid out so they fit are imported.
      const ok = await post(server.url, TOKEN, 'startImport', { files: ['a.jsonl', 'b/a.jsonl'].map(file) });
      expect(ok.status, ok.text).toBe(200);
      const job = (JSON.parse(ok.text) as { value: { job: number } }).value.job;
      let state = 'running';
      while (state === 'running') {
        await new Promise((r) => setTimeout(r, 50));
        state = (JSON.parse((await post(server.url, TOKEN, 'importStatus', { job })).text) as { value: { state: string } }).value.state;
      }
      expect(state).toBe('done');
    } finally {
      await server.close();
    }
  }, 60_000);
});

function serve(dbPath: string, tmp: string): ReturnType<typeof spawnServe> {
  return spawnServe(bin, root, dbPath, { ...process.env, TMPDIR: tmp });
}

describe('an upload left behind by a killed serve', () => {
  it('is removed at the next start; a running process’s upload is not', async () => {
    const dir = tempDir();
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const dbPath = join(dir, 'k.db');
    const lock = openDatabase(dbPath);
    const running = join(tmp, `routelens-upload-${process.pid}-Live01`);
    mkdirSync(join(running, 'upload'), { recursive: true });

    const first = serve(dbPath, tmp);
    const url = await first.url;
    const token = url.searchParams.get('token') ?? '';
    // Our write lock holds the import in its queue, so serve is killed while the upload waits to be read.
    lock.exec('BEGIN IMMEDIATE');
    const started = await post(url.toString(), token, 'startImport', { files: [file('kept/example.jsonl')] });
    expect(started.status, started.text).toBe(200);
    const left = readdirSync(tmp).filter((n) => n.startsWith('routelens-upload-') && join(tmp, n) !== running);
    expect(left).toHaveLength(1);
    const exited = new Promise((r) => first.child.on('exit', r));
    first.child.kill('SIGKILL');
    await exited;
    lock.exec('ROLLBACK');
    lock.close();
    expect(existsSync(join(tmp, left[0] as string, 'upload', 'kept', 'example.jsonl'))).toBe(true);

    const second = serve(dbPath, tmp);
    try {
      await second.url;
      expect(existsSync(join(tmp, left[0] as string))).toBe(false);
      expect(existsSync(running)).toBe(true);
    } finally {
      const stopped = new Promise((r) => second.child.on('exit', r));
      second.child.kill('SIGTERM');
      await stopped;
    }
  }, 120_000);
});
