// Issue 38 item 3: a RouteLens database received from someone else is checked against the schema RouteLens
// writes before any query runs. Each case takes a real database made by `routelens import`, changes its schema
// as an attacker would (a view in place of a table, planted triggers, a view calling load_extension), and spawns
// the real CLI: every command refuses it with exit 1 and one line naming what differs, leaves it byte-identical,
// and `doctor` names each difference instead of calling it intact.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDemo } from '../demo.ts';
import { openDatabase } from './database.ts';
import { schemaDifferences } from './schemaIdentity.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/routelens.mjs');
const example = join(root, 'fixtures/canonical/example.jsonl');
const mtrouter = join(root, 'fixtures/samples/mtrouter/router.traj.json');
const tempDir = useSuiteTempDir();
/** A hostile view runs forever: a command that has not answered by then ran it. */
const HANG_MS = 20_000;

function routelens(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: root, timeout: HANG_MS, killSignal: 'SIGKILL' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

const expectOneLine = (stderr: string): void => {
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/internal error|\n\s+at /);
};

// A view with the columns of `runs` that never ends: `info` counts it, `doctor` lists it.
const ENDLESS_RUNS = `
PRAGMA foreign_keys = OFF;
DROP TABLE runs;
CREATE VIEW runs AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
  SELECT i AS id, 'run ' || i AS name, 'canonical' AS source_format, NULL AS source_path, '' AS imported_at,
         NULL AS policy_name, NULL AS policy_kind, NULL AS notes FROM n;`;
// Triggers that fire on the next import: its error rows vanish, its outcomes flip.
const PLANTED_TRIGGERS = `
CREATE TRIGGER turn_errors_clean AFTER INSERT ON turn_errors BEGIN DELETE FROM turn_errors WHERE rowid = new.rowid; END;
CREATE TRIGGER episodes_flip AFTER INSERT ON episodes BEGIN UPDATE episodes SET success = 1 - success WHERE id = new.id; END;`;
const LOAD_EXTENSION_RUNS = `
PRAGMA foreign_keys = OFF;
DROP TABLE runs;
CREATE VIEW runs AS SELECT load_extension('/tmp/routelens-no-such-library') AS id, '' AS name, '' AS source_format,
  NULL AS source_path, '' AS imported_at, NULL AS policy_name, NULL AS policy_kind, NULL AS notes;`;

let good: string;
beforeAll(() => {
  good = join(tempDir(), 'good.db');
  const r = routelens(['import', example, '--db', good]);
  expect(r.code, r.stderr).toBe(0);
}, 60_000);

function altered(name: string, sql: string): string {
  const path = join(tempDir(), name);
  copyFileSync(good, path);
  const db = new Database(path);
  db.exec(sql);
  db.pragma('journal_mode = DELETE'); // one file: the fingerprint covers every byte
  db.close();
  return path;
}

describe('a received database whose schema is not as RouteLens wrote it', () => {
  it('with `runs` replaced by an endless view: info, analyze, import and doctor answer at once (exit 1), nothing changed', () => {
    const path = altered('endless.db', ENDLESS_RUNS);
    const before = sha(path);
    for (const args of [['info'], ['analyze', 'pareto', '--json'], ['import', mtrouter]]) {
      const started = Date.now();
      const r = routelens([...args, '--db', path]);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(/not as RouteLens wrote it \(view runs where RouteLens has a table/);
      expectOneLine(r.stderr);
      expect(Date.now() - started).toBeLessThan(HANG_MS);
    }
    const doc = routelens(['doctor', '--db', path, '--json']);
    expect(doc.code, doc.stderr).toBe(1);
    const report = JSON.parse(doc.stdout) as { status: string; problems: string[] };
    expect(report.status).toBe('altered');
    expect(report.problems).toContain('not as RouteLens wrote it: view runs where RouteLens has a table');
    expect(sha(path)).toBe(before);
  }, 4 * HANG_MS);

  it('with planted triggers: the next import is refused before they fire, and doctor names them', () => {
    const path = altered('triggers.db', PLANTED_TRIGGERS);
    const before = sha(path);
    const r = routelens(['import', mtrouter, '--db', path]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/trigger turn_errors_clean on turn_errors that RouteLens never creates; trigger episodes_flip on episodes that RouteLens never creates/);
    expectOneLine(r.stderr);
    expect(sha(path)).toBe(before);
    const doc = routelens(['doctor', '--db', path]);
    expect(doc.code).toBe(1);
    expect(doc.stdout).toContain('ALTERED');
    expect(doc.stdout).toContain('problem: not as RouteLens wrote it: trigger episodes_flip on episodes that RouteLens never creates');
    // Tables defined as RouteLens defines them are still counted: what the file holds is visible.
    expect(doc.stdout).toMatch(/table runs\s+2 rows/);
  }, 3 * HANG_MS);

  it('with a view calling load_extension: exit 1 with one line, no stack trace', () => {
    const path = altered('extension.db', LOAD_EXTENSION_RUNS);
    const r = routelens(['info', '--db', path]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/view runs where RouteLens has a table/);
    expectOneLine(r.stderr);
  }, 2 * HANG_MS);

  it('serve refuses it at start (exit 1), so no request can run the endless view', async () => {
    const path = altered('serve.db', ENDLESS_RUNS);
    const child = spawn(process.execPath, [bin, 'serve', '--db', path, '--port', '0'], { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    clearTimeout(timer);
    expect(code, `${stdout}${stderr}`).toBe(1);
    expect(stdout).not.toContain('http://');
    expect(stderr).toMatch(/view runs where RouteLens has a table/);
    expectOneLine(stderr);
  }, 2 * HANG_MS);
});

describe('every database RouteLens writes passes the check', () => {
  it('a database imported by the CLI opens, and its schema has no difference', () => {
    const db = openDatabase(good, { readonly: true });
    expect(schemaDifferences(db, db.prepare('SELECT MAX(version) FROM schema_version').pluck().get() as number)).toEqual([]);
    db.close();
  });

  it('the demo database (simulated runs and every bundled sample, scored) opens and has no difference', async () => {
    const path = join(tempDir(), 'demo.db');
    await buildDemo(path);
    const db = openDatabase(path, { readonly: true });
    expect(schemaDifferences(db, db.prepare('SELECT MAX(version) FROM schema_version').pluck().get() as number)).toEqual([]);
    db.close();
  }, 120_000);
});
