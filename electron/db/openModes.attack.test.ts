// Issue 16 items 3–5: read commands open read-only and never write; files that are not RouteLens databases
// are refused (exit 1, one line) and left byte-identical; damage is reported as "damaged database: …, run
// `routelens doctor`" (exit 1, never a stack trace), imports into a damaged database fail, and `doctor`
// says what can be recovered. Every case spawns the real CLI.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSuiteTempDir } from '../testing/tmp.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/routelens.mjs');
const example = join(root, 'fixtures/canonical/example.jsonl');
const tempDir = useSuiteTempDir();

function routelens(args: string[], asNobody = false): { code: number; stdout: string; stderr: string } {
  const cmd = asNobody ? 'setpriv' : process.execPath;
  const argv = asNobody ? ['--reuid=65534', '--regid=65534', '--clear-groups', 'env', 'HOME=/tmp', process.execPath, bin, ...args] : [bin, ...args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: root, timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Content, mtime and the side files of `path`: what "never modified" is checked against. */
function fingerprint(path: string): string {
  const st = statSync(path);
  const data = st.isFile() ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'dir';
  const dir = join(path, '..');
  const side = readdirSync(dir).filter((f) => f.startsWith(`${path.slice(dir.length + 1)}-`)).sort();
  return `${data} ${st.mtimeMs} ${st.size} ${side.join(',')}`;
}

const expectOneLine = (stderr: string): void => {
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/internal error|\n\s+at /);
};

let good: string;
let dir: string;
beforeAll(() => {
  dir = tempDir();
  good = join(dir, 'good.db');
  const r = routelens(['import', example, '--db', good]);
  expect(r.code, r.stderr).toBe(0);
});

describe('read commands never write', () => {
  const reads = (db: string): string[][] => [
    ['info', '--db', db],
    ['analyze', 'pareto', '--db', db, '--json'],
    ['analyze', 'lift', '--db', db, '--json'],
    ['export', 'pareto', '--db', db, '--out', join(dir, 'pareto.csv')],
    ['replay', '--db', db, '--policy', 'fixed:gpt-5', '--bootstrap', '0', '--json'],
  ];
  it('leave the database byte-identical, with the same mtime and no new -wal/-shm', () => {
    const before = fingerprint(good);
    let n = 0;
    for (const args of reads(good)) {
      const r = routelens(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(fingerprint(good)).toBe(before);
      n++;
    }
    console.log(`attack: ${n} read commands on a RouteLens database, 0 bytes changed, 0 side files left`);
  });

  it('work on a read-only file in a read-only folder (run as an unprivileged user)', () => {
    const ro = join(tempDir(), 'ro');
    mkdirSync(ro);
    const db = join(ro, 'good.db');
    copyFileSync(good, db);
    chmodSync(db, 0o444);
    chmodSync(ro, 0o555);
    chmodSync(join(ro, '..'), 0o755);
    const probe = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'true']);
    if (probe.status !== 0) {
      console.log('attack: setpriv unavailable: read-only folder case not run');
      return;
    }
    const before = fingerprint(db);
    let ok = 0;
    for (const args of [['info', '--db', db], ['analyze', 'pareto', '--db', db, '--json'], ['replay', '--db', db, '--policy', 'fixed:gpt-5', '--bootstrap', '0', '--json']]) {
      const r = routelens(args, true);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      ok++;
    }
    expect(routelens(['info', '--db', db], true).stdout).toContain('sw-router-demo');
    expect(fingerprint(db)).toBe(before);
    console.log(`attack: ${ok} read commands as nobody on a 0444 database in a 0555 folder: ${ok} ok, 0 bytes changed`);
  });
});

describe('files that are not RouteLens databases are refused and left unchanged', () => {
  it('another application\'s SQLite, an empty file, a non-SQLite file, a folder, a missing file', () => {
    const d = tempDir();
    const other = join(d, 'other.sqlite');
    const raw = new Database(other);
    raw.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine')");
    raw.close();
    const otherWal = join(d, 'otherwal.sqlite');
    const rawWal = new Database(otherWal);
    rawWal.pragma('journal_mode = WAL');
    rawWal.exec('CREATE TABLE t (x)');
    rawWal.close();
    const empty = join(d, 'empty.db');
    writeFileSync(empty, '');
    const text = join(d, 'notes.txt');
    writeFileSync(text, 'hello, not a database\n');
    const folder = join(d, 'folder.db');
    mkdirSync(folder);
    const cases: [string, string[], RegExp][] = [
      [other, ['info'], /another application/],
      [other, ['import', example], /another application/],
      [other, ['analyze', 'pareto'], /another application/],
      [otherWal, ['info'], /another application/],
      [otherWal, ['import', example], /another application/],
      [empty, ['info'], /empty file/],
      [empty, ['analyze', 'lift'], /empty file/],
      [text, ['info'], /not an SQLite database/],
      [text, ['import', example], /not an SQLite database/],
      [folder, ['info'], /is a folder/],
      [folder, ['import', example], /is a folder/],
      [join(d, 'missing.db'), ['info'], /no such database/],
    ];
    for (const [file, args, why] of cases) {
      const before = existsSync(file) ? fingerprint(file) : 'absent';
      const r = routelens([...args, '--db', file]);
      expect(r.code, `${args[0]} ${file}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(why);
      expectOneLine(r.stderr);
      expect(existsSync(file) ? fingerprint(file) : 'absent').toBe(before);
    }
    console.log(`attack: ${cases.length} commands on 6 kinds of foreign file: ${cases.length} refused with exit 1, 0 files changed`);
  });

  it('import into a 0-byte file initialises it as a RouteLens database (documented choice)', () => {
    const empty = join(tempDir(), 'new.db');
    writeFileSync(empty, '');
    expect(routelens(['import', example, '--db', empty]).code).toBe(0);
    expect(routelens(['info', '--db', empty]).stdout).toContain('sw-router-demo');
  });
});

describe('damaged databases', () => {
  const damaged = (name: string, damage: (path: string) => void): string => {
    const path = join(tempDir(), name);
    copyFileSync(good, path);
    damage(path);
    return path;
  };
  const scribble = (path: string, offset: number, bytes: number): void => {
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(bytes, 0xa5), 0, bytes, offset);
    closeSync(fd);
  };

  it('are reported on open as "damaged database: …, run `routelens doctor`" with exit 1, and doctor exits 1', () => {
    const pageSize = new Database(good, { readonly: true }).pragma('page_size', { simple: true }) as number;
    const pages = statSync(good).size / pageSize;
    const files = [
      damaged('header.db', (p) => scribble(p, 16, 8)),
      damaged('magic.db', (p) => scribble(p, 0, 16)),
      damaged('middle.db', (p) => { for (const k of [0.4, 0.5, 0.6]) scribble(p, Math.floor(pages * k) * pageSize, pageSize); }),
      damaged('truncated.db', (p) => truncateSync(p, Math.floor(pages / 3) * pageSize)),
      damaged('short.db', (p) => truncateSync(p, 60)),
    ];
    let refused = 0;
    for (const file of files) {
      const before = fingerprint(file);
      for (const args of [['info'], ['import', join(root, 'fixtures/samples/mtrouter/router.traj.json')]]) {
        const r = routelens([...args, '--db', file]);
        expect(r.code, `${args[0]} ${file}: ${r.stderr}`).toBe(1);
        expect(r.stderr).toMatch(/damaged database: .*run `routelens doctor --db /);
        expectOneLine(r.stderr);
        refused++;
      }
      const doc = routelens(['doctor', '--db', file, '--json']);
      expect(doc.code, doc.stderr).toBe(1);
      expect(JSON.parse(doc.stdout).status).toBe('damaged');
      expect(fingerprint(file)).toBe(before);
    }
    console.log(`attack: ${files.length} damaged databases × 2 commands: ${refused} refused as damaged (exit 1), 0 stack traces, 0 silent imports`);
  });

  it('doctor says what can be recovered, and passes an intact database', () => {
    const ok = routelens(['doctor', '--db', good, '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    const healthy = JSON.parse(ok.stdout);
    expect(healthy.status).toBe('ok');
    expect(healthy.runs.map((r: { name: string }) => r.name).sort()).toEqual(['hle-router-demo', 'sw-router-demo']);
    const pageSize = 4096;
    const path = damaged('lastpage.db', (p) => {
      // the last page: some table's leaf, while the sources table (created early) stays readable
      scribble(p, statSync(p).size - pageSize + 8, 64);
    });
    const r = routelens(['doctor', '--db', path]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('DAMAGED');
    expect(r.stdout).toMatch(/recovery: /);
  });

  it('an import into a damaged database fails (never silently), and "cannot rollback" hides nothing', () => {
    const r = routelens(['import', example, '--db', damaged('mid2.db', (p) => scribble(p, 8 * 4096, 4096 * 4))]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/cannot rollback/);
  });
});
