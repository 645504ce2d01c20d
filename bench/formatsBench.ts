/**
 * Importing agents' own logs against importing the same turns as canonical JSON Lines (issue 15, goal: ≥ 0.5×
 * canonical turns/s, peak RSS under 400 MB). The Claude Code tree is `~/.claude/projects`-shaped and built
 * once into the cache folder from the real samples (fixtures/samples/claude-code), each copy with new
 * session ids, uuids and message ids so nothing is skipped as already imported; the canonical baseline holds
 * the very episodes the Claude Code importer reads from those samples, renamed the same way, one file per
 * Claude Code file (so both imports commit as many transactions). Each import runs in a child process of its
 * own (this file with `--child`), which reports its time and peak RSS.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CanonicalEpisode } from '../shared/canonical.ts';
import { root } from './dataset.ts';

const SESSION = '8463c716-a2ea-4c14-9efa-87158ebd9f20';
const VCT_SESSION = 'e9f146fa-3b20-48d0-9be4-d99ca901cae4';
const SAMPLES = join(root, 'fixtures', 'samples', 'claude-code');
/** The sample files, where they sit in a session folder, and the session they belong to. */
const SOURCES = [
  { from: join('spotter', `${SESSION}.jsonl`), to: `${SESSION}.jsonl` },
  { from: join('spotter', SESSION, 'subagents', 'agent-a7be2f0.jsonl'), to: join(SESSION, 'subagents', 'agent-a7be2f0.jsonl') },
  { from: join('spotter', SESSION, 'subagents', 'agent-acompact-f46190.jsonl'), to: join(SESSION, 'subagents', 'agent-acompact-f46190.jsonl') },
  { from: 'vct-claude_code.jsonl', to: `${VCT_SESSION}.jsonl` },
] as const;
/** Copies are spread over this many project folders (runs), as on a real machine. */
const PROJECTS = 20;
export const PEAK_RSS_GOAL = 400e6; // 400 MB, as the goal is stated

export interface ImportRun {
  seconds: number;
  cpuSeconds: number;
  files: number;
  episodes: number;
  turns: number;
  bytes: number;
  /** Peak resident set size of the importing process, in bytes. */
  peakRss: number;
}

export interface FormatsBenchResult {
  copies: number;
  claudeCode: ImportRun & { turnsPerSec: number; mbPerSec: number };
  canonical: ImportRun & { turnsPerSec: number; mbPerSec: number };
  /** Claude Code turns/s over canonical turns/s. */
  ratio: number;
  cpuRatio: number;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** Copy k's version of an id: uuids get k in their first group, Anthropic message ids a `c<k>_` prefix. */
const renameUuid = (uuid: string, k: number): string => `${k.toString(16).padStart(8, '0')}${uuid.slice(8)}`;
const renameText = (text: string, k: number): string =>
  text.replace(UUID, (u) => renameUuid(u, k)).replace(/"msg_/g, `"msg_c${k}_`);
const projectOf = (k: number): string => `-bench-project-${k % PROJECTS}`;

function dirBytes(files: string[]): number {
  return files.reduce((a, f) => a + statSync(f).size, 0);
}

/** The Claude Code tree of about `megabytes` MiB, built once. Returns its folder and files. */
export function claudeTree(cache: string, megabytes: number, log: (s: string) => void): { dir: string; files: string[]; copies: number } {
  const perCopy = SOURCES.reduce((a, s) => a + statSync(join(SAMPLES, s.from)).size, 0);
  const copies = Math.max(1, Math.round((megabytes * 2 ** 20) / perCopy));
  const dir = join(cache, `formats-claude-code-${copies}`, 'projects');
  const done = join(dirname(dir), 'complete.json');
  const files: string[] = [];
  for (let k = 0; k < copies; k++) {
    for (const s of SOURCES) files.push(join(dir, projectOf(k), renameText(s.to, k)));
  }
  if (existsSync(done)) return { dir, files, copies };
  log(`  building a ~/.claude/projects tree: ${copies} copies of the samples (${((copies * perCopy) / 2 ** 20).toFixed(0)} MiB)`);
  rmSync(dirname(dir), { recursive: true, force: true });
  const texts = SOURCES.map((s) => readFileSync(join(SAMPLES, s.from), 'utf8'));
  for (let k = 0; k < copies; k++) {
    SOURCES.forEach((_, i) => {
      const out = files[k * SOURCES.length + i] as string;
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, renameText(texts[i] as string, k));
    });
  }
  writeFileSync(done, JSON.stringify({ copies, files: files.length }));
  return { dir, files, copies };
}

/** The same episodes as canonical JSON Lines: the samples read once by the importer, renamed per copy. */
async function canonicalTwin(cache: string, copies: number, log: (s: string) => void): Promise<{ dir: string; files: string[] }> {
  const dir = join(cache, `formats-canonical-${copies}`);
  const done = join(dir, 'complete.json');
  const files: string[] = [];
  for (let k = 0; k < copies; k++) for (let i = 0; i < SOURCES.length; i++) files.push(join(dir, `copy-${k}-${i}.jsonl`));
  if (existsSync(done)) return { dir, files };
  log(`  writing the canonical twin: ${copies} × ${SOURCES.length} files`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { claudeCodeImporter } = await import('../electron/importers/claudeCode.ts');
  const episodes: CanonicalEpisode[] = [];
  for (const s of SOURCES) {
    for await (const ep of claudeCodeImporter.read(join(SAMPLES, s.from), { root: SAMPLES, warn: () => {} })) episodes.push(ep);
  }
  // Serialised once; each copy only swaps the ids (the uuids in the text change too, as in the Claude Code tree).
  const lines = episodes.map((ep) => JSON.stringify(ep));
  for (let k = 0; k < copies; k++) {
    lines.forEach((line, i) => {
      const ep = episodes[i] as CanonicalEpisode;
      const renamed = renameText(line, k).replace(`"run":${JSON.stringify(ep.run)}`, `"run":${JSON.stringify(`claude-code/${projectOf(k)}`)}`);
      writeFileSync(files[k * SOURCES.length + i] as string, `${renamed}\n`);
    });
  }
  writeFileSync(done, JSON.stringify({ copies, files: files.length }));
  return { dir, files };
}

function runChild(dbPath: string, dir: string): ImportRun {
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'formatsBench.ts'), '--child', dbPath, dir], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`bench/formatsBench.ts --child failed (${r.status}):\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string) as ImportRun;
}

export async function benchFormats(cache: string, megabytes: number, log: (s: string) => void): Promise<FormatsBenchResult> {
  const tree = claudeTree(cache, megabytes, log);
  const twin = await canonicalTwin(cache, tree.copies, log);
  const rates = (x: ImportRun) => ({ ...x, turnsPerSec: x.turns / x.seconds, mbPerSec: x.bytes / 2 ** 20 / x.seconds });
  const dbPath = join(cache, 'formats.db');
  const claude = rates({ ...runChild(dbPath, tree.dir), bytes: dirBytes(tree.files) });
  log(`  claude-code: ${claude.turns.toLocaleString('en-US')} turns, ${claude.episodes.toLocaleString('en-US')} episodes in ${claude.seconds.toFixed(1)} s (CPU ${claude.cpuSeconds.toFixed(1)} s), peak RSS ${(claude.peakRss / 2 ** 20).toFixed(0)} MiB`);
  const canonical = rates({ ...runChild(dbPath, twin.dir), bytes: dirBytes(twin.files) });
  log(`  canonical:   ${canonical.turns.toLocaleString('en-US')} turns, ${canonical.episodes.toLocaleString('en-US')} episodes in ${canonical.seconds.toFixed(1)} s (CPU ${canonical.cpuSeconds.toFixed(1)} s), peak RSS ${(canonical.peakRss / 2 ** 20).toFixed(0)} MiB`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  if (claude.turns !== canonical.turns) throw new Error(`claude-code import gave ${claude.turns} turns, its canonical twin ${canonical.turns}`);
  return {
    copies: tree.copies,
    claudeCode: claude,
    canonical,
    ratio: claude.turnsPerSec / canonical.turnsPerSec,
    cpuRatio: canonical.cpuSeconds / claude.cpuSeconds,
  };
}

/** The child: one import into a fresh database, reported as one JSON line. */
async function child(dbPath: string, dir: string): Promise<Omit<ImportRun, 'bytes'>> {
  const { openDatabase } = await import('../electron/db/database.ts');
  const { importPaths } = await import('../electron/importers/pipeline.ts');
  const db = openDatabase(dbPath);
  const u0 = process.cpuUsage();
  const t0 = performance.now();
  const report = await importPaths(db, [dir]);
  const seconds = (performance.now() - t0) / 1000;
  const u = process.cpuUsage(u0);
  db.close();
  const bad = report.files.filter((f) => f.status !== 'imported');
  if (bad.length > 0) throw new Error(`import did not take every file: ${JSON.stringify(bad.slice(0, 3))}`);
  return {
    seconds,
    cpuSeconds: (u.user + u.system) / 1e6,
    files: report.files.length,
    episodes: report.files.reduce((a, f) => a + f.episodes, 0),
    turns: report.files.reduce((a, f) => a + f.turns, 0),
    peakRss: process.resourceUsage().maxRSS * 1024,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--child') {
  const [dbPath, dir] = process.argv.slice(3);
  if (!dbPath || !dir) throw new Error('usage: node --import tsx bench/formatsBench.ts --child DB DIR');
  process.stdout.write(`${JSON.stringify(await child(dbPath, dir))}\n`);
}
