import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ImportJob, RouteLensApi } from '../../shared/api.ts';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { createApi } from './api.ts';
import { dispatch } from './dispatch.ts';
import { safeRelativePath } from './importJobs.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const tempDir = useTempDir();
const upload = (rel: string, as = rel) => ({ path: as, data_base64: readFileSync(join(fixtures, rel)).toString('base64') });

async function finish(api: RouteLensApi, job: ImportJob): Promise<ImportJob> {
  for (;;) {
    const now = await api.importStatus({ job: job.job });
    if (now.state !== 'running') return now;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('imports started from the UI', () => {
  it('imports dropped files and folders with their layout, and reports each file', async () => {
    const api = createApi(openDatabase(join(tempDir(), 'u.db')));
    const run = 'samples/mini-swe-agent';
    const ids = readdirSync(join(fixtures, run, 'trajs')).filter((d) => d.includes('__'));
    const files = [
      upload('canonical/example.jsonl', 'example.jsonl'),
      upload('broken/canonical-wrong-type.jsonl', 'bad.jsonl'),
      ...ids.flatMap((id) => [
        upload(`${run}/trajs/${id}/${id}.traj.json`, `swe-run/trajs/${id}/${id}.traj.json`),
        upload(`${run}/logs/${id}/report.json`, `swe-run/logs/${id}/report.json`),
      ]),
    ];
    const started = await api.startImport({ files });
    expect(started.state).toBe('running');
    const done = await finish(api, started);
    expect(done.state, done.error ?? '').toBe('done');
    const byPath = Object.fromEntries(done.report!.files.map((f) => [f.path, f]));
    expect(byPath['example.jsonl']).toMatchObject({ status: 'imported', episodes: 13 });
    expect(byPath['bad.jsonl']).toMatchObject({ status: 'rejected', reason: expect.stringMatching(/^bad\.jsonl:3: /) });
    expect(done.report!.files.filter((f) => f.format === 'mini-swe-agent' && f.status === 'imported')).toHaveLength(4);
    // The sidecar labels travelled with the layout: the run is named after its folder and has outcomes.
    const runs = await api.listRuns({});
    expect(runs.find((r) => r.name === 'swe-run')).toMatchObject({ episodes: 4, success_rate: 0.5 });
    // Sources are named as the user dropped them, never by our temporary folder.
    expect(runs.find((r) => r.name === 'hle-router-demo')?.source_path).toBe('example.jsonl');
    expect(done.progress).toMatchObject({ filesDone: done.progress.filesTotal, episodes: 17 });

    const again = await finish(api, await api.startImport({ files: [upload('canonical/example.jsonl', 'copy.jsonl')] }));
    expect(again.report!.files[0]).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/already imported/) });
  });

  it('refuses paths that would leave the upload folder', async () => {
    const api = createApi(openDatabase(join(tempDir(), 'u.db')));
    for (const path of ['../evil.jsonl', 'a/../../evil.jsonl', 'C:/x.jsonl']) {
      const r = await dispatch(api, 'startImport', { files: [{ path, data_base64: 'e30=' }] });
      expect(r).toMatchObject({ ok: false, error: { kind: 'input', message: /unsafe file path/ } });
    }
    expect(safeRelativePath('/abs/ok.jsonl')).toBe(join('abs', 'ok.jsonl'));
    expect(await dispatch(api, 'importStatus', { job: 99 })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
  });
});
