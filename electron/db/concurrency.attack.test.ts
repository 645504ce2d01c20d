// Issue 16 item 2: one writer, many readers, across real processes. While a long import holds the write
// lock, `info` and `analyze` work (WAL readers, read-only opens), a second import waits its turn saying so
// and then succeeds, and the same file imported twice at once is imported once (the loser reports it as
// already imported). No "database is locked", no exit 2.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { useSuiteTempDir } from '../testing/tmp.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/routelens.mjs');
const tempDir = useSuiteTempDir();

interface Done { code: number; stdout: string; stderr: string; ms: number }
function start(args: string[]): { done: Promise<Done>; stderrSoFar: () => string } {
  const t0 = Date.now();
  const child = spawn(process.execPath, [bin, ...args], { cwd: root });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Done>((res) => child.on('close', (code) => res({ code: code ?? -1, stdout, stderr, ms: Date.now() - t0 })));
  return { done, stderrSoFar: () => stderr };
}
const run = (args: string[]): Promise<Done> => start(args).done;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('one writer, many readers', () => {
  it('reads and a second import work during a long import; the same file twice at once is imported once', async () => {
    const dir = tempDir();
    const big = join(dir, 'big.jsonl');
    const small = join(dir, 'small.jsonl');
    for (const [out, n, seed] of [[big, '12000', '1'], [small, '50', '2']] as const) {
      const r = spawnSync(process.execPath, [bin, 'simulate', '--preset', 'scienceworld', '--episodes', n, '--seed', seed, '--out', out], { cwd: root, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    }
    const db = join(dir, 'shared.db');
    expect((await run(['import', small, '--db', db, '--run', 'first'])).code).toBe(0);

    // The long import: wait until it has started writing (its progress shows episodes) before the others.
    const long = start(['import', big, '--db', db, '--run', 'long']);
    for (let i = 0; i < 600 && !/[1-9]\d* episodes/.test(long.stderrSoFar()); i++) await sleep(50);
    const [info, analyze, second] = await Promise.all([
      run(['info', '--db', db, '--json']),
      run(['analyze', 'pareto', '--db', db, '--json']),
      run(['import', join(root, 'fixtures/canonical/example.jsonl'), '--db', db]),
    ]);
    const longDone = await long.done;
    expect(longDone.code, longDone.stderr).toBe(0);
    expect(info.code, info.stderr).toBe(0);
    expect(analyze.code, analyze.stderr).toBe(0);
    // Readers see only committed data: the long import's run is absent or complete, never partial.
    const seen = JSON.parse(info.stdout).runs.map((r: { name: string }) => r.name);
    expect(seen).not.toContain('long');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('waiting for another import to finish');
    expect(second.ms).toBeGreaterThan(0);
    for (const r of [info, analyze, second, longDone]) expect(r.stderr).not.toMatch(/database is locked|internal error/);

    // The same file, twice at once.
    const twin = join(dir, 'twin.jsonl');
    expect(spawnSync(process.execPath, [bin, 'simulate', '--preset', 'scienceworld', '--episodes', '2000', '--seed', '3', '--out', twin], { cwd: root }).status).toBe(0);
    const [a, b] = await Promise.all([run(['import', twin, '--db', db, '--json']), run(['import', twin, '--db', db, '--json'])]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    const statuses = [a, b].map((r) => JSON.parse(r.stdout).files[0].status).sort();
    expect(statuses).toEqual(['imported', 'skipped']);
    const check = new Database(db, { readonly: true });
    const sources = check.prepare('SELECT COUNT(*) FROM sources').pluck().get();
    const quick = check.pragma('quick_check', { simple: true });
    check.close();
    expect(sources).toBe(4);
    expect(quick).toBe('ok');
    console.log(`attack: during a ${(longDone.ms / 1000).toFixed(1)} s import: info, analyze ok; a second import waited its turn and succeeded; ` +
      `the same file imported twice at once: ${statuses.join(' + ')}; 0 lock errors, 0 exit 2`);
  }, 240_000);
});
