/**
 * The ClickHouse store (issue 19, DESIGN §11): the dataset's JSONL imported into a 2-shard cluster on loopback
 * (test/clickhouseCluster.ts) by `importToStore` in a child process that reports its time and peak RSS, against
 * ClickHouse's own `INSERT … FORMAT JSONEachRow` of the same rows (dumped from the store, inserted into a fresh
 * database on the same shards, both shards at once, table by table as ours does); rows/s counts turns. Then each
 * pushed-down analysis on the cluster (median of `repeat`, after one warm-up) next to the typed-array path on
 * the same dataset's SQLite database (warm columnar cache), their answers checked equal; and the turns per shard.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '../electron/db/database.ts';
import { paretoAnalysis } from '../electron/analysis/pareto.ts';
import { switchCostAnalysis } from '../electron/analysis/switchCost.ts';
import { errorRecoveryAnalysis } from '../electron/analysis/errorRecovery.ts';
import { usageByTurnAnalysis } from '../electron/analysis/usageByTurn.ts';
import { columnar } from '../electron/analysis/columnar.ts';
import { ClickHouseStore, StoreError } from '../electron/store/clickhouse/schema/connection.ts';
import { initStore, ledgerRow, SHARDED_TABLES } from '../electron/store/clickhouse/schema/schema.ts';
import { DEFAULT_BATCH_BYTES, DEFAULT_BATCH_ROWS, importToStore } from '../electron/store/clickhouse/import/importToStore.ts';
import { DirectFile } from '../electron/store/clickhouse/import/directRows.ts';
import { COLUMNS, type RowSink, type SessionIndex } from '../electron/store/clickhouse/import/episodeRows.ts';
import { RowBinaryBatch, rowEncoder } from '../electron/store/clickhouse/import/rowBinary.ts';
import { detectImporter, importPaths, readHead } from '../electron/importers/pipeline.ts';
import {
  budgetModesOnStore, confusionOnStore, errorRecoveryOnStore, liftOnStore, paretoOnStore, switchCostOnStore, usageByTurnOnStore, usageRatioOnStore,
} from '../electron/store/clickhouse/queries/storeAnalyses.ts';
import { liftAnalysis } from '../electron/analysis/lift.ts';
import { trainToFile } from '../electron/estimator/trainPipeline.ts';
import { parseStoreUrl } from '../electron/store/storeUrl.ts';
import { scoreStore } from '../electron/store/clickhouse/queries/storeScoring.ts';
import { calibrationOnStore } from '../electron/store/clickhouse/queries/storeCalibration.ts';
import { embeddingsOnStore } from '../electron/store/clickhouse/queries/storeEmbeddings.ts';
import { DEFAULT_ESTIMATOR_PATH } from '../electron/estimator/whatIf.ts';
import { startTestCluster } from '../test/clickhouseCluster.ts';
import { expectClose } from '../test/expectClose.ts';
import { root, type Dataset } from './dataset.ts';

export interface StoreImportRun {
  seconds: number;
  cpuSeconds: number;
  peakRss: number;
  turns: number;
  episodes: number;
}

/**
 * Where the import's time goes, on the same files in child processes of their own: the importer alone (read,
 * JSON.parse, schema checks), then the importer with the writer's resolution (pricing, error rules, targets) and
 * every table's rows encoded, as `importToStore` encodes them, but nothing sent: what is left of the import's time is
 * sending and waiting for ClickHouse, which shares the 2 cores.
 */
export interface StoreImportStages {
  parse: { seconds: number; cpuSeconds: number; turns: number };
  rows: { seconds: number; cpuSeconds: number; turns: number };
}

export interface StoreTrainRun {
  seconds: number;
  /** Reading the parts from the store, building and spilling their rows. */
  datasetSeconds: number;
  /** The epoch itself (the trainer's figure), then the validation pass. */
  trainSeconds: number;
  rowsPerSec: number;
  trainRows: number;
  validationRows: number;
  parts: number;
  partTurns: number;
  maxHistoryTokens: number;
  peakRss: number;
  valMae: number;
  baselineMae: number | null;
}

export interface StoreBenchResult {
  clickhouseVersion: string;
  shards: number;
  ours: StoreImportRun;
  oursTurnsPerSec: number;
  /**
   * The same import with two range threads (ROUTELENS_IMPORT_THREADS=2, threadedFile.ts) into a database of its own:
   * on 2 cores the threads share the cores with both servers, so the default there is none.
   */
  threaded?: StoreImportRun;
  stages?: StoreImportStages;
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
  /** `train --store` over every turn imported, one epoch, in a child process (bounded memory: its peak RSS). */
  training?: StoreTrainRun;
  /** `score --store` with the shipped default over every turn imported, then the two analyses that read its ŝ or a sample. */
  /** An analysis the store could not answer (a limit of the cluster) has no time and says why. */
  estimator?: { rows: number; seconds: number; provider: string; analyses: { id: string; ms: number | null; error?: string }[] };
  /** The pushed-down analyses on synthetic turns generated by ClickHouse on each shard (past what one SQLite file holds). */
  scale?: { turns: number; episodes: number; generateSeconds: number; analyses: { id: string; ms: number }[] };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

const pointLifts = (r: { cells: { model: string; category: string; lift: number; n: number }[] }) => r.cells.map(({ model, category, lift, n }) => ({ model, category, lift, n }));

/** The two stores' answers equal (numbers within 1e-9 relative), by the same check as the tests. */
function closeEnough(actual: unknown, expected: unknown): boolean {
  try {
    expectClose(actual, expected);
    return true;
  } catch {
    return false;
  }
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

/**
 * Waits until no background merge runs on any shard, so that each timed import starts on idle servers and none
 * pays for the merges of the one before it; returns the seconds waited.
 */
async function mergesSettled(ports: number[]): Promise<number> {
  const t = performance.now();
  for (;;) {
    let running = 0;
    for (const port of ports) running += Number((await post(port, 'SELECT count() FROM system.merges')).trim());
    if (running === 0) return (performance.now() - t) / 1000;
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function timed<T>(f: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await f();
  return { ms: performance.now() - t, value };
}

const SCAN_MODELS = "['gpt-5', 'kimi-k2', 'deepseek-v3.2', 'qwen3-8b', 'gemini-2.5-flash', 'minimax-m2']";

/**
 * The analyses at a size past SQLite's: `turnsPerShard` synthetic turns (20 per episode, 8 runs, 6 models, errors,
 * switches, budget modes) generated by ClickHouse itself on each shard, visible through one ledger entry, then
 * each pushed-down analysis timed (median of `repeat` after a warm-up). Their answers are not compared: there is
 * no SQLite twin at this size; the equality of the two paths is held on real data above and in the tests.
 */
async function benchScale(cluster: { url(db: string): string; httpPorts: number[] }, turnsPerShard: number, repeat: number, log: (s: string) => void): Promise<NonNullable<StoreBenchResult['scale']>> {
  const store = new ClickHouseStore(parseStoreUrl(cluster.url('scan')));
  try {
    await initStore(store);
    await store.insert(store.coordinator, 'imports', [ledgerRow(1, 'completed', { hash: 'synthetic', path: 'synthetic', format: 'synthetic' })]);
    const started = performance.now();
    await Promise.all(cluster.httpPorts.map(async (port, shard) => {
      const key = `intDiv(number, 20) * ${cluster.httpPorts.length} + ${shard}`;
      await post(port, `INSERT INTO scan.turns_local (import_id, episode_key, root_key, run, is_child, episode_success, episode_turn_costs_known,
          episode_difficulty, pos, t, model, switched, next_switched, severity, next_severity, category, action_type, cost, cost_source, cum_cost)
        SELECT 1, ${key}, ${key}, concat('run-', toString(intDiv(number, 20) % 8)), 0, toUInt8(intDiv(number, 20) % 3 = 0), 1,
          toFloat32(intDiv(number, 20) % 5), number % 20, number % 20, arrayElement(${SCAN_MODELS}, intDiv(number, 3) % 6 + 1),
          toUInt8(number % 3 = 0), if(number % 20 = 19, NULL, toUInt8((number + 1) % 3 = 0)), toUInt8(number % 7 = 0),
          if(number % 20 = 19, NULL, toUInt8((number + 1) % 7 = 0)), 'bash', 'tool', toFloat32(0.001), 'logged', (number % 20 + 1) * 0.001
        FROM numbers(${turnsPerShard})`);
      const ek = `k * ${cluster.httpPorts.length} + ${shard}`;
      await post(port, `INSERT INTO scan.episodes_local (import_id, episode_key, root_key, run, ext_id, score_norm, success, expert_call, total_cost,
          cost_known, n_turns, n_switches, budget_mode, train_step, max_turns)
        SELECT 1, ${ek}, ${ek}, concat('run-', toString(k % 8)), toString(${ek}), toFloat32((k % 10) / 10), toUInt8(k % 3 = 0), toUInt8(k % 2),
          0.02, 1, 20, 7, arrayElement(['low', 'medium', 'high'], k % 3 + 1), toInt32(k % 10), 20
        FROM (SELECT number AS k FROM numbers(${Math.floor(turnsPerShard / 20)}))`);
    }));
    const generateSeconds = (performance.now() - started) / 1000;
    const turns = turnsPerShard * cluster.httpPorts.length;
    log(`  scale: ${turns.toLocaleString('en-US')} synthetic turns generated on the shards in ${generateSeconds.toFixed(1)} s`);
    const runs: [string, () => Promise<unknown>][] = [
      ['pareto', () => paretoOnStore(store, {})], ['switch-cost', () => switchCostOnStore(store, { runs: ['run-0'] })],
      ['error-recovery', () => errorRecoveryOnStore(store, {})], ['usage-by-turn', () => usageByTurnOnStore(store, {})],
      ['budget-modes', () => budgetModesOnStore(store, {})], ['usage-ratio', () => usageRatioOnStore(store, {})], ['confusion', () => confusionOnStore(store, {})],
      ['lift (200 replicates)', () => liftOnStore(store, { runs: ['run-0'] })],
    ];
    const analyses: { id: string; ms: number }[] = [];
    for (const [id, f] of runs) {
      await f();
      const times: number[] = [];
      for (let i = 0; i < repeat; i++) times.push((await timed(f)).ms);
      analyses.push({ id, ms: median(times) });
      log(`  scale: ${id} ${median(times).toFixed(0)} ms over ${turns.toLocaleString('en-US')} turns`);
    }
    return { turns, episodes: Math.floor(turnsPerShard / 20) * cluster.httpPorts.length, generateSeconds, analyses };
  } finally {
    await store.close();
  }
}

/**
 * Scores the store with the shipped default (in this process), then times calibration (ranks and sums on the
 * cluster) and the embedding map (its sample drawn on the cluster, sketched here, t-SNE of 1,000 points included;
 * a new seed each time, so no cached map is timed).
 */
async function benchEstimatorAnalyses(store: ClickHouseStore, repeat: number, log: (s: string) => void): Promise<StoreBenchResult['estimator']> {
  log('  score --store with the shipped default estimator, then calibration and embeddings on the cluster');
  const scored = await scoreStore(store, DEFAULT_ESTIMATOR_PATH, { ep: 'cpu' });
  log(`  score --store: ${scored.rows.toLocaleString('en-US')} turns × ${scored.models.length} models in ${scored.seconds.toFixed(0)} s (${scored.provider})`);
  const runs: [string, (i: number) => Promise<unknown>][] = [
    ['calibration', () => calibrationOnStore(store)],
    ['embeddings (1,000 histories, t-SNE included)', (i) => embeddingsOnStore(store, { seed: i + 1 })],
  ];
  const analyses: { id: string; ms: number | null; error?: string }[] = [];
  for (const [id, f] of runs) {
    // What the store cannot answer at this size is a finding to record, not the end of the run.
    const failure = await f(repeat).then(() => null, (e: unknown) => (e instanceof StoreError ? e.message : Promise.reject(e)));
    if (failure !== null) {
      analyses.push({ id, ms: null, error: failure });
      log(`  ${id}: failed: ${failure}`);
      continue;
    }
    const times: number[] = [];
    for (let i = 0; i < repeat; i++) times.push((await timed(() => f(i))).ms);
    analyses.push({ id, ms: median(times) });
    log(`  ${id}: ${median(times).toFixed(0)} ms`);
  }
  return { rows: scored.rows, seconds: scored.seconds, provider: scored.provider, analyses };
}

export async function benchStore(dataset: Dataset, cache: string, repeat: number, log: (s: string) => void, scaleTurnsPerShard = 10_000_000): Promise<StoreBenchResult> {
  log('  starting a 2-shard ClickHouse cluster on loopback');
  const cluster = await startTestCluster(2);
  const url = cluster.url('bench');
  const store = new ClickHouseStore(parseStoreUrl(url));
  try {
    await initStore(store);
    const version = String((await store.query<{ v: string }>('SELECT version() AS v'))[0]?.v);
    await mergesSettled(cluster.httpPorts);
    log(`  ours: importing ${dataset.jsonl.length} JSONL file(s) in a child process`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'storeBench.ts'), '--child', url, ...dataset.jsonl], {
      cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`bench/storeBench.ts --child failed (${r.status})`);
    const ours = JSON.parse(r.stdout.trim().split('\n').pop() as string) as StoreImportRun;
    log(`  ours: ${ours.turns.toLocaleString('en-US')} turns in ${ours.seconds.toFixed(1)} s (CPU ${ours.cpuSeconds.toFixed(1)} s), peak RSS ${(ours.peakRss / 2 ** 20).toFixed(0)} MiB`);
    log('  ours with two range threads (ROUTELENS_IMPORT_THREADS=2), into a database of its own');
    const threadedUrl = cluster.url('bench_threads');
    const threadedStore = new ClickHouseStore(parseStoreUrl(threadedUrl));
    await initStore(threadedStore);
    await threadedStore.close();
    log(`  the first import's merges finished after ${(await mergesSettled(cluster.httpPorts)).toFixed(1)} s more`);
    const rt = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'storeBench.ts'), '--child', threadedUrl, ...dataset.jsonl], {
      cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ROUTELENS_IMPORT_THREADS: '2' },
    });
    if (rt.status !== 0) throw new Error(`bench/storeBench.ts --child (threaded) failed (${rt.status})`);
    const threaded = JSON.parse(rt.stdout.trim().split('\n').pop() as string) as StoreImportRun;
    if (threaded.turns !== ours.turns) throw new Error(`the threaded import stored ${threaded.turns} turns, the import ${ours.turns}`);
    log(`  ours, threaded: ${threaded.seconds.toFixed(1)} s (CPU ${threaded.cpuSeconds.toFixed(1)} s), peak RSS ${(threaded.peakRss / 2 ** 20).toFixed(0)} MiB`);
    // Its rows are the import's (directRows.test.ts checks so): dropped, so the disk holds one copy.
    for (const port of cluster.httpPorts) await post(port, 'DROP DATABASE IF EXISTS bench_threads');
    const stage = (mode: '--parse-child' | '--rows-child'): StoreImportStages['parse'] => {
      const c = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'storeBench.ts'), mode, ...dataset.jsonl], {
        cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'],
      });
      if (c.status !== 0) throw new Error(`bench/storeBench.ts ${mode} failed (${c.status})`);
      return JSON.parse(c.stdout.trim().split('\n').pop() as string) as StoreImportStages['parse'];
    };
    const stages: StoreImportStages = { parse: stage('--parse-child'), rows: stage('--rows-child') };
    log(`  of which the importer alone: ${stages.parse.seconds.toFixed(1)} s; with the writer's resolution and every row encoded: ${stages.rows.seconds.toFixed(1)} s`);

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
    log(`  waited ${(await mergesSettled(cluster.httpPorts)).toFixed(1)} s for the servers' merges to finish before the baseline`);
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
      // The two bootstraps draw differently (Poisson on the cluster, multinomial here): cells and point lifts compared.
      ['lift (200 replicates)', async () => pointLifts(await liftOnStore(store, {})), () => pointLifts(liftAnalysis(db))],
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
    log('  train --store: one epoch over every turn, in a child process');
    const t = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'storeBench.ts'), '--train-child', url, join(cache, 'store-bench.onnx')], {
      cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (t.status !== 0) throw new Error(`bench/storeBench.ts --train-child failed (${t.status})`);
    const training = JSON.parse(t.stdout.trim().split('\n').pop() as string) as StoreTrainRun;
    log(
      `  train --store: ${training.trainRows.toLocaleString('en-US')} training rows in ${training.parts} parts: rows built in ${training.datasetSeconds.toFixed(0)} s, ` +
        `an epoch ${training.trainSeconds.toFixed(0)} s (${Math.round(training.rowsPerSec).toLocaleString('en-US')} rows/s), peak RSS ${(training.peakRss / 2 ** 20).toFixed(0)} MiB`,
    );
    const estimator = await benchEstimatorAnalyses(store, repeat, log);
    const scale = scaleTurnsPerShard > 0 ? await benchScale(cluster, scaleTurnsPerShard, repeat, log) : undefined;
    const oursTurnsPerSec = ours.turns / ours.seconds;
    const baselineTurnsPerSec = ours.turns / baselineSeconds;
    return {
      clickhouseVersion: version, shards: 2, ours, oursTurnsPerSec, threaded, stages, baselineSeconds, baselineTurnsPerSec,
      ratio: oursTurnsPerSec / baselineTurnsPerSec, baselineRows: Number(counted[0]?.n), baselineBytes, turnsPerShard, analyses,
      diskBytesPerTurn: allBytes / ours.turns, turnsTableBytesPerTurn: turnsBytes / ours.turns, training, estimator, scale,
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

const BENCH_PART_TURNS = 20_000;
/** The history window of the trainer's bench and the shipped estimator (bench/trainBench.ts). */
const BENCH_HISTORY_TOKENS = 512;

/** The importer alone over `files` (`rows` false), or with the rows `importToStore` sends encoded and dropped (`rows` true). */
async function stagesChild(files: string[], rows: boolean): Promise<StoreImportStages['parse']> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  let turns = 0;
  if (rows) {
    const dir = mkdtempSync(join(tmpdir(), 'routelens-bench-staging-'));
    const staging = openDatabase(join(dir, 'staging.db'));
    // Every row encoded as the import encodes it, then dropped.
    const batches = new Map(Object.entries(COLUMNS).map(([t, columns]) => [t, new RowBinaryBatch(rowEncoder(t, columns))]));
    const dropped: RowSink = {
      add(table, _rootKey, values) {
        const batch = batches.get(table) as RowBinaryBatch;
        batch.add(values);
        if (batch.bytes >= DEFAULT_BATCH_BYTES) batch.take();
      },
      full: () => false,
      flush: async () => undefined,
    };
    const index: SessionIndex = { known: new Map(), lookup: async () => new Map() };
    let file: DirectFile | null = null;
    try {
      const report = await importPaths(staging, files, {
        fullText: false,
        async emit(episode, f) {
          if (file?.file !== f) file = new DirectFile(0, f, index, dropped, DEFAULT_BATCH_ROWS);
          await file.add(episode);
        },
        async beforeCommit() {
          await file?.finish();
          return 'discard';
        },
      });
      turns = report.files.reduce((a, f) => a + f.turns, 0);
    } finally {
      staging.close();
      rmSync(dir, { recursive: true, force: true });
    }
  } else {
    for (const file of files) {
      const importer = detectImporter(readHead(file), basename(file));
      if (!importer) throw new Error(`${file}: no importer`);
      for await (const episode of importer.read(file, { root: file, warn: () => undefined })) turns += episode.turns.length;
    }
  }
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - t) / 1000, cpuSeconds: (used.user + used.system) / 1e6, turns };
}

/** The training child: `train --store` for one epoch, reported as one JSON line. */
async function trainChild(url: string, out: string): Promise<StoreTrainRun> {
  const t0 = performance.now();
  let trainingFrom = 0;
  let parts = 0;
  const { card } = await trainToFile(
    { store: parseStoreUrl(url), out, maxEpochs: 1, seed: 1, partTurns: BENCH_PART_TURNS, maxHistoryTokens: BENCH_HISTORY_TOKENS },
    (p) => {
      if (p.phase === 'dataset' && p.parts !== undefined) parts = p.parts;
      if (p.phase === 'training' && trainingFrom === 0) trainingFrom = performance.now();
    },
  );
  const seconds = (performance.now() - t0) / 1000;
  return {
    seconds,
    datasetSeconds: (trainingFrom - t0) / 1000,
    trainSeconds: seconds - (trainingFrom - t0) / 1000,
    rowsPerSec: card.metrics.train_rows_per_second,
    trainRows: card.data.train_rows,
    validationRows: card.data.validation_rows,
    parts,
    partTurns: BENCH_PART_TURNS,
    maxHistoryTokens: BENCH_HISTORY_TOKENS,
    peakRss: process.resourceUsage().maxRSS * 1024,
    valMae: card.metrics.val_mae,
    baselineMae: card.metrics.baseline_mae,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--train-child') {
  const [url, out] = process.argv.slice(3);
  if (!url || !out) throw new Error('usage: node --import tsx bench/storeBench.ts --train-child URL OUT.onnx');
  process.stdout.write(`${JSON.stringify(await trainChild(url, out))}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href && (process.argv[2] === '--parse-child' || process.argv[2] === '--rows-child')) {
  const files = process.argv.slice(3);
  if (files.length === 0) throw new Error('usage: node --import tsx bench/storeBench.ts --parse-child|--rows-child FILE...');
  process.stdout.write(`${JSON.stringify(await stagesChild(files, process.argv[2] === '--rows-child'))}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--child') {
  const [url, ...files] = process.argv.slice(3);
  if (!url || files.length === 0) throw new Error('usage: node --import tsx bench/storeBench.ts --child URL FILE...');
  process.stdout.write(`${JSON.stringify(await child(url, files))}\n`);
}
