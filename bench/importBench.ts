/**
 * Import against a bare prepared-INSERT loop (DESIGN §11, goal: ours ≥ 0.5× the bare loop's rows/s, FTS
 * included). Ours: `importPaths` on the dataset's JSONL into a fresh database, end to end (hashing, reading,
 * parsing, validating, pricing, error rules, targets, every insert, FTS, commit), in a child process that
 * is the app's main process stand-in (bench/mainProcess.ts), which also reports peak RSS. Bare: the rows
 * that import wrote, inserted into another fresh database by bench/bareInsert.ts. Rows/s counts turns. With
 * `repeat` > 1 the two alternate and the medians are compared.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../electron/db/database.ts';
import { bareInsert } from './bareInsert.ts';
import { root, type Dataset } from './dataset.ts';
import type { MainProcessResult } from './mainProcess.ts';

export interface ImportBenchResult {
  turns: number;
  episodes: number;
  oursSeconds: number;
  oursCpuSeconds: number;
  bareSeconds: number;
  bareCpuSeconds: number;
  oursTurnsPerSec: number;
  bareTurnsPerSec: number;
  /** oursTurnsPerSec / bareTurnsPerSec. */
  ratio: number;
  /** The same ratio in CPU seconds: steadier than wall time on a shared machine. */
  cpuRatio: number;
  /** Rows the bare loop inserted per table. */
  bareRows: Record<string, number>;
  /** The main process stand-in's peak RSS (bytes) after the import, and after the analyses on top. */
  peakRssAfterImport: number;
  peakRssAfterAnalyses: number;
  coldColumnarSeconds: number;
  /** Full-text matches of a word in both databases (must be equal: the bare loop wrote the same index). */
  ftsCheck: { word: string; ours: number; bare: number };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

function removeDb(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

function runOurs(dataset: Dataset, dbPath: string): MainProcessResult {
  removeDb(dbPath);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'mainProcess.ts'), dbPath, ...dataset.jsonl], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`bench/mainProcess.ts failed (${r.status}):\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string) as MainProcessResult;
}

function ftsCount(dbPath: string, word: string): number {
  const db = openDatabase(dbPath, { readonly: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM turn_fts WHERE turn_fts MATCH ?').pluck().get(word) as number;
  } finally {
    db.close();
  }
}

export function benchImport(dataset: Dataset, workDir: string, repeat: number, log: (s: string) => void): ImportBenchResult {
  const oursDb = join(workDir, 'import-ours.db');
  const bareDb = join(workDir, 'import-bare.db');
  const ours: MainProcessResult[] = [];
  const bare: { seconds: number; cpuSeconds: number; rows: Record<string, number> }[] = [];
  for (let r = 0; r < repeat; r++) {
    const o = runOurs(dataset, oursDb);
    ours.push(o);
    log(`  ours: ${o.turns.toLocaleString('en-US')} turns in ${o.importSeconds.toFixed(1)} s (CPU ${o.importCpuSeconds.toFixed(1)} s), peak RSS ${(o.peakRssAfterImport / 2 ** 20).toFixed(0)} MiB`);
    removeDb(bareDb);
    const b = bareInsert(oursDb, bareDb);
    bare.push(b);
    log(`  bare: ${b.turns.toLocaleString('en-US')} turns in ${b.seconds.toFixed(1)} s (CPU ${b.cpuSeconds.toFixed(1)} s)`);
    if (b.turns !== o.turns) throw new Error(`bare loop inserted ${b.turns} turns, our import ${o.turns}`);
  }
  const word = 'thermometer';
  const ftsCheck = { word, ours: ftsCount(oursDb, word), bare: ftsCount(bareDb, word) };
  if (ftsCheck.ours !== ftsCheck.bare || ftsCheck.ours === 0) throw new Error(`full-text index differs: ${JSON.stringify(ftsCheck)}`);
  const last = ours[ours.length - 1] as MainProcessResult;
  const oursSeconds = median(ours.map((o) => o.importSeconds));
  const bareSeconds = median(bare.map((b) => b.seconds));
  const oursCpuSeconds = median(ours.map((o) => o.importCpuSeconds));
  const bareCpuSeconds = median(bare.map((b) => b.cpuSeconds));
  removeDb(bareDb);
  removeDb(oursDb);
  return {
    turns: last.turns,
    episodes: last.episodes,
    oursSeconds,
    oursCpuSeconds,
    bareSeconds,
    bareCpuSeconds,
    oursTurnsPerSec: last.turns / oursSeconds,
    bareTurnsPerSec: last.turns / bareSeconds,
    ratio: bareSeconds / oursSeconds,
    cpuRatio: bareCpuSeconds / oursCpuSeconds,
    bareRows: bare[bare.length - 1]?.rows ?? {},
    peakRssAfterImport: Math.max(...ours.map((o) => o.peakRssAfterImport)),
    peakRssAfterAnalyses: Math.max(...ours.map((o) => o.peakRssAfterAnalyses)),
    coldColumnarSeconds: last.coldColumnarSeconds,
    ftsCheck,
  };
}
