// Issue 36 item 1 in serve: the folders "Follow folders…" remembers are followed while serve runs — a log an agent
// writes there is imported without anyone asking — followed again when the list changes, and let go when serve stops.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { startServer, type RunningServer } from '../server/serve.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { createFolderFollower } from './folderFollower.ts';

const tempDir = useSuiteTempDir();

async function until<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(server: RunningServer, name: string, input: unknown): Promise<{ ok: boolean; value?: unknown }> {
  const res = await fetch(new URL(`/api/${name}`, server.url), {
    method: 'POST', headers: { 'x-routelens-token': server.token, 'content-type': 'application/json' }, body: JSON.stringify(input),
  });
  return (await res.json()) as { ok: boolean; value?: unknown };
}

const session = (run: string) =>
  `${JSON.stringify({ schema: 'routelens/v1', run, episode_id: 'e1', task: { id: 't', text: 'x' }, turns: [{ t: 0, model: 'gpt-5', action: { type: 'message', text: 'hi' }, cost_usd: 0.01 }] })}\n`;

describe('serve follows the remembered folders', () => {
  it('imports what an agent writes in a folder added from the window, follows it again after a restart, and stops with serve', async () => {
    const dbPath = join(tempDir(), 'follow.db');
    openDatabase(dbPath).close();
    const folder = join(tempDir(), 'agent-logs');
    mkdirSync(folder);
    const lines: string[] = [];
    let server = await startServer({ dbPath, staticDir: tempDir(), onWatchEvent: (e) => lines.push(e.line) });
    try {
      expect(server.following?.paths).toEqual([]);
      expect(await call(server, 'followFolders', { paths: [folder] })).toMatchObject({ ok: true });
      await until(() => server.following?.paths ?? [], (p) => p.length === 1);
      expect(server.following?.paths).toEqual([folder]);
      writeFileSync(join(folder, 'one.jsonl'), session('written-while-served'));
      const runs = await until(async () => ((await call(server, 'listRuns', {})).value as { name: string }[]).map((r) => r.name), (n) => n.length > 0);
      expect(runs).toEqual(['written-while-served']);
    } finally {
      await server.close();
    }
    expect(server.following?.paths).toEqual([]);

    // A new serve follows the remembered folder from the start.
    server = await startServer({ dbPath, staticDir: tempDir() });
    try {
      await until(() => server.following?.paths ?? [], (p) => p.length === 1);
      expect(server.following?.paths).toEqual([folder]);
      writeFileSync(join(folder, 'two.jsonl'), session('written-after-restart'));
      const runs = await until(async () => ((await call(server, 'listRuns', {})).value as { name: string }[]).map((r) => r.name), (n) => n.length > 1);
      expect([...runs].sort()).toEqual(['written-after-restart', 'written-while-served']);
      // Removed from the list: no longer followed.
      expect(await call(server, 'unfollowFolder', { path: folder })).toMatchObject({ ok: true, value: [] });
      await until(() => server.following?.paths ?? [], (p) => p.length === 0);
      expect(server.following?.paths).toEqual([]);
    } finally {
      await server.close();
    }
  }, 30_000);

  it('takes starts and stops in turn, skips a folder that is gone, and does nothing after stop', async () => {
    const started: string[][] = [];
    const stopped: string[][] = [];
    const said: string[] = [];
    const here = tempDir();
    let roots = [here, join(here, 'gone')];
    const follower = createFolderFollower({
      dbPath: ':memory:',
      listRoots: () => roots,
      onEvent: (e) => said.push(e.line),
      start: async (o) => {
        started.push(o.paths);
        await new Promise((r) => setTimeout(r, 20));
        return { paths: o.paths, stop: async () => void stopped.push(o.paths) };
      },
    });
    await Promise.all([follower.restart(), follower.restart()]);
    expect(started).toEqual([[here], [here]]);
    expect(stopped).toEqual([[here]]); // the first was stopped before the second started
    expect(said.some((l) => l.includes('gone'))).toBe(true);
    roots = [];
    await follower.restart();
    expect(follower.paths).toEqual([]);
    await follower.stop();
    roots = [here];
    await follower.restart();
    expect(started).toHaveLength(2);
  });
});
