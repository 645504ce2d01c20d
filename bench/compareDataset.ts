/**
 * The compare benchmark's database (issue 18 item 8): two runs of N scienceworld episodes each over the same
 * task ids, built once into the cache folder. Episode i of both runs is the simulator's episode i (its task is
 * drawn before any routing, so the two sides face the very same task) routed by a different policy: A by the
 * simulated MTRouter, B by gpt-5 alone. Each episode is its own task (the simulator's task id with the
 * episode's index), so the paired table has N rows: the largest two runs of this size can make.
 * The file name carries the simulator's and the schema's hash, as the other bench datasets do.
 */
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../electron/db/database.ts';
import { importPaths } from '../electron/importers/pipeline.ts';
import { SW_PARAMS } from '../fixtures/simulator/presets/scienceworld.ts';
import { simulate } from '../fixtures/simulator/simulate.ts';
import { sourcesHash } from './dataset.ts';

export interface CompareDataset {
  db: string;
  /** Run ids of side A and side B in that database. */
  runA: number;
  runB: number;
  episodesA: number;
  episodesB: number;
  turns: number;
}

const SIDES = [
  { run: 'compare-a-mtrouter', from: 'sw-mtrouter' },
  { run: 'compare-b-gpt-5', from: 'sw-gpt-5' },
] as const;

function policyOf(run: string) {
  const spec = SW_PARAMS.runs.find((r) => r.run === run);
  if (!spec) throw new Error(`the scienceworld preset has no run ${run}`);
  return spec.policy;
}

/** One side's episodes as canonical JSON Lines, written in ~1 MiB chunks. */
function writeSide(path: string, side: (typeof SIDES)[number], episodes: number, seed: number): void {
  const fd = openSync(path, 'w');
  try {
    let chunk = '';
    for (const ep of simulate({ preset: 'scienceworld', episodes, seed, policy: policyOf(side.from) })) {
      // episode_id is `${task id}_e${index}`: the same on both sides, and one task per episode.
      chunk += `${JSON.stringify({ ...ep, run: side.run, task: { ...ep.task, id: ep.episode_id } })}\n`;
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
}

function describe(path: string): CompareDataset {
  const db = openDatabase(path, { readonly: true });
  try {
    const side = (run: string) =>
      db.prepare('SELECT r.id AS id, count(e.id) AS episodes, coalesce(sum(e.n_turns), 0) AS turns FROM runs r JOIN episodes e ON e.run_id = r.id WHERE r.name = ? GROUP BY r.id').get(run) as
        | { id: number; episodes: number; turns: number }
        | undefined;
    const [a, b] = SIDES.map((s) => side(s.run));
    if (!a || !b) throw new Error(`${path} lacks the compare runs`);
    return { db: path, runA: a.id, runB: b.id, episodesA: a.episodes, episodesB: b.episodes, turns: a.turns + b.turns };
  } finally {
    db.close();
  }
}

export async function compareDataset(cache: string, episodes: number, seed: number, log: (s: string) => void): Promise<CompareDataset> {
  mkdirSync(cache, { recursive: true });
  const db = join(cache, `compare-${episodes}-s${seed}-${sourcesHash()}.db`);
  if (existsSync(db)) return describe(db);
  const partial = `${db}.partial`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(partial + suffix, { force: true });
  // The JSONL is only a step to the database: the import benchmark does not use it, so it is not kept.
  const files = SIDES.map((s) => join(cache, `${s.run}-${episodes}-s${seed}.partial.jsonl`));
  try {
    SIDES.forEach((side, i) => {
      log(`  simulating ${side.run}: scienceworld, ${episodes} episodes, seed ${seed}, policy of ${side.from}`);
      writeSide(files[i] as string, side, episodes, seed);
    });
    log(`  importing both into ${db}`);
    const handle = openDatabase(partial);
    try {
      const report = await importPaths(handle, files);
      const bad = report.files.filter((f) => f.status !== 'imported');
      if (bad.length > 0) throw new Error(`import did not take every file: ${JSON.stringify(bad)}`);
      // One file, no large WAL, for the readers that follow.
      handle.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      handle.close();
    }
    renameSync(partial, db);
  } finally {
    for (const f of files) rmSync(f, { force: true });
    for (const suffix of ['-wal', '-shm']) rmSync(partial + suffix, { force: true });
  }
  return describe(db);
}
