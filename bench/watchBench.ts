/**
 * `npm run bench -- --only watch` (issue 36): `routelens watch` following a ~/.claude/projects tree of about
 * `--watch-mb` MiB (default 1024; the formats benchmark's tree) while 1,000 calls are appended to 50 of its session
 * files at 20 writes/s, against the baseline of re-importing each changed file whole on the same file-system events
 * (importPaths, as `routelens import FILE` does). Both run as child processes on copies of one database that already
 * holds the tree (and, for the watcher, its cursors): latency from the write to the change committed (the watcher's
 * and the baseline's own "committed" line), p50 / p95; CPU seconds of the child during the writes and while idle;
 * peak RSS.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, readFileSync, rmSync, statSync, truncateSync, watch } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './dataset.ts';
import { claudeTree } from './formatsBench.ts';

export interface WatchRun {
  p50Ms: number;
  p95Ms: number;
  /** Writes whose change was never seen committed before the run ended. */
  missed: number;
  cpuSecondsWriting: number;
  /** CPU used over `idleSeconds` with nothing written, as a share of one core. */
  idleCpuShare: number;
  peakRss: number;
}

export interface WatchBenchResult {
  megabytes: number;
  files: number;
  sessions: number;
  writes: number;
  writesPerSec: number;
  idleSeconds: number;
  /** Seconds the first watch of the tree took (every file read and imported, cursors stored). */
  firstWatchSeconds: number;
  ours: WatchRun;
  baseline: WatchRun;
  /** Baseline p50 over ours. */
  latencyRatio: number;
  cpuRatio: number;
}

const SESSIONS = 50;
const WRITES = 1000;
const WRITES_PER_SEC = 20;
const IDLE_SECONDS = 5;
const SPOTTER = join(root, 'fixtures', 'samples', 'claude-code', 'spotter', '8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl');

const bin = join(root, 'bin', 'routelens.mjs');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One real call: a response with a tool call and usage, and the user line with its result (ids made unique per write). */
function callTemplate(): { assistant: string; user: string } {
  const lines = readFileSync(SPOTTER, 'utf8').split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    const a = JSON.parse(lines[i] as string) as { type?: string; message?: { usage?: unknown; content?: { type: string; id?: string }[] } };
    const call = a.type === 'assistant' ? a.message?.content?.find((b) => b.type === 'tool_use') : undefined;
    if (!call?.id || !a.message?.usage) continue;
    const next = lines.slice(i + 1).find((l) => l.includes(call.id as string) && l.includes('"tool_result"'));
    if (next) return { assistant: lines[i] as string, user: next };
  }
  throw new Error('no call with a tool result in the spotter sample');
}

function callLines(t: { assistant: string; user: string }, n: number, session: string): string {
  const stamp = new Date().toISOString();
  const fix = (line: string): string =>
    line.replace(/"msg_[A-Za-z0-9_]+"/g, `"msg_bench_${n}"`).replace(/"toolu_[A-Za-z0-9_]+"/g, `"toolu_bench_${n}"`)
      .replace(/"requestId":"[^"]*"/g, `"requestId":"req_bench_${n}"`).replace(/"uuid":"[^"]*"/g, `"uuid":"bench-${n}-${Math.random()}"`)
      .replace(/"sessionId":"[^"]*"/g, `"sessionId":"${session}"`).replace(/"timestamp":"[^"]*"/g, `"timestamp":"${stamp}"`);
  return `${fix(t.assistant)}\n${fix(t.user)}\n`;
}

/** user + system CPU seconds of a live process, from /proc. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function peakRss(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : (s[Math.min(s.length - 1, Math.floor(q * s.length))] as number);
};

/** Lines of a child's stream, as they come. */
function onLines(stream: NodeJS.ReadableStream, f: (line: string) => void): void {
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buf += chunk;
    for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
      f(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  });
}

/**
 * Runs one follower (ours or the baseline) over the tree: waits until it is ready, measures it idle, writes, and
 * takes each committed line's episode and turn count against the writes it answers.
 */
async function runFollower(child: ChildProcess, ready: (line: string) => boolean, sessions: string[], template: { assistant: string; user: string }, turnsAtStart: Map<string, number>): Promise<WatchRun> {
  const pid = child.pid as number;
  const committed = new Map<string, number>(); // episode → turns committed
  const waiting = new Map<string, { turns: number; at: number }[]>();
  const latencies: number[] = [];
  let isReady = false;
  let readyResolve = (): void => {};
  const readyPromise = new Promise<void>((r) => (readyResolve = r));
  const seen = (episode: string, turns: number): void => {
    committed.set(episode, turns);
    const q = waiting.get(episode) ?? [];
    const now = performance.now();
    while (q.length > 0 && (q[0] as { turns: number }).turns <= turns) latencies.push(now - (q.shift() as { at: number }).at);
  };
  const stderr: string[] = [];
  onLines(child.stderr as NodeJS.ReadableStream, (line) => {
    stderr.push(line);
    if (!isReady && ready(line)) {
      isReady = true;
      readyResolve();
    }
  });
  onLines(child.stdout as NodeJS.ReadableStream, (line) => {
    let x: { episodes?: { episode: string; turns: number }[] };
    try {
      x = JSON.parse(line) as typeof x;
    } catch {
      return;
    }
    for (const e of x.episodes ?? []) seen(e.episode, e.turns);
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  await Promise.race([readyPromise, exited.then((code) => {
    throw new Error(`follower exited (${code}) before it was ready:\n${stderr.slice(-20).join('\n')}`);
  })]);
  const idle0 = cpuSeconds(pid);
  await sleep(IDLE_SECONDS * 1000);
  const idleCpuShare = (cpuSeconds(pid) - idle0) / IDLE_SECONDS;
  const cpu0 = cpuSeconds(pid);
  const expected = new Map(turnsAtStart);
  const started = performance.now();
  for (let n = 0; n < WRITES; n++) {
    const file = sessions[(n * 7) % sessions.length] as string;
    const session = basename(file, '.jsonl');
    const turns = (expected.get(session) ?? 0) + 1;
    expected.set(session, turns);
    const q = waiting.get(session) ?? [];
    q.push({ turns, at: performance.now() });
    waiting.set(session, q);
    appendFileSync(file, callLines(template, n, session));
    const due = started + ((n + 1) * 1000) / WRITES_PER_SEC;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
  }
  // Until every write is committed, or 30 s.
  for (let i = 0; i < 300 && [...waiting.values()].some((q) => q.length > 0); i++) await sleep(100);
  const cpuSecondsWriting = cpuSeconds(pid) - cpu0;
  const rss = peakRss(pid);
  child.kill('SIGINT');
  await exited;
  const missed = [...waiting.values()].reduce((a, q) => a + q.length, 0);
  return { p50Ms: quantile(latencies, 0.5), p95Ms: quantile(latencies, 0.95), missed, cpuSecondsWriting, idleCpuShare, peakRss: rss };
}

export async function benchWatch(cache: string, megabytes: number, log: (s: string) => void): Promise<WatchBenchResult> {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build-cli.mjs'), '--quiet'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build:cli failed');
  const tree = claudeTree(cache, megabytes, log);
  const sessions = tree.files.filter((f) => !f.includes('/subagents/')).slice(0, SESSIONS);
  const sizes = new Map(sessions.map((f) => [f, statSync(f).size]));
  const restore = (): void => {
    for (const [f, size] of sizes) truncateSync(f, size);
  };
  restore(); // a run cut short leaves its writes behind
  const seed = join(cache, `watch-${tree.copies}.db`);
  let firstWatchSeconds = Number.NaN;
  const firstFile = join(cache, `watch-${tree.copies}.first.json`);
  if (!existsSync(seed) || !existsSync(firstFile)) {
    log(`  first watch of the tree (${tree.files.length} files): every file read, imported and given a cursor`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(seed + suffix, { force: true });
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, 'watch', tree.dir, '--db', seed, '--json'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      onLines(child.stderr as NodeJS.ReadableStream, (line) => {
        if (line.startsWith('following ')) {
          firstWatchSeconds = (performance.now() - t0) / 1000;
          child.kill('SIGINT');
        }
      });
      child.on('exit', () => (Number.isNaN(firstWatchSeconds) ? reject(new Error('the first watch ended before it was ready')) : resolve()));
    });
    (await import('node:fs')).writeFileSync(firstFile, JSON.stringify({ firstWatchSeconds }));
  } else {
    firstWatchSeconds = (JSON.parse(readFileSync(firstFile, 'utf8')) as { firstWatchSeconds: number }).firstWatchSeconds;
  }
  log(`  first watch: ${firstWatchSeconds.toFixed(1)} s`);
  const turnsAtStart = new Map<string, number>();
  {
    const { openDatabase } = await import('../electron/db/database.ts');
    const db = openDatabase(seed, { readonly: true });
    const q = db.prepare('SELECT n_turns FROM episodes WHERE ext_id = ?').pluck();
    for (const f of sessions) turnsAtStart.set(basename(f, '.jsonl'), (q.get(basename(f, '.jsonl')) as number | undefined) ?? 0);
    db.close();
  }
  const template = callTemplate();
  const copyDb = (to: string): void => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(to + suffix, { force: true });
    copyFileSync(seed, to);
  };

  log(`  ours: routelens watch, ${WRITES} calls over ${SESSIONS} session files at ${WRITES_PER_SEC} writes/s`);
  const oursDb = join(cache, 'watch-ours.db');
  copyDb(oursDb);
  const ours = await runFollower(
    spawn(process.execPath, [bin, 'watch', tree.dir, '--db', oursDb, '--json'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }),
    (l) => l.startsWith('following '), sessions, template, turnsAtStart,
  );
  restore();
  log(`  ours: p50 ${ours.p50Ms.toFixed(0)} ms, p95 ${ours.p95Ms.toFixed(0)} ms, CPU ${ours.cpuSecondsWriting.toFixed(1)} s, idle ${(ours.idleCpuShare * 100).toFixed(1)}% of a core, peak RSS ${(ours.peakRss / 2 ** 20).toFixed(0)} MiB, missed ${ours.missed}`);

  log('  baseline: the same events, each changed file imported again whole');
  const baseDb = join(cache, 'watch-baseline.db');
  copyDb(baseDb);
  const baseline = await runFollower(
    spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'watchBench.ts'), '--baseline', baseDb, tree.dir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }),
    (l) => l === 'ready', sessions, template, turnsAtStart,
  );
  restore();
  log(`  baseline: p50 ${baseline.p50Ms.toFixed(0)} ms, p95 ${baseline.p95Ms.toFixed(0)} ms, CPU ${baseline.cpuSecondsWriting.toFixed(1)} s, idle ${(baseline.idleCpuShare * 100).toFixed(1)}% of a core, peak RSS ${(baseline.peakRss / 2 ** 20).toFixed(0)} MiB, missed ${baseline.missed}`);
  return {
    megabytes, files: tree.files.length, sessions: SESSIONS, writes: WRITES, writesPerSec: WRITES_PER_SEC, idleSeconds: IDLE_SECONDS,
    firstWatchSeconds, ours, baseline,
    latencyRatio: baseline.p50Ms / ours.p50Ms,
    cpuRatio: baseline.cpuSecondsWriting / ours.cpuSecondsWriting,
  };
}

/**
 * The baseline: on each file-system event, the changed file imported again whole (hash, parse, its episode replaced),
 * one at a time; a line per import with the file's episode and turns, as the watcher's --json gives them.
 */
async function baselineChild(dbPath: string, dir: string): Promise<void> {
  const { openDatabase } = await import('../electron/db/database.ts');
  const { importPaths } = await import('../electron/importers/pipeline.ts');
  const db = openDatabase(dbPath);
  const dirty = new Set<string>();
  let busy = false;
  const drain = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    while (dirty.size > 0) {
      const [path] = dirty;
      dirty.delete(path as string);
      const report = await importPaths(db, [path as string]);
      const f = report.files[0];
      if (f?.status === 'imported') process.stdout.write(`${JSON.stringify({ episodes: [{ episode: basename(path as string, '.jsonl'), turns: f.turns }] })}\n`);
    }
    busy = false;
  };
  watch(dir, { recursive: true }, (_e, name) => {
    if (name === null) return;
    dirty.add(join(dir, name.toString()));
    void drain();
  });
  process.on('SIGINT', () => {
    db.close();
    process.exit(0);
  });
  process.stderr.write('ready\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--baseline') {
  const [dbPath, dir] = process.argv.slice(3);
  if (!dbPath || !dir) throw new Error('usage: node --import tsx bench/watchBench.ts --baseline DB DIR');
  await baselineChild(dbPath, dir);
}
