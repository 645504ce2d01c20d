/**
 * The bench's datasets, built once into the cache folder and reused by later runs:
 *  - reference: `routelens simulate --preset scienceworld --episodes N --seed S` (N = 29,693 by default, the
 *    MTRouter training set's trajectory count, DESIGN §11), imported by the real CLI into a database;
 *  - controllers: the corl and critique presets (N episodes each) in one database, for the analyses the
 *    scienceworld data has nothing to say about (budget modes, verification verdicts).
 * File names carry a hash of the simulator's and the schema's sources, so a change to either rebuilds them.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(root, 'bin', 'routelens.mjs');

export interface Dataset {
  /** Canonical JSONL files, imported in this order. */
  jsonl: string[];
  db: string;
  episodes: number;
  turns: number;
}

export function sourcesHash(): string {
  const hash = createHash('sha256');
  const add = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) add(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) hash.update(path.slice(root.length)).update(readFileSync(path));
    }
  };
  add(join(root, 'fixtures', 'simulator'));
  hash.update(readFileSync(join(root, 'electron', 'db', 'migrations.ts')));
  hash.update(readFileSync(join(root, 'models', 'pool.json')));
  return hash.digest('hex').slice(0, 10);
}

function run(args: string[], what: string, log: (s: string) => void): string {
  log(`  ${what}: routelens ${args.join(' ')}`);
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`routelens ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return r.stdout;
}

function info(db: string): { episodes: number; turns: number } {
  const r = spawnSync(process.execPath, [CLI, 'info', '--db', db, '--json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`routelens info failed:\n${r.stderr}`);
  const doc = JSON.parse(r.stdout) as { runs: { episodes: number; turns: number }[] };
  return doc.runs.reduce((a, x) => ({ episodes: a.episodes + x.episodes, turns: a.turns + x.turns }), { episodes: 0, turns: 0 });
}

function build(cache: string, name: string, presets: string[], episodes: number, seed: number, log: (s: string) => void): Dataset {
  mkdirSync(cache, { recursive: true });
  const hash = sourcesHash();
  const tag = `${name}-${episodes}-s${seed}-${hash}`;
  const jsonl = presets.map((p) => join(cache, `${p}-${episodes}-s${seed}-${hash}.jsonl`));
  presets.forEach((preset, i) => {
    const out = jsonl[i]!;
    if (existsSync(out) && statSync(out).size > 0) return;
    const partial = `${out}.partial.jsonl`;
    run(['simulate', '--preset', preset, '--episodes', String(episodes), '--seed', String(seed), '--out', partial], `simulating ${preset}`, log);
    renameSync(partial, out);
    rmSync(`${partial.slice(0, -'.jsonl'.length)}.truth.json`, { force: true });
  });
  const db = join(cache, `${tag}.db`);
  if (!existsSync(db)) {
    const partial = `${db}.partial`;
    for (const suffix of ['', '-wal', '-shm']) rmSync(partial + suffix, { force: true });
    run(['import', ...jsonl, '--db', partial], `importing ${name}`, log);
    // Checkpoint so the cached database is one file (serve and readers then start without a large WAL).
    const check = spawnSync(process.execPath, ['-e', `const D=require('better-sqlite3');const d=new D(${JSON.stringify(partial)});d.pragma('wal_checkpoint(TRUNCATE)');d.close()`], { cwd: root });
    if (check.status !== 0) throw new Error(`checkpoint of ${partial} failed: ${String(check.stderr)}`);
    renameSync(partial, db);
    for (const suffix of ['-wal', '-shm']) rmSync(partial + suffix, { force: true });
  }
  return { jsonl, db, ...info(db) };
}

/** The scienceworld dataset at the reference size (or the size asked for). */
export function referenceDataset(cache: string, episodes: number, seed: number, log: (s: string) => void): Dataset {
  return build(cache, 'reference', ['scienceworld'], episodes, seed, log);
}

/** CoRL budget modes and critique verdicts, `episodes` of each, in one database. */
export function controllerDataset(cache: string, episodes: number, seed: number, log: (s: string) => void): Dataset {
  return build(cache, 'controllers', ['corl', 'critique'], episodes, seed, log);
}
