// The API's analyses run in a worker thread: other calls answer while one computes, the answers are the
// direct call's, errors keep their kind, and an import made meanwhile shows in the next answer.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiftResult, ParetoResult, type AnalysisRequest } from '../../shared/analysisResults.ts';
import type { RouteLensApi } from '../../shared/api.ts';
import { simulate } from '../../fixtures/simulator/index.ts';
import type { Db } from '../db/dbHandle.ts';
import { simulatedDb } from '../estimator/simulatedDb.testSupport.ts';
import { importPaths } from '../importers/pipeline.ts';
import { createApi } from '../services/api.ts';
import { InputError, NotFoundError } from '../services/serviceErrors.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { AnalysisThread } from './analysisThread.ts';
import { runAnalysis } from './runAnalysis.ts';
import { replayPolicies } from '../replay/replayRun.ts';
import { policyDiff } from '../replay/policyDiff.ts';
import { compare } from '../compare/compare.ts';

const tempDir = useSuiteTempDir();
let db: Db;
let path: string;
let dir: string;
let api: RouteLensApi;

beforeAll(async () => {
  dir = tempDir();
  ({ db, path } = await simulatedDb(dir, 'scienceworld', 1500, 7));
  api = createApi(db, path);
}, 120_000);

afterAll(() => db?.close());

describe('analyses in a worker thread', () => {
  it('answers listRuns while an analysis computes, and the analysis as a direct call would', async () => {
    const request: AnalysisRequest = { id: 'lift', runs: ['sw-mtrouter', 'sw-random', 'sw-gpt-5'] };
    const t0 = performance.now();
    const analysis = api.runAnalysis(request).then((r) => ({ r, at: performance.now() - t0 }));
    const runs = api.listRuns({}).then((r) => ({ r, at: performance.now() - t0 }));
    const [a, l] = await Promise.all([analysis, runs]);
    expect(l.r.map((r) => r.name)).toContain('sw-mtrouter');
    // The worker starts, loads ~25k turns and bootstraps two runs and their pool: hundreds of ms at least.
    // listRuns, made after the analysis was asked for, answers long before it; run on this thread, it could
    // only start once the analysis had finished.
    expect(a.at).toBeGreaterThan(100);
    expect(l.at).toBeLessThan(a.at / 2);
    expect(a.r).toEqual(JSON.parse(JSON.stringify(await runAnalysis(db, request))));
    const lift = LiftResult.parse(a.r.result);
    expect(lift.by_run?.map((b) => b.run)).toEqual(['sw-mtrouter', 'sw-random']);
    expect(lift.by_run_single_model).toEqual([{ run: 'sw-gpt-5', model: 'gpt-5' }]);
  }, 60_000);

  it('compares two runs there, with the direct call\'s answer; a side naming no run is an input error', async () => {
    const ids = new Map((await api.listRuns({})).map((r) => [r.name, r.id]));
    const input = { a: { runIds: [ids.get('sw-random')!] }, b: { runIds: [ids.get('sw-mtrouter')!] }, bootstrap: 200, seed: 3 };
    const t0 = performance.now();
    const compared = api.compare(input).then((r) => ({ r, at: performance.now() - t0 }));
    const runs = api.listRuns({}).then((r) => ({ r, at: performance.now() - t0 }));
    const [c, l] = await Promise.all([compared, runs]);
    expect(l.at).toBeLessThan(c.at);
    expect(c.r).toEqual(JSON.parse(JSON.stringify(compare(db, input))));
    expect(c.r.pairing.paired_tasks).toBeGreaterThan(0);
    await expect(api.compare({ ...input, b: { runIds: [987654] } })).rejects.toBeInstanceOf(InputError);
  }, 60_000);

  it('replays policies and diffs them there, with the direct call’s answers, while other calls answer', async () => {
    const input = { policies: ['logged', 'cheapest', 'random:3'], bootstrap: 50, seed: 2 };
    const t0 = performance.now();
    const replay = api.replay(input).then((r) => ({ r, at: performance.now() - t0 }));
    const runs = api.listRuns({}).then((r) => ({ r, at: performance.now() - t0 }));
    const [a, l] = await Promise.all([replay, runs]);
    expect(l.at).toBeLessThan(a.at);
    expect(a.r).toEqual(JSON.parse(JSON.stringify(replayPolicies(db, { ...input, runIds: [] }))));
    expect(a.r.policies.map((p) => p.policy)).toEqual(['logged', 'cheapest', 'random:3']);
    const diff = { kind: 'policies' as const, a: 'logged', b: 'cheapest', limit: 20 };
    expect(await api.policyDiff(diff)).toEqual(JSON.parse(JSON.stringify(policyDiff(db, diff))));
    await expect(api.replay({ policies: ['argmax'], runIds: [99_999] })).rejects.toThrow(InputError);
  }, 60_000);

  it('keeps the kind of an error: an unknown run is the caller’s, a missing episode not found', async () => {
    await expect(api.runAnalysis({ id: 'pareto', runs: ['no-such-run'] })).rejects.toThrow(InputError);
    await expect(api.runAnalysis({ id: 'targets', episode: 'no-such-episode' })).rejects.toThrow(NotFoundError);
    await expect(api.exportFigure({ request: { id: 'pareto', runs: ['no-such-run'] }, format: 'svg' })).rejects.toThrow(InputError);
  }, 60_000);

  it('writes the figure file there, the same bytes as here', async () => {
    const file = await api.exportFigure({ request: { id: 'error-recovery' }, format: 'svg', theme: 'dark', width: 640 });
    expect(file.filename).toMatch(/^error-recovery_all-runs_\d{4}-\d{2}-\d{2}\.svg$/);
    const svg = Buffer.from(file.data_base64, 'base64').toString('utf8');
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg).toContain('sw-mtrouter');
  }, 60_000);

  it('sees an import committed on the API’s connection in its next answer', async () => {
    const before = await api.runAnalysis({ id: 'pareto' });
    const jsonl = join(dir, 'more.jsonl');
    writeFileSync(jsonl, [...simulate({ preset: 'hle', episodes: 40, seed: 3 })].map((e) => JSON.stringify(e)).join('\n') + '\n');
    await importPaths(db, [jsonl]);
    const after = await api.runAnalysis({ id: 'pareto' });
    const names = (r: typeof before) => ParetoResult.parse(r.result).points.map((p) => p.run);
    expect(names(before).some((n) => n.startsWith('hle-'))).toBe(false);
    expect(names(after).some((n) => n.startsWith('hle-'))).toBe(true);
    expect(after).toEqual(JSON.parse(JSON.stringify(await runAnalysis(db, { id: 'pareto' }))));
  }, 60_000);

  it('starts a new worker after one stopped, and fails jobs under way when it stops', async () => {
    const thread = new AnalysisThread(path, 50);
    const first = await thread.run({ id: 'usage-ratio' });
    const interrupted = expect(thread.run({ id: 'lift' })).rejects.toThrow('analysis worker stopped');
    await thread.close();
    await interrupted;
    expect(await thread.run({ id: 'usage-ratio' })).toEqual(first);
    // Idle past 50 ms: stopped, and started again for the next job.
    await new Promise((r) => setTimeout(r, 200));
    expect(await thread.run({ id: 'usage-ratio' })).toEqual(first);
    await thread.close();
  }, 60_000);
});
