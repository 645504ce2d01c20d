/**
 * Issue 16, item 2 from serve's side: while another process (a CLI import) holds the database's write lock,
 * `serve` starts and answers every read with committed data only, and an import started from the browser
 * waits its turn (saying so) instead of failing on "database is locked".
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { postApi } from '../testing/serveChild.ts';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { simulateToFile } from '../../fixtures/simulator/index.ts';
import type { DbInfo, ImportJob } from '../../shared/api.ts';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useTempDir } from '../testing/tmp.ts';
import { isBusyError } from '../db/database.ts';
import { startServer } from './serve.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const example = join(root, 'fixtures/canonical/example.jsonl');
const tempDir = useTempDir();
const EPISODES = 6000;

function writeLocked(dbPath: string): boolean {
  const probe = new Database(dbPath, { fileMustExist: true, timeout: 0 });
  try {
    probe.exec('BEGIN IMMEDIATE');
    probe.exec('ROLLBACK');
    return false;
  } catch (e) {
    if (isBusyError(e)) return true;
    throw e;
  } finally {
    probe.close();
  }
}

async function post(port: number, token: string, name: string, body: unknown): Promise<{ status: number; json: { ok: boolean; value?: unknown; error?: { kind: string; message: string } } }> {
  const r = await postApi(port, token, name, body);
  return { status: r.status, json: JSON.parse(r.text) };
}

describe('serve while another process imports', () => {
  it('starts, answers every read with committed data, and queues its own import behind the lock', async () => {
    const dir = tempDir();
    const dbPath = join(dir, 'busy.db');
    const db = openDatabase(dbPath);
    await importPaths(db, [example]);
    db.close();
    const big = join(dir, 'big.jsonl');
    await simulateToFile({ preset: 'scienceworld', episodes: EPISODES, seed: 1, out: big });

    const child = spawn(process.execPath, [join(root, 'bin/routelens.mjs'), 'import', '--db', dbPath, big], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    let gone = false;
    const exited = new Promise<number | null>((r) =>
      child.on('exit', (code) => {
        gone = true;
        r(code);
      }),
    );
    try {
      const waitFrom = Date.now();
      while (!writeLocked(dbPath)) {
        if (gone || Date.now() - waitFrom > 30_000) throw new Error(`the CLI import never took the write lock: ${stderr.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 20));
      }

      const t0 = performance.now();
      const server = await startServer({ dbPath, staticDir: dir, token: 't'.repeat(48) });
      const startMs = performance.now() - t0;
      // Started without waiting for the lock: the other process still holds it (a writer open would have waited).
      const lockedAtStart = writeLocked(dbPath);
      const port = Number(new URL(server.url).port);
      try {
        // The browser's own import, queued behind the other process's lock.
        const upload = { files: [{ path: 'case1.xml', data_base64: readFileSync(join(root, 'fixtures/samples/uno/case1-hyperbola-decomp-repair.xml')).toString('base64') }] };
        const started = await post(port, server.token, 'startImport', upload);
        expect(started.status).toBe(200);
        const job = started.json.value as ImportJob;

        let reads = 0;
        let failures = 0;
        const latencies: number[] = [];
        let slowest = { ms: 0, call: '', episodes: 0 };
        const episodesSeen = new Set<number>();
        const waiting = new Set<string>();
        let lockedReads = 0;
        while (!gone) {
          for (const [name, body] of [['dbInfo', {}], ['listRuns', {}], ['queryEpisodes', { limit: 5 }], ['importStatus', { job: job.job }]] as const) {
            const s = performance.now();
            const r = await post(port, server.token, name, body);
            const ms = performance.now() - s;
            latencies.push(ms);
            if (ms > slowest.ms) slowest = { ms, call: name, episodes: Math.max(...episodesSeen, 0) };
            reads++;
            if (r.status !== 200 || !r.json.ok) failures++;
            if (name === 'dbInfo' && r.json.ok) episodesSeen.add((r.json.value as DbInfo).episodes);
            if (name === 'importStatus' && r.json.ok) {
              const j = r.json.value as ImportJob;
              if (j.waiting) waiting.add(j.waiting);
            }
          }
          lockedReads++;
        }
        expect(await exited, stderr).toBe(0);
        let finished: ImportJob = job;
        while (finished.state === 'running') {
          finished = (await post(port, server.token, 'importStatus', { job: job.job })).json.value as ImportJob;
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(lockedAtStart).toBe(true);
        expect(failures).toBe(0);
        expect(lockedReads).toBeGreaterThan(5);
        // Before the other process commits, its rows are invisible: every count is a committed state, never a part.
        const extra = finished.report?.files[0]?.episodes ?? 0;
        for (const n of episodesSeen) expect([13, 13 + EPISODES, 13 + EPISODES + extra]).toContain(n);
        expect(episodesSeen).toContain(13);
        expect([...waiting].join(' | ')).toMatch(/waiting for another process writing to this database/);
        expect(finished.state, finished.error ?? '').toBe('done');
        expect(finished.report?.files[0]).toMatchObject({ status: 'imported' });
        const info = (await post(port, server.token, 'dbInfo', {})).json.value as DbInfo;
        expect(info.episodes).toBe(13 + EPISODES + extra);
        latencies.sort((a, b) => a - b);
        const p50 = latencies[Math.floor(latencies.length / 2)] ?? 0;
        const max = latencies[latencies.length - 1] ?? 0;
        console.log(`attack: serve started in ${startMs.toFixed(0)} ms while a CLI import held the write lock; ${reads.toLocaleString('en-US')} API calls during it, ${failures} errors, ${[...episodesSeen].filter((n) => n !== 13 && n < 13 + EPISODES).length} saw uncommitted rows (p50 ${p50.toFixed(1)} ms, max ${max.toFixed(0)} ms: ${slowest.call} with ${slowest.episodes} episodes seen); its own import waited, then imported`);
      } finally {
        await server.close();
      }
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  }, 120_000);
});
