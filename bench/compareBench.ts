/**
 * Compare on two runs of ~30k episodes each (issue 18 item 8: under 1 s), against DuckDB computing the same
 * paired per-task table (bench/duckCompare.ts). Ours: `compare` as the API and the CLI call it, with the default
 * 2,000 bootstrap replicates, so it also draws the score and cost intervals, the McNemar p-value, Newcombe's
 * interval and the cost attribution that DuckDB does not. Cold: the first call on a newly opened connection;
 * warm: later calls, alternating with DuckDB's (medians). The answers are checked equal on every paired task
 * (counts exactly, numbers within 1e-9 relative) before anything is timed.
 */
import { compare } from '../electron/compare/compare.ts';
import { openDatabase } from '../electron/db/database.ts';
import { CompareInput } from '../shared/apiCompare.ts';
import { firstDifference, valueCount } from './agree.ts';
import type { CompareDataset } from './compareDataset.ts';
import { DuckCompare, pairedTableOf } from './duckCompare.ts';

export const COMPARE_GOAL_MS = 1000;
const BOOTSTRAP = 2000;
/** Every paired task, for the check (the contract's largest limit). */
const ALL_TASKS = 200_000;
/** The per-task rows an answer carries by default: DuckDB returns as many. */
const DEFAULT_ROWS = CompareInput.shape.limit_tasks.parse(undefined);

export interface CompareBenchResult {
  episodesA: number;
  episodesB: number;
  turns: number;
  pairedTasks: number;
  bootstrap: number;
  coldMs: number;
  warmMs: number;
  duckdbMs: number;
  duckdbLoadMs: number;
  duckdbThreads: number;
  /** warmMs / duckdbMs; null when the answers differ. */
  ratio: number | null;
  mismatch: string | null;
  /** Numbers and strings compared in the check. */
  values: number;
  repeats: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

export async function benchCompare(dataset: CompareDataset, repeat: number, log: (s: string) => void): Promise<CompareBenchResult> {
  const input: CompareInput = { a: { runIds: [dataset.runA] }, b: { runIds: [dataset.runB] }, bootstrap: BOOTSTRAP, seed: 1 };
  const duck = await DuckCompare.load(dataset.db, [dataset.runA, dataset.runB]);
  const db = openDatabase(dataset.db, { readonly: true });
  try {
    const duckdbThreads = await duck.threads();
    log(`  DuckDB load ${duck.loadMs.toFixed(0)} ms (${duckdbThreads} threads)`);
    let t = performance.now();
    compare(db, input);
    const coldMs = performance.now() - t;
    log(`  ours, cold (first call on a new connection): ${coldMs.toFixed(0)} ms`);

    const ours = pairedTableOf(compare(db, { ...input, limit_tasks: ALL_TASKS }));
    const theirs = await duck.paired([dataset.runA], [dataset.runB], ALL_TASKS);
    const mismatch = firstDifference(ours, theirs, 1e-9);
    const values = valueCount(ours);
    log(
      mismatch
        ? `  ANSWERS DIFFER: ${mismatch}`
        : `  answers agree on ${values.toLocaleString('en-US')} values: ${ours.paired_tasks} paired tasks, wins A ${ours.wins.a} / tie ${ours.wins.tie} / B ${ours.wins.b}, ` +
            `discordant A-only ${ours.success?.a_only} / B-only ${ours.success?.b_only}, mean Δscore ${ours.score?.mean_diff}, mean Δcost ${ours.cost?.mean_diff}`,
    );

    const oursMs: number[] = [];
    const duckMs: number[] = [];
    for (let r = 0; r < repeat; r++) {
      t = performance.now();
      compare(db, input);
      oursMs.push(performance.now() - t);
      t = performance.now();
      await duck.paired([dataset.runA], [dataset.runB], DEFAULT_ROWS);
      duckMs.push(performance.now() - t);
    }
    const warmMs = median(oursMs);
    const duckdbMs = median(duckMs);
    return {
      episodesA: dataset.episodesA,
      episodesB: dataset.episodesB,
      turns: dataset.turns,
      pairedTasks: ours.paired_tasks,
      bootstrap: BOOTSTRAP,
      coldMs,
      warmMs,
      duckdbMs,
      duckdbLoadMs: duck.loadMs,
      duckdbThreads,
      ratio: mismatch ? null : warmMs / duckdbMs,
      mismatch,
      values,
      repeats: repeat,
    };
  } finally {
    db.close();
    duck.close();
  }
}
