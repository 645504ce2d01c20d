// Issue 38 item 7, through serve as a browser or a script reaches it: a search for a NUL character listed every
// episode (SQLite's LIKE ends its pattern at a NUL), and a log uploaded as UTF-16 was "not a log RouteLens reads".
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { startServer } from './serve.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const example = join(root, 'fixtures/canonical/example.jsonl');
const tempDir = useSuiteTempDir();
const TOKEN = 'hostile-queries-token';
let dbPath: string;

beforeAll(async () => {
  dbPath = join(tempDir(), 'q.db');
  const db = openDatabase(dbPath);
  await importPaths(db, [example]);
  db.close();
}, 60_000);

async function call<T>(url: string, name: string, body: unknown): Promise<{ status: number; value: T }> {
  const r = await fetch(new URL(`/api/${name}`, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-routelens-token': TOKEN },
    body: JSON.stringify(body),
  });
  return { status: r.status, value: ((await r.json()) as { value: T }).value };
}

describe('hostile searches and encodings through serve', () => {
  it('a search for NUL characters matches no episode (it matched all 13)', async () => {
    const server = await startServer({ dbPath, token: TOKEN, staticDir: tempDir() });
    try {
      const all = await call<{ total: number }>(server.url, 'queryEpisodes', {});
      expect(all.value.total).toBe(13);
      for (const search of ['\u0000', '\u0000\u0000\u0000', ' \u0000 ', 'swe\u0000']) {
        const r = await call<{ total: number }>(server.url, 'queryEpisodes', { search });
        expect(r.status).toBe(200);
        expect(r.value.total, JSON.stringify(search)).toBe(0);
      }
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a log uploaded as UTF-16 (as PowerShell 5 saves it) is told it is UTF-16, by the name it was dropped as', async () => {
    const server = await startServer({ dbPath, token: TOKEN, staticDir: tempDir() });
    try {
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(readFileSync(example, 'utf8').replace(/\n/g, '\r\n'), 'utf16le')]);
      const started = await call<{ job: number }>(server.url, 'startImport', { files: [{ path: 'logs/run.jsonl', data_base64: utf16.toString('base64') }] });
      expect(started.status).toBe(200);
      let job: { state: string; report: { files: { status: string; reason?: string }[] } | null };
      do {
        await new Promise((r) => setTimeout(r, 50));
        job = (await call<typeof job>(server.url, 'importStatus', { job: started.value.job })).value;
      } while (job.state === 'running');
      expect(job.report?.files, JSON.stringify(job)).toEqual([expect.objectContaining({ status: 'rejected', reason: 'logs/run.jsonl:1: UTF-16 text: save it as UTF-8' })]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
