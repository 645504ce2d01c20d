/**
 * `npm run bench -- --only cli` (issue 39): how long `routelens` takes to start, against a bare `node -e ''` measured
 * in the same rounds. `routelens --help` (the command table alone) and `routelens info --json` on a small database
 * (one command's chunk, SQLite), from the built bundle (scripts/build-cli.mjs, built first when missing or stale) and,
 * for reference, the same two from source through tsx (ROUTELENS_CLI_SOURCE=1). Each round runs every case once, in
 * turn, so the machine's load moves all of them alike; medians. Peak RSS from a few further runs of each case, read
 * by a module preloaded with --import that writes process.resourceUsage().maxRSS when the process exits.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './dataset.ts';

export interface CliStartCase {
  id: 'bare' | 'help' | 'info' | 'help-source' | 'info-source';
  /** What was run, as a reader would type it; the -source cases run it from source through tsx. */
  command: string;
  medianMs: number;
  /** medianMs / the bare start's. */
  ratio: number;
  peakRss: number;
}

export interface CliBenchResult {
  runs: number;
  cases: CliStartCase[];
  /** The goals: --help ≤ 2.5× and info --json ≤ 4× the bare start. */
  goals: { help: number; info: number };
}

export const CLI_GOALS = { help: 2.5, info: 4 };

const bin = join(root, 'bin', 'routelens.mjs');
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/** Writes the process's peak RSS (bytes) to $ROUTELENS_BENCH_RSS when it exits. */
const RSS_HOOK =
  'data:text/javascript,import{writeFileSync}from"node:fs";' +
  'process.on("exit",()=>writeFileSync(process.env.ROUTELENS_BENCH_RSS,String(process.resourceUsage().maxRSS*1024)))';

function run(args: string[], env: NodeJS.ProcessEnv): { ms: number; stdout: string } {
  const started = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

/** The case as BENCHMARKS.md and the log name it. */
export function label(c: CliStartCase): string {
  return c.id.endsWith('-source') ? `${c.command}, from source through tsx` : c.command;
}

export function benchCli(cache: string, runs: number, log: (s: string) => void): CliBenchResult {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build-cli.mjs'), '--quiet'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build:cli failed');
  const db = join(cache, 'cli-start.db');
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  run([bin, 'import', join(root, 'fixtures', 'canonical', 'example.jsonl'), '--db', db], process.env);

  const { ROUTELENS_CLI_SOURCE: _unset, ...env } = process.env;
  const source = { ...env, ROUTELENS_CLI_SOURCE: '1' };
  const cases: { id: CliStartCase['id']; command: string; args: string[]; env: NodeJS.ProcessEnv }[] = [
    { id: 'bare', command: "node -e ''", args: ['-e', ''], env },
    { id: 'help', command: 'routelens --help', args: [bin, '--help'], env },
    { id: 'info', command: 'routelens info --db SMALL.db --json', args: [bin, 'info', '--db', db, '--json'], env },
    { id: 'help-source', command: 'routelens --help', args: [bin, '--help'], env: source },
    { id: 'info-source', command: 'routelens info --db SMALL.db --json', args: [bin, 'info', '--db', db, '--json'], env: source },
  ];
  // The bundle answers as the source does: the comparison is of the same work.
  for (const [bundled, fromSource] of [['help', 'help-source'], ['info', 'info-source']] as const) {
    const a = cases.find((c) => c.id === bundled)!;
    const b = cases.find((c) => c.id === fromSource)!;
    if (run(a.args, a.env).stdout !== run(b.args, b.env).stdout) throw new Error(`${a.command}: the bundle's output differs from the source's`);
  }

  const times = new Map(cases.map((c) => [c.id, [] as number[]]));
  run(['-e', ''], env); // warm the file cache once
  for (let round = 0; round < runs; round++) {
    for (const c of cases) times.get(c.id)!.push(run(c.args, c.env).ms);
  }
  const rssFile = join(cache, 'cli-start.rss');
  const peak = (c: (typeof cases)[number]): number => {
    const samples: number[] = [];
    for (let i = 0; i < 3; i++) {
      run(['--import', RSS_HOOK, ...c.args], { ...c.env, ROUTELENS_BENCH_RSS: rssFile });
      samples.push(Number(readFileSync(rssFile, 'utf8')));
    }
    rmSync(rssFile, { force: true });
    return median(samples);
  };
  const bareMs = median(times.get('bare')!);
  const result = cases.map((c) => {
    const medianMs = median(times.get(c.id)!);
    const x: CliStartCase = { id: c.id, command: c.command, medianMs, ratio: medianMs / bareMs, peakRss: peak(c) };
    log(`  ${label(x)}: ${medianMs.toFixed(0)} ms (${x.ratio.toFixed(2)}× bare), peak RSS ${(x.peakRss / 2 ** 20).toFixed(0)} MiB`);
    return x;
  });
  return { runs, cases: result, goals: CLI_GOALS };
}
