/**
 * Attack (issue 16, item 8): hostile values in logs and hostile files to read. Numbers that are not finite or
 * whose sums overflow, names no one can see, absurd candidate counts, named pipes and devices given as logs,
 * and lone UTF-16 surrogates. Each hostile value is a `path:line: reason` refusal that writes nothing; files
 * that never end are refused before they are opened; the database holds valid UTF-8 only.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_CANDIDATES } from '../../shared/canonical.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { useTempDir } from '../testing/tmp.ts';
import { importPaths, type ImportReport } from './pipeline.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const example = join(root, 'fixtures/canonical/example.jsonl');
const miniTraj = join(root, 'fixtures/samples/mini-swe-agent/trajs/astropy__astropy-7166/astropy__astropy-7166.traj.json');
const tempDir = useTempDir();
const count = (db: Db, table: string): number => db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

type Episode = Record<string, unknown> & { turns: Record<string, unknown>[] };
/** A valid episode of the example file, to be made hostile. */
const base = (): Episode => JSON.parse(readFileSync(example, 'utf8').split('\n')[0] as string) as Episode;
const turn0 = (ep: Episode): Record<string, unknown> => ep.turns[0] as Record<string, unknown>;

/**
 * Hostile values, each written as line 2 of a file whose line 1 is a good episode. JSON text is spliced in
 * where JSON.stringify cannot write the number (1e999 parses to Infinity).
 */
const HOSTILE: { name: string; edit: (ep: Episode) => void; splice?: [string, string]; reason: RegExp }[] = [
  { name: 'turn cost 1.7e308 (sums overflow)', edit: (ep) => (turn0(ep).cost_usd = 1.7e308), reason: /^turns\[0\]\.cost_usd: over the limit/ },
  { name: 'turn cost 1e999 (Infinity)', edit: (ep) => (turn0(ep).cost_usd = 12345), splice: ['12345', '1e999'], reason: /^turns\[0\]\.cost_usd: / },
  { name: 'episode cost 1.7e308', edit: (ep) => (ep.cost_usd = 1.7e308), reason: /^cost_usd: over the limit/ },
  { name: 'budget 1.7e308', edit: (ep) => ((ep.budget as Record<string, unknown>).usd = 1.7e308), reason: /^budget\.usd: over the limit/ },
  { name: 'grader cost -1e999', edit: (ep) => (ep.grader_calls = [{ model: 'gpt-5', cost_usd: -12345 }]), splice: ['-12345', '-1e999'], reason: /^grader_calls\[0\]\.cost_usd: / },
  { name: 'tokens 1e308 (not a safe integer)', edit: (ep) => (turn0(ep).tokens = { in: 1e308, out: 1 }), reason: /^turns\[0\]\.tokens\.in: / },
  { name: 'tokens 1e12 (priced cost overflows)', edit: (ep) => (turn0(ep).tokens = { in: 1, out: 1e12 }), reason: /^turns\[0\]\.tokens\.out: over the limit/ },
  { name: 'latency 1.7e308', edit: (ep) => (turn0(ep).latency_ms = 1.7e308), reason: /^turns\[0\]\.latency_ms: over the limit/ },
  { name: 'score 1.7e308', edit: (ep) => ((ep.outcome as Record<string, unknown>).score = 1.7e308), reason: /^outcome\.score: / },
  { name: 'q-value 1.7e308', edit: (ep) => (turn0(ep).candidates = { 'gpt-5': 1.7e308 }), reason: /^turns\[0\]\.candidates\.gpt-5: / },
  { name: 'model name of spaces', edit: (ep) => (turn0(ep).model = '   '), reason: /^turns\[0\]\.model: must not be empty or only whitespace/ },
  { name: 'model name of a zero-width space', edit: (ep) => (turn0(ep).model = '\u200b\u2060'), reason: /^turns\[0\]\.model: must not be empty/ },
  { name: 'greedy model of a tab', edit: (ep) => (turn0(ep).router = { greedy_model: '\t' }), reason: /^turns\[0\]\.router\.greedy_model: must not be empty/ },
  { name: 'grader model of spaces', edit: (ep) => (ep.grader_calls = [{ model: '  ' }]), reason: /^grader_calls\[0\]\.model: must not be empty/ },
  { name: 'candidate name of spaces', edit: (ep) => (turn0(ep).candidates = { ' ': 0.5 }), reason: /^turns\[0\]\.candidates\. : model name must not be empty/ },
  { name: 'run name of spaces', edit: (ep) => (ep.run = ' \u00a0 '), reason: /^run: must not be empty/ },
  {
    name: `100,000 candidates in one turn`,
    edit: (ep) => (turn0(ep).candidates = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`model-${i}`, i / 1e5]))),
    reason: new RegExp(`^turns\\[0\\]\\.candidates: 100000 candidates, over the limit of ${MAX_CANDIDATES}$`),
  },
];

function hostileFile(dir: string, h: (typeof HOSTILE)[number]): string {
  const good = base();
  const bad = base();
  bad.episode_id = 'hostile';
  h.edit(bad);
  let line = JSON.stringify(bad);
  if (h.splice) line = line.replace(h.splice[0], h.splice[1]);
  const file = join(dir, `${h.name.replace(/[^a-z0-9]+/gi, '-')}.jsonl`);
  writeFileSync(file, `${JSON.stringify(good)}\n${line}\n`);
  return file;
}

describe('attack: hostile values in logs', () => {
  it('refuses every hostile value class at its line and writes nothing', async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'h.db'));
    let refused = 0;
    const started = Date.now();
    for (const h of HOSTILE) {
      const file = hostileFile(dir, h);
      const report = await importPaths(db, [file]);
      const f = report.files[0];
      expect(f?.status, h.name).toBe('rejected');
      const prefix = `${file}:2: `;
      expect(f?.reason?.startsWith(prefix), `${h.name}: ${f?.reason}`).toBe(true);
      expect(f?.reason?.slice(prefix.length), h.name).toMatch(h.reason);
      // One line, whatever the value: the reason is printed as is.
      expect(f?.reason, h.name).not.toContain('\n');
      if (f?.status === 'rejected' && f.reason?.startsWith(prefix)) refused++;
    }
    const written = count(db, 'episodes') + count(db, 'turns') + count(db, 'sources');
    const models = db.prepare("SELECT COUNT(*) FROM models WHERE trim(name) = '' OR name LIKE 'model-%'").pluck().get();
    db.close();
    expect(written).toBe(0);
    expect(models).toBe(0);
    console.log(
      `attack: ${HOSTILE.length} hostile value classes, ${refused} refused with path:line, ${written} rows written ` +
        `(${Date.now() - started} ms)`,
    );
  });

  it('the funnel holds for every importer: a mini-swe-agent trajectory with an overflowing cost or an invisible model name', async () => {
    const dir = tempDir();
    const variant = (name: string, edit: (m: Record<string, unknown>) => void): string => {
      const file = join(dir, name, 'trajs', 'x', 'x.traj.json');
      mkdirSync(dirname(file), { recursive: true });
      const traj = JSON.parse(readFileSync(miniTraj, 'utf8')) as { messages: Record<string, unknown>[] };
      const m = traj.messages[4] as Record<string, unknown>;
      expect(m.role).toBe('assistant');
      edit(m);
      writeFileSync(file, JSON.stringify(traj, null, 2));
      return file;
    };
    const costly = variant('a', (m) => {
      ((m.extra as { response: { usage: Record<string, unknown> } }).response.usage).cost = 1.7e308;
    });
    const invisible = variant('b', (m) => (m.model_name = '\u200b'));
    const db = openDatabase(join(dir, 'h.db'));
    const report = await importPaths(db, [costly, invisible]);
    expect(report.files.map((f) => f.status)).toEqual(['rejected', 'rejected']);
    expect(report.files[0]?.reason).toMatch(/traj\.json:\d+: turns\[1\]\.cost_usd: over the limit/);
    expect(report.files[1]?.reason).toMatch(/traj\.json:\d+: turns\[1\]\.model: must not be empty/);
    expect(count(db, 'episodes')).toBe(0);
    db.close();
  });

  it('costs at the limit add up to finite totals', async () => {
    const dir = tempDir();
    const ep = base();
    for (const t of ep.turns) t.cost_usd = 1e6;
    ep.grader_calls = [{ model: 'gpt-5', cost_usd: 1e6 }];
    const file = join(dir, 'max.jsonl');
    writeFileSync(file, `${JSON.stringify(ep)}\n`);
    const db = openDatabase(join(dir, 'h.db'));
    expect((await importPaths(db, [file])).files[0]?.status).toBe('imported');
    const sums = db.prepare('SELECT SUM(total_cost) AS total, SUM(grader_cost) AS grader FROM episodes').get() as Record<string, number>;
    const perModel = db.prepare('SELECT SUM(cost) FROM episode_models').pluck().get() as number;
    db.close();
    expect(sums.total).toBe(1e6 * ep.turns.length);
    expect(sums.grader).toBe(1e6);
    expect(perModel).toBe(1e6 * ep.turns.length);
  });

  it('many new model names are one warning line, not one per model', async () => {
    const dir = tempDir();
    const ep = base();
    // 20 turns × 250 new names: under the per-turn limit, 5,000 models in all.
    ep.turns = Array.from({ length: 20 }, (_, t) => ({
      ...turn0(ep),
      t,
      candidates: Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`new-model-${t}-${i}`, i])),
    }));
    const file = join(dir, 'many.jsonl');
    writeFileSync(file, `${JSON.stringify(ep)}\n`);
    const db = openDatabase(join(dir, 'h.db'));
    const report = await importPaths(db, [file]);
    db.close();
    expect(report.files[0]?.status).toBe('imported');
    expect(report.modelsAdded).toHaveLength(5000);
    const lines = report.warnings.filter((w) => w.includes('models/pool.json'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^5000 models are not in models\/pool\.json, added without prices \(turns without a logged cost have an unknown cost\): "new-model-0-0", .* and 4990 more$/);
    console.log(`attack: 5000 unknown model names in one file, ${lines.length} warning line`);
  });
});

/** Every text value in every table, read back as bytes: how many are not valid UTF-8. */
function invalidUtf8Values(db: Db): { checked: number; invalid: number } {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let checked = 0;
  let invalid = 0;
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%'").pluck().all() as string[];
  for (const table of tables) {
    const cols = db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
    for (const col of cols) {
      const q = db.prepare(`SELECT CAST("${col}" AS BLOB) FROM "${table}" WHERE typeof("${col}") = 'text'`).pluck();
      for (const bytes of q.iterate() as Iterable<Buffer>) {
        checked++;
        try {
          decoder.decode(bytes);
        } catch {
          invalid++;
        }
      }
    }
  }
  return { checked, invalid };
}

describe('attack: lone UTF-16 surrogates', () => {
  it('stores valid UTF-8 only: lone surrogates become U+FFFD, with one warning for the file', async () => {
    const dir = tempDir();
    const ep = base();
    turn0(ep).model = 'gpt-XSURR';
    turn0(ep).observation = 'cut XSURR here, and a pair 😀 kept';
    (ep.task as Record<string, unknown>).text = 'low XLOW alone';
    // JSON escapes as a log writer would emit them; JSON.stringify would write the pair as the emoji itself.
    const line = JSON.stringify(ep).replaceAll('XSURR', '\\ud800').replace('XLOW', '\\udc00');
    const file = join(dir, 'surrogates.jsonl');
    writeFileSync(file, `${line}\n`);
    const db = openDatabase(join(dir, 'h.db'));
    const report = await importPaths(db, [file]);
    expect(report.files[0]?.status).toBe('imported');
    expect(report.warnings.filter((w) => w.includes('surrogate'))).toEqual([
      `${file}: 3 string(s) held lone UTF-16 surrogates (such as "\\ud800"): stored with U+FFFD in their place`,
    ]);
    const { checked, invalid } = invalidUtf8Values(db);
    const observation = db.prepare('SELECT observation FROM turn_text ORDER BY turn_id LIMIT 1').pluck().get();
    const model = db.prepare("SELECT name FROM models WHERE name LIKE 'gpt-%' AND name LIKE '%\uFFFD%'").pluck().get();
    db.close();
    expect(invalid).toBe(0);
    expect(observation).toBe('cut \uFFFD here, and a pair 😀 kept');
    expect(model).toBe('gpt-\uFFFD');
    console.log(`attack: 3 lone surrogates in one episode, ${checked} text values read back as bytes, ${invalid} invalid UTF-8`);
  });
});

/** Imports `file` in a child process (a hang there cannot hang the test runner), with a deadline. */
function importInChild(file: string, db: string, format: string | null, timeoutMs: number): { ms: number; report: ImportReport | null; timedOut: boolean } {
  const script = `
    const { openDatabase } = await import(${JSON.stringify(join(root, 'electron/db/database.ts'))});
    const { importPaths } = await import(${JSON.stringify(join(root, 'electron/importers/pipeline.ts'))});
    const db = openDatabase(${JSON.stringify(db)});
    const report = await importPaths(db, [${JSON.stringify(file)}], ${format ? `{ format: ${JSON.stringify(format)} }` : '{}'});
    db.close();
    process.stdout.write(JSON.stringify(report));`;
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root, encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL',
  });
  const ms = Date.now() - started;
  const timedOut = r.error !== undefined || r.signal !== null;
  return { ms, timedOut, report: timedOut || r.status !== 0 ? null : (JSON.parse(r.stdout) as ImportReport) };
}

describe('attack: files that never end', () => {
  it('refuses a FIFO, /dev/zero and a symlink to it before opening them, also with --format', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'pipe.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const link = join(dir, 'zero.jsonl');
    symlinkSync('/dev/zero', link);
    const cases: [string, string | null, RegExp][] = [
      [fifo, 'canonical', /:1: not a regular file: a named pipe \(FIFO\)$/],
      [fifo, null, /:1: not a regular file: a named pipe \(FIFO\)$/],
      ['/dev/zero', 'canonical', /:1: not a regular file: a character device$/],
      ['/dev/zero', 'inspect', /:1: not a regular file: a character device$/],
      [link, 'otel', /:1: not a regular file: a character device$/],
    ];
    let refused = 0;
    let slowest = 0;
    for (const [file, format, reason] of cases) {
      const r = importInChild(file, join(dir, 'h.db'), format, 20_000);
      expect(r.timedOut, `${file} --format ${format} hung`).toBe(false);
      const f = r.report?.files[0];
      expect(f?.status).toBe('rejected');
      expect(f?.reason).toMatch(reason);
      expect(f?.reason?.startsWith(`${file}:1: `)).toBe(true);
      refused++;
      slowest = Math.max(slowest, r.ms);
    }
    console.log(`attack: ${cases.length} imports of FIFOs and devices, ${refused} refused, slowest ${slowest} ms, 0 hangs`);
  }, 120_000);

  it('the CLI refuses a FIFO with --format promptly, exit 1, one line', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'pipe.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const child = spawn(process.execPath, [join(root, 'bin/routelens.mjs'), 'import', fifo, '--format', 'canonical', '--db', join(dir, 'c.db')], {
      cwd: root,
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    clearTimeout(timer);
    expect(code).toBe(1);
    expect(stderr).toContain(`rejected  ${fifo}:1: not a regular file: a named pipe (FIFO)`);
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});

describe('attack: sidecar files that never end', () => {
  it('a FIFO where a trajectory\'s labels, report or run arguments would be is passed over, not read', () => {
    const dir = tempDir();
    // mini-swe-agent: logs/<id>/report.json beside trajs/<id>/<id>.traj.json; SWE-agent: args.yaml and results.json.
    const id = 'django__django-12143';
    const run = join(dir, 'run');
    mkdirSync(join(run, 'trajs', id), { recursive: true });
    mkdirSync(join(run, 'logs', id), { recursive: true });
    copyFileSync(join(root, 'fixtures/samples/mini-swe-agent/trajs', id, `${id}.traj.json`), join(run, 'trajs', id, `${id}.traj.json`));
    expect(spawnSync('mkfifo', [join(run, 'logs', id, 'report.json')]).status).toBe(0);
    const sweRun = join(dir, 'swe-run');
    mkdirSync(sweRun);
    const sweSamples = join(root, 'fixtures/samples/swe-agent');
    const sweDir = join(sweSamples, readdirSync(sweSamples).find((d) => statSync(join(sweSamples, d)).isDirectory()) as string);
    const traj = readdirSync(sweDir).find((f) => f.endsWith('.traj')) as string;
    copyFileSync(join(sweDir, traj), join(sweRun, traj));
    for (const name of ['args.yaml', 'results.json']) expect(spawnSync('mkfifo', [join(sweRun, name)]).status).toBe(0);
    let imported = 0;
    for (const file of [join(run, 'trajs', id, `${id}.traj.json`), join(sweRun, traj)]) {
      const r = importInChild(file, join(dir, 'side.db'), null, 20_000);
      expect(r.timedOut, `${file} hung on a FIFO sidecar`).toBe(false);
      expect(r.report?.files[0]?.status).toBe('imported');
      imported++;
    }
    console.log(`attack: 3 FIFO sidecars (report.json, args.yaml, results.json), ${imported} trajectories imported, 0 hangs`);
  }, 60_000);
});
