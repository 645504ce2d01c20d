import { copyFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../testing/tmp.ts';
import { clearSweBenchLabelCache, findSweBenchLabel } from './sweBenchLabels.ts';

const sample = fileURLToPath(new URL('../../fixtures/samples/mini-swe-agent/', import.meta.url));
const SB_CLI = 'trajs/sb-cli-reports/swe-bench_verified__test__20251118_mini-v1.15.0_gemini-3-pro-preview-20251118.json';
const tempDir = useTempDir();

/** A run folder holding only the named label files (copied from the sample run); returns a trajectory path in it. */
function run(id: string, labelFiles: string[]): { dir: string; traj: string } {
  const dir = join(tempDir(), 'run');
  const traj = join(dir, 'trajs', id, `${id}.traj.json`);
  mkdirSync(dirname(traj), { recursive: true });
  writeFileSync(traj, '{}');
  for (const f of labelFiles) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    copyFileSync(join(sample, f), join(dir, f));
  }
  return { dir, traj };
}

const noWarnings = (m: string): never => {
  throw new Error(`unexpected warning: ${m}`);
};

beforeEach(() => clearSweBenchLabelCache());

describe('SWE-bench labels beside a run', () => {
  it('per-instance report.json first', () => {
    for (const [id, resolved] of [
      ['django__django-12143', true],
      ['pydata__xarray-6938', false],
      ['astropy__astropy-7166', true],
      ['psf__requests-2317', false],
    ] as const) {
      const traj = join(sample, 'trajs', id, `${id}.traj.json`);
      expect(findSweBenchLabel(traj, id, sample.replace(/\/$/, ''), noWarnings)).toMatchObject({
        resolved,
        source: join(sample, 'logs', id, 'report.json'),
      });
    }
  });

  it('a per-instance report gives its tests and patch checks as logged', () => {
    const id = 'django__django-12143';
    const label = findSweBenchLabel(join(sample, 'trajs', id, `${id}.traj.json`), id, sample.replace(/\/$/, ''), noWarnings);
    expect(label?.report?.checks).toEqual({ patch_is_None: false, patch_exists: true, patch_successfully_applied: true });
    // logs/django__django-12143/report.json: one FAIL_TO_PASS test, 52 PASS_TO_PASS, all passing.
    expect(label?.report?.tests.map((g) => [g.group, g.passed.length, g.failed.length])).toEqual([
      ['FAIL_TO_PASS', 1, 0], ['PASS_TO_PASS', 52, 0], ['FAIL_TO_FAIL', 0, 0], ['PASS_TO_FAIL', 0, 0],
    ]);
  });

  it('a report whose test groups are not lists of names keeps the groups that are', () => {
    const { dir, traj } = run('octo__tinyrepo-2', []);
    mkdirSync(join(dir, 'logs', 'octo__tinyrepo-2'), { recursive: true });
    writeFileSync(join(dir, 'logs', 'octo__tinyrepo-2', 'report.json'), JSON.stringify({
      resolved: false, tests_status: { FAIL_TO_PASS: { success: [], failure: ['t::a'] }, PASS_TO_PASS: 'all', ' ': { success: [], failure: [] } },
    }));
    expect(findSweBenchLabel(traj, 'octo__tinyrepo-2', dir, noWarnings)?.report).toEqual({
      tests: [{ group: 'FAIL_TO_PASS', passed: [], failed: ['t::a'] }], checks: {},
    });
  });

  it('each run-level file alone gives the same labels', () => {
    for (const file of ['results_summary.json', 'results_summary.csv', SB_CLI]) {
      for (const [id, resolved] of [
        ['pydata__xarray-6938', false],
        ['astropy__astropy-7166', true],
        // Not among the copied trajectories, but the run-level files cover all 500 instances.
        ['sympy__sympy-20428', false],
      ] as const) {
        const { dir, traj } = run(id, [file]);
        expect(findSweBenchLabel(traj, id, dir, noWarnings), `${file} ${id}`).toEqual({ resolved, source: join(dir, file) });
      }
    }
  });

  it('a report keyed by instance id counts too', () => {
    const { dir, traj } = run('octo__tinyrepo-1', []);
    mkdirSync(join(dir, 'logs', 'octo__tinyrepo-1'), { recursive: true });
    writeFileSync(join(dir, 'logs', 'octo__tinyrepo-1', 'report.json'), JSON.stringify({ 'octo__tinyrepo-1': { resolved: true } }));
    expect(findSweBenchLabel(traj, 'octo__tinyrepo-1', dir, noWarnings)?.resolved).toBe(true);
  });

  it('nothing above the stop folder is read; unknown instances have no label', () => {
    const { dir, traj } = run('astropy__astropy-7166', []);
    copyFileSync(join(sample, 'results_summary.json'), join(dirname(dir), 'results_summary.json'));
    expect(findSweBenchLabel(traj, 'astropy__astropy-7166', dir, noWarnings)).toBeNull();
    expect(findSweBenchLabel(traj, 'astropy__astropy-7166', dirname(dir), noWarnings)?.resolved).toBe(true);
    expect(findSweBenchLabel(traj, 'octo__tinyrepo-1', dirname(dir), noWarnings)).toBeNull();
  });

  it('a broken label file is skipped with one warning', () => {
    const { dir, traj } = run('astropy__astropy-7166', ['results_summary.csv']);
    writeFileSync(join(dir, 'results_summary.json'), '{"instances": "all of them"}');
    const warnings: string[] = [];
    for (let i = 0; i < 3; i++) {
      expect(findSweBenchLabel(traj, 'astropy__astropy-7166', dir, (m) => warnings.push(m))?.source).toBe(join(dir, 'results_summary.csv'));
    }
    expect(warnings).toEqual([`${join(dir, 'results_summary.json')}: ignored as a label file (instances: Invalid input: expected array, received string)`]);
  });

  it('run-level files are parsed once per size and mtime', () => {
    const { dir, traj } = run('octo__tinyrepo-1', []);
    const summary = join(dir, 'results_summary.json');
    const write = (resolved: boolean): void =>
      writeFileSync(summary, JSON.stringify({ instances: [{ instance_id: 'octo__tinyrepo-1', resolved }] }).padEnd(80));
    // A whole-second mtime, so setting it again gives exactly the same stat.
    const stamp = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    write(true);
    utimesSync(summary, stamp, stamp);
    expect(findSweBenchLabel(traj, 'octo__tinyrepo-1', dir, noWarnings)?.resolved).toBe(true);
    // Same size and mtime: the cached parse answers (what keeps a 30k-file folder from re-reading it).
    write(false);
    utimesSync(summary, stamp, stamp);
    expect(findSweBenchLabel(traj, 'octo__tinyrepo-1', dir, noWarnings)?.resolved).toBe(true);
    // A changed mtime is a changed file.
    utimesSync(summary, stamp, new Date(stamp.getTime() + 5_000));
    expect(findSweBenchLabel(traj, 'octo__tinyrepo-1', dir, noWarnings)?.resolved).toBe(false);
  });
});
