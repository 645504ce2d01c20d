/**
 * The ClickHouse store (issue 19, DESIGN §11): the dataset's JSONL imported into a 2-shard cluster on loopback
 * (test/clickhouseCluster.ts) by `importToStore` in a child process that reports its time and peak RSS, against
 * ClickHouse's own `INSERT … FORMAT JSONEachRow` of the same rows (dumped from the store, inserted into a fresh
 * database on the same shards, both shards at once, table by table as ours does); rows/s counts turns. Then each
 * pushed-down analysis on the cluster (median of `repeat`, after one warm-up) next to the typed-array path on
 * the same dataset's SQLite database (warm columnar cache), their answers checked equal; and the turns per shard.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '../electron/db/database.ts';
import { paretoAnalysis } from '../electron/analysis/pareto.ts';
import { switchCostAnalysis } from '../electron/analysis/switchCost.ts';
import { errorRecoveryAnalysis } from '../electron/analysis/errorRecovery.ts';
import { usageByTurnAnalysis } from '../electron/analysis/usageByTurn.ts';
import { columnar } from '../electron/analysis/columnar.ts';
import { ClickHouseStore } from '../electron/store/clickhouse/connection.ts';
import { initStore, SHARDED_TABLES } from '../electron/store/clickhouse/schema.ts';
import { importToStore } from '../electron/store/clickhouse/importToStore.ts';
import { errorRecoveryOnStore, paretoOnStore, switchCostOnStore, usageByTurnOnStore } from '../electron/store/clickhouse/storeAnalyses.ts';
import { parseStoreUrl } from '../electron/store/storeUrl.ts';
import { startTestCluster } from '../test/clickhouseCluster.ts';
import { root, type Dataset } from './dataset.ts';

export interface StoreImportRun {
  seconds: number;
  cpuSeconds: number;
  peakRss: number;
  turns: number;
  episodes: number;
}

export interface StoreBenchResult {
  clickhouseVersion: string;
  shards: number;
  ours: StoreImportRun;
  oursTurnsPerSec: number;
  baselineSeconds: number;
  baselineTurnsPerSec: number;
  /** ours / baseline turns per second (goal ≥ 0.5). */
  ratio: number;
  /** Rows and bytes ClickHouse's own insert read, all tables. */
  baselineRows: number;
  baselineBytes: number;
  turnsPerShard: number[];
  /** Compressed bytes on disk per turn, all sharded tables (text included), and of the numeric turns table alone. */
  diskBytesPerTurn: number;
  turnsTableBytesPerTurn: number;
  analyses: { id: string; storeMs: number; sqliteMs: number; equal: boolean }[];
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

function closeEnough(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    const key = (x: unknown): string => JSON.stringify(x, (_k, v) => (typeof v === 'number' ? Number(v.toPrecision(8)) : v));
    const sa = [...a].sort((x, y) => key(x).localeCompare(key(y)));
    const sb = [...b].sort((x, y) => key(x).localeCompare(key(y)));
    return sa.every((x, i) => closeEnough(x, sb[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return ka.join() === kb.join() && ka.every((k) => closeEnough((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

/**
 * One HTTP request to a ClickHouse server on its own connection (after a long import, a pooled keep-alive
 * connection may already be closed by the server), its body from `input`, its answer into `output` or returned.
 */
async function post(port: number, query: string, input?: Readable, output?: Writable): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: `/?query=${encodeURIComponent(query)}&output_format_json_quote_64bit_integers=0`, agent: false }, (res) => {
      if (res.statusCode !== 200 || !output) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${query.slice(0, 60)}: ${text.slice(0, 300)}`))));
        return;
      }
      pipeline(res, output).then(() => resolve(''), reject);
    });
    req.on('error', reject);
    if (input) pipeline(input, req).catch(reject);
    else req.end();
  });
}

async function timed<T>(f: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await f();
  return { ms: performance.now() - t, value };
}

export async function benchStore(dataset: Dataset, cache: string, repeat: number, log: (s: string) => void): Promise<StoreBenchResult> {
  log('  starting a 2-shard ClickHouse cluster on loopback');
  const cluster = await startTestCluster(2);
  const url = cluster.url('bench');
  const store = new ClickHouseStore(parseStoreUrl(url));
  try {
    await initStore(store);
    const version = String((await store.query<{ v: string }>('SELECT version() AS v'))[0]?.v);
    log(`  ours: importing ${dataset.jsonl.length} JSONL file(s) in a child process`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'storeBench.ts'), '--child', url, ...dataset.jsonl], {
      cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`bench/storeBench.ts --child failed (${r.status})`);
    const ours = JSON.parse(r.stdout.trim().split('\n').pop() as string) as StoreImportRun;
    log(`  ours: ${ours.turns.toLocaleString('en-US')} turns in ${ours.seconds.toFixed(1)} s (CPU ${ours.cpuSeconds.toFixed(1)} s), peak RSS ${(ours.peakRss / 2 ** 20).toFixed(0)} MiB`);

    // The baseline: the same rows, dumped per shard as JSONEachRow, inserted by ClickHouse into a fresh database.
    const dumpDir = join(cache, 'store-baseline');
    rmSync(dumpDir, { recursive: true, force: true });
    mkdirSync(dumpDir, { recursive: true });
    const files: { table: string; shard: number; path: string }[] = [];
    for (const table of SHARDED_TABLES) {
      for (const [shard, port] of cluster.httpPorts.entries()) {
        const path = join(dumpDir, `${table}-${shard}.jsonl`);
        await post(port, `SELECT * FROM bench.${table}_local FORMAT JSONEachRow`, undefined, createWriteStream(path));
        files.push({ table, shard, path });
      }
    }
    const base = new ClickHouseStore(parseStoreUrl(cluster.url('baseline')));
    await initStore(base);
    await base.close();
    let baselineBytes = 0;
    const baselineStart = performance.now();
    for (const table of SHARDED_TABLES) {
      await Promise.all(files.filter((f) => f.table === table).map(async (f) => {
        baselineBytes += statSync(f.path).size;
        await post(cluster.httpPorts[f.shard] as number, `INSERT INTO baseline.${table}_local FORMAT JSONEachRow`, createReadStream(f.path));
      }));
    }
    const baselineSeconds = (performance.now() - baselineStart) / 1000;
    const counted = await store.query<{ n: string }>(`SELECT (SELECT count() FROM baseline.episodes) + (SELECT count() FROM baseline.turns) + (SELECT count() FROM baseline.turn_text)
      + (SELECT count() FROM baseline.turn_errors) + (SELECT count() FROM baseline.turn_candidates) + (SELECT count() FROM baseline.plan_nodes) + (SELECT count() FROM baseline.plan_edges) AS n`);
    rmSync(dumpDir, { recursive: true, force: true });
    log(`  ClickHouse's own JSONEachRow insert of the same rows: ${baselineSeconds.toFixed(1)} s (${(baselineBytes / 2 ** 20).toFixed(0)} MiB)`);

    const turnsPerShard = await Promise.all(cluster.httpPorts.map(async (port) => Number((await post(port, 'SELECT count() FROM bench.turns_local')).trim())));
    const disk = await Promise.all(cluster.httpPorts.map(async (port) =>
      (await post(port, "SELECT table, sum(bytes_on_disk) AS b FROM system.parts WHERE database = 'bench' AND active GROUP BY table FORMAT JSONEachRow"))
        .trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { table: string; b: string | number })));
    const bytes = disk.flat();
    const allBytes = bytes.reduce((a, r) => a + Number(r.b), 0);
    const turnsBytes = bytes.filter((r) => r.table === 'turns_local').reduce((a, r) => a + Number(r.b), 0);
    log(`  on disk: ${(allBytes / ours.turns).toFixed(0)} bytes per turn in all tables, ${(turnsBytes / ours.turns).toFixed(1)} in the numeric turns table`);

    const db = openDatabase(dataset.db, { readonly: true });
    columnar(db);
    const pairs: [string, () => Promise<unknown>, () => unknown][] = [
      ['pareto', () => paretoOnStore(store, {}), () => paretoAnalysis(db)],
      ['switch-cost', () => switchCostOnStore(store, {}), () => switchCostAnalysis(db)],
      ['error-recovery', () => errorRecoveryOnStore(store, {}), () => errorRecoveryAnalysis(db)],
      ['usage-by-turn', () => usageByTurnOnStore(store, {}), () => usageByTurnAnalysis(db)],
    ];
    const analyses: StoreBenchResult['analyses'] = [];
    for (const [id, onStore, onSqlite] of pairs) {
      const first = await onStore();
      const expected = onSqlite();
      const storeMs: number[] = [];
      const sqliteMs: number[] = [];
      for (let i = 0; i < repeat; i++) {
        storeMs.push((await timed(onStore)).ms);
        sqliteMs.push((await timed(onSqlite)).ms);
      }
      const x = { id, storeMs: median(storeMs), sqliteMs: median(sqliteMs), equal: closeEnough(first, expected) };
      analyses.push(x);
      log(`  ${id}: cluster ${x.storeMs.toFixed(0)} ms, SQLite (typed arrays, warm) ${x.sqliteMs.toFixed(0)} ms, answers ${x.equal ? 'equal' : 'DIFFER'}`);
    }
    db.close();
    const oursTurnsPerSec = ours.turns / ours.seconds;
    const baselineTurnsPerSec = ours.turns / baselineSeconds;
    return {
      clickhouseVersion: version, shards: 2, ours, oursTurnsPerSec, baselineSeconds, baselineTurnsPerSec,
      ratio: oursTurnsPerSec / baselineTurnsPerSec, baselineRows: Number(counted[0]?.n), baselineBytes, turnsPerShard, analyses,
      diskBytesPerTurn: allBytes / ours.turns, turnsTableBytesPerTurn: turnsBytes / ours.turns,
    };
  } finally {
    await store.close();
    await cluster.stop();
  }
}

/** The child: one import into the store, reported as one JSON line. */
async function child(url: string, files: string[]): Promise<StoreImportRun> {
  const store = new ClickHouseStore(parseStoreUrl(url));
  const cpu = process.cpuUsage();
  const t = performance.now();
  const report = await importToStore(store, files);
  const seconds = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  await store.close();
  const imported = report.files.filter((f) => f.status === 'imported');
  return {
    seconds, cpuSeconds: (used.user + used.system) / 1e6, peakRss: process.resourceUsage().maxRSS * 1024,
    turns: imported.reduce((a, f) => a + f.turns, 0), episodes: imported.reduce((a, f) => a + f.episodes, 0),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--child') {
  const [url, ...files] = process.argv.slice(3);
  if (!url || files.length === 0) throw new Error('usage: node --import tsx bench/storeBench.ts --child URL FILE...');
  process.stdout.write(`${JSON.stringify(await child(url, files))}\n`);
}
