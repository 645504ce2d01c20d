// Issue 36 item 3: an open window hears about writes without a reload. serve's /events stream says 'data' when
// another connection commits (here an import, as a CLI import or `routelens watch` would) and 'alert' for each new
// row of `alerts`; the timer behind it runs only while a window listens.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveEvent } from '../../shared/apiLive.ts';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { EVENTS_PATH, startServer, type RunningServer } from './serve.ts';

const example = fileURLToPath(new URL('../../fixtures/canonical/example.jsonl', import.meta.url));
const tempDir = useSuiteTempDir();
let server: RunningServer;
let dbPath: string;

beforeAll(async () => {
  dbPath = join(tempDir(), 'events.db');
  const db = openDatabase(dbPath);
  await importPaths(db, [example]);
  db.close();
  server = await startServer({ dbPath, staticDir: tempDir() });
});
afterAll(() => server.close());

/** Reads the stream's events as they come; `next` waits for one matching `want` (or fails after `ms`). */
function listen(signal: AbortSignal) {
  const url = new URL(EVENTS_PATH, server.url);
  const events: LiveEvent[] = [];
  const opened = fetch(url, { headers: { 'x-routelens-token': server.token }, signal }).then(async (res) => {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        buffered += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data) events.push(LiveEvent.parse(JSON.parse(data.slice(6))));
        }
      }
    })();
  });
  const next = async (want: (e: LiveEvent) => boolean, ms = 5000): Promise<LiveEvent> => {
    await opened;
    const until = Date.now() + ms;
    for (;;) {
      const i = events.findIndex(want);
      if (i >= 0) return events.splice(i, 1)[0] as LiveEvent;
      if (Date.now() > until) throw new Error(`no such event within ${ms} ms; heard ${JSON.stringify(events)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { opened, next, events };
}

async function until(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  return check();
}

describe('serve /events', () => {
  it('needs the token', async () => {
    const res = await fetch(new URL(EVENTS_PATH, server.url));
    expect(res.status).toBe(401);
  });

  it("pushes 'data' when an import commits and 'alert' for a new alert row; the timer stops when the window goes", async () => {
    expect(server.live?.polling).toBe(false); // nobody listens: nothing runs
    const abort = new AbortController();
    const stream = listen(abort.signal);
    await stream.opened;
    expect(await until(() => server.live?.polling === true)).toBe(true);

    // Another connection imports a second run into the same database.
    const other = join(tempDir(), 'second.jsonl');
    writeFileSync(other, JSON.stringify({
      schema: 'routelens/v1', run: 'pushed-run', episode_id: 'p1', task: { id: 'p', text: 'x' },
      turns: [{ t: 0, model: 'gpt-5', action: { type: 'message', text: 'hi' }, cost_usd: 0.01 }],
    }) + '\n');
    const writer = openDatabase(dbPath);
    try {
      await importPaths(writer, [other]);
      const data = await stream.next((e) => e.type === 'data');
      expect(data).toMatchObject({ type: 'data' });

      writer.prepare('INSERT INTO alerts (run, episode, rule, fired_at, message) VALUES (?, ?, ?, ?, ?)')
        .run('pushed-run', 'p1', 'rate>5/h', new Date().toISOString(), 'p1 spends $6.00/h (rate>5/h)');
      const alert = await stream.next((e) => e.type === 'alert');
      expect(alert).toMatchObject({ type: 'alert', alert: { run: 'pushed-run', episode: 'p1', rule: 'rate>5/h', message: 'p1 spends $6.00/h (rate>5/h)' } });
      expect(stream.events.filter((e) => e.type === 'alert')).toEqual([]); // once
    } finally {
      writer.close();
    }

    abort.abort();
    expect(await until(() => server.live?.polling === false)).toBe(true);
  });
});
