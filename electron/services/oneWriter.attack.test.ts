/**
 * Issue 16, items 1 and 2 from the API's side: imports started from the window write on a connection of
 * their own, so reads never see uncommitted rows (a file rejected halfway changes no count, ever); the data
 * version moves when a write commits; a score job started during an import waits its turn, saying so.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ImportJob, RouteLensApi } from '../../shared/api.ts';
import { simulateToFile } from '../../fixtures/simulator/index.ts';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { createApi, openApiDatabase } from './api.ts';

const example = fileURLToPath(new URL('../../fixtures/canonical/example.jsonl', import.meta.url));
const tempDir = useSuiteTempDir();
let good: string;
let rejected: string;
const EPISODES = 1500;

/** A database holding example.jsonl (13 episodes), closed: the API opens it as serve and the window do. */
async function baseDb(): Promise<string> {
  const path = join(tempDir(), 'w.db');
  const db = openDatabase(path);
  await importPaths(db, [example]);
  db.close();
  return path;
}

const upload = (path: string, as: string) => ({ path: as, data_base64: readFileSync(path).toString('base64') });

interface Seen {
  reads: number;
  episodes: Set<number>;
  versions: Set<number>;
  /** Highest progress the job reported while we read: proof the import was under way. */
  progress: number;
  /** Milliseconds each read took: the import runs on the API's own thread, between its awaits. */
  latencies: number[];
}

function latency(seen: Seen): string {
  const l = [...seen.latencies].sort((a, b) => a - b);
  return `read latency p50 ${(l[Math.floor(l.length / 2)] ?? 0).toFixed(1)} ms, p99 ${(l[Math.floor(l.length * 0.99)] ?? 0).toFixed(0)} ms, max ${(l[l.length - 1] ?? 0).toFixed(0)} ms`;
}

/** Reads counts through the API as fast as it answers until the job ends. */
async function readWhileRunning(api: RouteLensApi, job: ImportJob): Promise<{ job: ImportJob; seen: Seen }> {
  const seen: Seen = { reads: 0, episodes: new Set(), versions: new Set(), progress: 0, latencies: [] };
  for (;;) {
    const now = await api.importStatus({ job: job.job });
    if (now.state !== 'running') return { job: now, seen };
    seen.progress = Math.max(seen.progress, now.progress.episodes);
    const t0 = performance.now();
    const info = await api.dbInfo({});
    const page = await api.queryEpisodes({ limit: 1 });
    const runs = await api.listRuns({});
    seen.latencies.push((performance.now() - t0) / 3);
    seen.reads += 3;
    seen.episodes.add(info.episodes).add(page.total).add(runs.reduce((a, r) => a + r.episodes, 0));
    seen.versions.add(info.data_version ?? -1);
    await new Promise((r) => setImmediate(r));
  }
}

beforeAll(async () => {
  const dir = tempDir();
  good = join(dir, 'sim.jsonl');
  await simulateToFile({ preset: 'scienceworld', episodes: EPISODES, seed: 1, out: good });
  rejected = join(dir, 'sim-bad.jsonl');
  appendFileSync(rejected, readFileSync(good));
  appendFileSync(rejected, '{"schema":"routelens/v1","run":"x","episode_id":\n');
}, 60_000);

describe('one writer, readers see committed data only', () => {
  it('a file rejected after many good episodes never shows in a count, during or after', async () => {
    const api = createApi(openApiDatabase(await baseDb()));
    const before = await api.dbInfo({});
    const { job, seen } = await readWhileRunning(api, await api.startImport({ files: [upload(rejected, 'bad.jsonl')] }));
    expect(job.state, job.error ?? '').toBe('done');
    expect(job.report?.files[0]).toMatchObject({ status: 'rejected', reason: expect.stringMatching(/^bad\.jsonl:1501: /) });
    expect(seen.progress, 'the import was read while under way').toBeGreaterThan(100);
    expect([...seen.episodes]).toEqual([before.episodes]);
    const after = await api.dbInfo({});
    expect(after).toMatchObject({ runs: before.runs, episodes: before.episodes, turns: before.turns });
    console.log(`attack: ${seen.reads.toLocaleString('en-US')} API reads during a rejected import of ${EPISODES.toLocaleString('en-US')} episodes (seen up to ${seen.progress.toLocaleString('en-US')} in flight), ${seen.episodes.size - 1} saw uncommitted rows`);
  }, 60_000);

  it('a good import shows only after it commits, and the data version moves then', async () => {
    const api = createApi(openApiDatabase(await baseDb()));
    const before = await api.dbInfo({});
    const lag = monitorEventLoopDelay({ resolution: 5 });
    lag.enable();
    const { job, seen } = await readWhileRunning(api, await api.startImport({ files: [upload(good, 'good.jsonl')] }));
    lag.disable();
    expect(job.state, job.error ?? '').toBe('done');
    expect(seen.progress).toBeGreaterThan(100);
    expect([...seen.episodes]).toEqual([before.episodes]);
    const after = await api.dbInfo({});
    expect(after.episodes).toBe(before.episodes + EPISODES);
    expect(after.data_version).not.toBe(before.data_version);
    // Unchanged data, unchanged version: the window refreshes only when something committed.
    expect((await api.dbInfo({})).data_version).toBe(after.data_version);
    console.log(`attack: ${seen.reads.toLocaleString('en-US')} API reads during a good import, ${seen.episodes.size - 1} saw uncommitted rows (${latency(seen)}; event loop held at most ${(lag.max / 1e6).toFixed(0)} ms, p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms); data version ${before.data_version} → ${after.data_version} on commit`);
  }, 60_000);

  it('a score job started during an import waits for it, then scores every turn', async () => {
    const api = createApi(openApiDatabase(await baseDb()));
    const importing = await api.startImport({ files: [upload(good, 'good.jsonl')] });
    const started = await api.startEstimatorJob({ kind: 'score', ep: 'cpu' });
    const phases = new Set<string>([started.phase]);
    const messages = new Set<string>([started.message]);
    let score = started;
    let imported: ImportJob = importing;
    while (score.state === 'running') {
      score = await api.estimatorJobStatus({ job: started.job });
      phases.add(score.phase);
      messages.add(score.message);
      imported = await api.importStatus({ job: importing.job });
      // It never writes while the import does.
      if (imported.state === 'running') expect(score.phase).toBe('waiting');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(imported.state).toBe('done');
    expect(score.state, score.error ?? '').toBe('done');
    expect(phases).toContain('waiting');
    expect([...messages]).toContain('waiting for the import to finish…');
    const info = await api.dbInfo({});
    const list = await api.listEstimators({});
    expect(list.estimators[0]?.scored_turns).toBe(info.turns);
    console.log(`attack: a score job started during an import waited (${[...phases].join(' → ')}), then scored ${info.turns.toLocaleString('en-US')} turns, 0 lock errors`);
  }, 120_000);
});
