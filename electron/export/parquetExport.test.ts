/**
 * Parquet out: the canonical tables read back by DuckDB with the counts and sums the SQLite database has,
 * partitioned by run (hostile run names stay inside the folder), unknown costs as NULL.
 */
import { readdirSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { exportParquet, PARQUET_TABLES } from './parquetExport.ts';

const tempDir = useSuiteTempDir();

describe('export-data --format parquet', () => {
  const dir = tempDir();
  let db: Db;
  beforeAll(async () => {
    db = openDatabase(join(dir, 'x.db'));
    const hostile = join(dir, 'hostile.jsonl');
    writeFileSync(hostile, readFileSync('fixtures/canonical/example.jsonl', 'utf8').split('\n').filter(Boolean)
      .map((l) => JSON.stringify({ ...JSON.parse(l), run: '../../escape/me' })).join('\n'));
    // A total-only cost (SWE-agent), subagents (Claude Code), candidates and splits (MTRouter), a hostile run name.
    await importPaths(db, ['fixtures/canonical/example.jsonl', 'fixtures/samples/swe-agent', 'fixtures/samples/claude-code', 'fixtures/samples/mtrouter', hostile]);
  }, 120_000);

  it('DuckDB reads back every table with the database\'s counts and sums, one partition per run', async () => {
    const out = join(dir, 'parquet');
    const report = await exportParquet(db, out);
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const read = (t: string): string => `read_parquet('${join(out, t)}/*/*.parquet', hive_partitioning = true)`;
    const one = async (sql: string): Promise<Record<string, unknown>> => (await duck.runAndReadAll(sql)).getRowObjects()[0] as Record<string, unknown>;
    const sqlite = (sql: string): number => db.prepare(sql).pluck().get() as number;
    for (const table of Object.keys(PARQUET_TABLES)) {
      const n = Number((await one(`SELECT count(*) AS n FROM ${read(table)}`)).n);
      expect(n, table).toBe(report.tables[table]);
      expect(n, table).toBe(sqlite(`SELECT COUNT(*) FROM ${table}`));
    }
    const runs = db.prepare('SELECT name FROM runs').pluck().all() as string[];
    expect(readdirSync(join(out, 'turns')).length).toBe(runs.length);
    expect(readdirSync(out).sort()).toEqual(Object.keys(PARQUET_TABLES).sort());
    const turns = await one(`SELECT sum(cost) AS cost, count(*) - count(cost) AS unknown, sum(tokens_in) AS tin FROM ${read('turns')}`);
    expect(Number(turns.cost)).toBeCloseTo(sqlite("SELECT SUM(cost) FROM turns WHERE cost_source != 'none'"), 9);
    expect(Number(turns.unknown)).toBe(sqlite("SELECT COUNT(*) FROM turns WHERE cost_source = 'none'"));
    expect(Number(turns.unknown)).toBeGreaterThan(0);
    expect(Number(turns.tin)).toBe(sqlite('SELECT SUM(tokens_in) FROM turns'));
    // Per run, through the partition column: the hostile name comes back as it was.
    const perRun = (await duck.runAndReadAll(`SELECT run, count(*) AS n FROM ${read('turns')} GROUP BY run ORDER BY run`)).getRowObjects();
    const expected = db.prepare('SELECT r.name AS run, COUNT(*) AS n FROM turns t JOIN episodes e ON e.id = t.episode_id JOIN runs r ON r.id = e.run_id GROUP BY r.name ORDER BY r.name').all() as { run: string; n: number }[];
    expect(perRun.map((r) => ({ run: r.run, n: Number(r.n) }))).toEqual(expected);
    expect(perRun.some((r) => r.run === '../../escape/me')).toBe(true);
    const eps = await one(`SELECT count(*) - count(total_cost) AS unknown, sum(total_cost) AS cost FROM ${read('episodes')}`);
    expect(Number(eps.unknown)).toBe(sqlite('SELECT COUNT(*) FROM episodes WHERE unpriced_turns > 0'));
    expect(Number(eps.cost)).toBeCloseTo(sqlite('SELECT SUM(total_cost) FROM episodes WHERE unpriced_turns = 0'), 9);
  });

  it('refuses a folder that is not empty', async () => {
    const out = join(dir, 'full');
    await exportParquet(db, out);
    await expect(exportParquet(db, out)).rejects.toThrow('not empty');
  });
});
