// Crash safety of imports (DESIGN §12, issue 8 item 3): the real CLI (`bin/routelens.mjs import`) imports a
// folder of several formats (~8 MB, ~230 episodes) and is killed with SIGKILL at seeded random moments, measured
// as fractions of the bytes a clean import writes. After each kill the database must open and hold no partial
// import (electron/testing/importInvariants.ts); a later import of the same folder completes it, equals a clean
// import, and a further one changes nothing. That a kill really landed inside a file's transaction (where the
// FTS rows are written with each turn) is read from the WAL before the database is reopened: pages a
// transaction spilled before its commit sit there as frames after the last commit frame.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulate, simulateToFile } from '../../fixtures/simulator/index.ts';
import { countsBySource, partialImportProblems, tableCounts, type SourceCounts } from '../testing/importInvariants.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { openDatabase } from '../db/database.ts';
import { importPaths } from './pipeline.ts';
import { mulberry32 } from '../../shared/random.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(root, 'bin', 'routelens.mjs');
// `npm test` kills 3 times; `npm run test:attack` (ROUTELENS_ATTACK=full) 30 times.
const FULL = process.env.ROUTELENS_ATTACK === 'full';
const KILLS = FULL ? 30 : 3;
const tempDir = useSuiteTempDir();
let input = '';
let dir = '';
let finalBytes = 0;
let clean: { counts: Record<string, number>; bySource: Map<string, SourceCounts>; files: number };

/** Simulated SWE episodes whose observations carry ~6 KB of extra seeded words each (~5.5 MB for 55 episodes). */
function longObservations(episodes: number, seed: number): string {
  const next = mulberry32(seed); // the kill moments are the same on every run
  const vocabulary = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}${Math.floor(next() * 1e6).toString(36)}`);
  const lines: string[] = [];
  for (const ep of simulate({ preset: 'swe', episodes, seed })) {
    for (const turn of ep.turns) {
      const words = Array.from({ length: 700 }, () => vocabulary[Math.floor(next() * vocabulary.length)]);
      turn.observation = `${turn.observation ?? ''}\n${words.join(' ')}`;
    }
    lines.push(JSON.stringify(ep));
  }
  return `${lines.join('\n')}\n`;
}

interface Outcome {
  killed: boolean;
  code: number | null;
  stdout: string;
}

/** Bytes the database holds on disk (main file and WAL): grows as the import writes, whatever the machine's speed. */
function bytesOnDisk(db: string): number {
  let total = 0;
  for (const f of [db, `${db}-wal`]) total += existsSync(f) ? statSync(f).size : 0;
  return total;
}

/**
 * Runs `routelens import`; with `killAtBytes`, SIGKILLs it once the database has grown to that many bytes on
 * disk. A moment measured in bytes written, not milliseconds, lands at the same point of the import on a fast
 * machine and on a loaded one.
 */
function runImport(db: string, killAtBytes?: number, json = false): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'import', input, '--db', db, ...(json ? ['--json'] : [])], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const poll =
      killAtBytes === undefined
        ? undefined
        : setInterval(() => {
            if (bytesOnDisk(db) >= killAtBytes) child.kill('SIGKILL');
          }, 2);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      resolve({ killed: signal === 'SIGKILL', code, stdout });
    });
  });
}

/** Frames after the WAL's last commit frame (with the header's salts): pages of a transaction that never committed. */
function uncommittedWalFrames(walPath: string): number {
  if (!existsSync(walPath)) return 0;
  const wal = readFileSync(walPath);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  let pending = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt[0] || wal.readUInt32BE(at + 12) !== salt[1]) break;
    pending = wal.readUInt32BE(at + 4) !== 0 ? 0 : pending + 1;
  }
  return pending;
}

function inspectDb(path: string): { counts: Record<string, number>; bySource: Map<string, SourceCounts>; problems: string[] } {
  const db = new Database(path);
  try {
    return { counts: tableCounts(db), bySource: countsBySource(db), problems: partialImportProblems(db, clean?.bySource) };
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  dir = tempDir();
  input = join(dir, 'logs');
  mkdirSync(input);
  // Canonical files from the simulator, one of them with long observations: its transaction outgrows SQLite's
  // 16 MB page cache, so its pages reach the WAL before it commits (what a mid-transaction kill leaves behind).
  await simulateToFile({ preset: 'scienceworld', episodes: 80, seed: 11, out: join(input, 'a-scienceworld.jsonl') });
  writeFileSync(join(input, 'b-swe-long.jsonl'), longObservations(55, 14));
  await simulateToFile({ preset: 'hle', episodes: 80, seed: 13, out: join(input, 'c-hle.jsonl') });
  const samples = join(root, 'fixtures', 'samples');
  copyFileSync(join(samples, 'uno', 'uno-transcripts.jsonl'), join(input, 'd-uno.jsonl'));
  copyFileSync(join(samples, 'inspect', 'log_streaming.eval'), join(input, 'e-inspect.eval'));
  copyFileSync(join(samples, 'mini-swe-agent', 'trajs', 'django__django-12143', 'django__django-12143.traj.json'), join(input, 'f.traj.json'));

  const reference = join(dir, 'clean.db');
  // The reference is imported in this process (the subject of the test is the killed CLI, not this).
  const ref = openDatabase(reference);
  const report = await importPaths(ref, [input]);
  ref.close();
  expect(report.files.map((f) => f.status)).toEqual(Array(6).fill('imported'));
  finalBytes = bytesOnDisk(reference);
  const db = new Database(reference);
  clean = { counts: tableCounts(db), bySource: countsBySource(db), files: countsBySource(db).size };
  expect(partialImportProblems(db)).toEqual([]);
  db.close();
}, 120_000);

describe('import crash safety (SIGKILL)', () => {
  it('the clean import holds every file whole (the checks can see a complete database)', () => {
    expect(clean.files).toBe(6);
    expect(clean.bySource.size).toBe(6);
    expect(clean.counts.episodes).toBeGreaterThan(200);
  });

  it(`killed at ${KILLS} random moments, the database opens whole each time, and a re-import completes it`, async () => {
    const next = mulberry32(0x5eed);
    let midImport = 0;
    let inTransaction = 0;
    let last = '';
    for (let k = 0; k < KILLS; k++) {
      // Stratified over 2–95 % of what a clean import writes, so early, middle and late moments all occur.
      const at = Math.round((0.02 + (0.93 * (k + next())) / KILLS) * finalBytes);
      const db = join(dir, `killed-${k}.db`);
      const run = await runImport(db, at);
      const pending = uncommittedWalFrames(`${db}-wal`);
      const state = inspectDb(db);
      expect(state.problems, `kill ${k} at ${at} bytes`).toEqual([]);
      if (run.killed) {
        if (state.bySource.size < clean.files) midImport++;
        if (pending > 0) inTransaction++;
      }
      last = db;
    }
    console.log(`attack: ${KILLS} SIGKILLs mid-import (${midImport} before the last file, ${inTransaction} inside an open transaction), 0 corrupt or partial databases`);
    // The moments really fell inside the import, and at least one inside a file's open transaction.
    expect(midImport).toBeGreaterThanOrEqual(KILLS - 1);
    expect(inTransaction).toBeGreaterThanOrEqual(1);

    // Kill a resumed import too, then finish: the result equals a clean import.
    await runImport(last, bytesOnDisk(last) + (finalBytes - bytesOnDisk(last)) / 4);
    expect(inspectDb(last).problems).toEqual([]);
    const finish = await runImport(last, undefined, true);
    expect(finish.code, finish.stdout).toBe(0);
    const done = inspectDb(last);
    expect(done.problems).toEqual([]);
    expect(done.counts).toEqual(clean.counts);

    const finished = JSON.parse(finish.stdout) as { files: { status: string }[] };
    expect(finished.files.some((f) => f.status === 'skipped')).toBe(true); // what the killed runs committed stays

    // Importing again skips every file and changes nothing.
    const db = openDatabase(last);
    const again = await importPaths(db, [input]);
    db.close();
    expect(again.files.map((f) => f.status)).toEqual(Array(clean.files).fill('skipped'));
    expect(inspectDb(last).counts).toEqual(clean.counts);
  }, FULL ? 900_000 : 120_000);

  it('a database left by a kill opens in the CLI (routelens info)', () => {
    const db = join(dir, 'killed-0.db');
    const info = spawnSync(process.execPath, [CLI, 'info', '--db', db, '--json'], { encoding: 'utf8' });
    expect(info.status, info.stderr).toBe(0);
    expect(() => JSON.parse(info.stdout)).not.toThrow();
  });
});
