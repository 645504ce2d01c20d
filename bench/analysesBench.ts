/**
 * Each analysis against DuckDB computing the same aggregation on the same data (DESIGN §11, goal ≤ 1×).
 * Ours: the analysis function as the CLI calls it, with the columnar cache warm (the cold load is reported
 * apart). DuckDB: its query plus turning rows into the same result shape, data loaded beforehand (load time
 * reported apart). The two answers must agree before a ratio is given; each is then timed `repeat` times,
 * alternating, and the medians compared (alternation spreads a shared machine's load over both).
 */
import { openDatabase } from '../electron/db/database.ts';
import { columnar } from '../electron/analysis/columnar.ts';
import { firstDifference, valueCount } from './agree.ts';
import { DuckBaseline } from './duckAnalyses.ts';
import { ANALYSES, type DatasetName } from './ourAnalyses.ts';
import type { Dataset } from './dataset.ts';

export interface AnalysisTiming {
  id: string;
  dataset: DatasetName;
  oursMs: number;
  duckdbMs: number;
  /** oursMs / duckdbMs; null when the answers differ. */
  ratio: number | null;
  /** The first difference between the answers, when there is one. */
  mismatch: string | null;
  /** Values in our answer (numbers and strings): what was compared. */
  values: number;
}

export interface DatasetLoad {
  dataset: DatasetName;
  episodes: number;
  turns: number;
  coldColumnarMs: number;
  duckdbLoadMs: number;
  duckdbThreads: number;
}

export interface AnalysesBenchResult {
  loads: DatasetLoad[];
  analyses: AnalysisTiming[];
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

export async function benchAnalyses(
  datasets: Partial<Record<DatasetName, Dataset>>,
  workDir: string,
  repeat: number,
  log: (s: string) => void,
): Promise<AnalysesBenchResult> {
  const out: AnalysesBenchResult = { loads: [], analyses: [] };
  for (const [name, dataset] of Object.entries(datasets) as [DatasetName, Dataset][]) {
    const db = openDatabase(dataset.db, { readonly: true });
    const duck = await DuckBaseline.load(dataset.db, workDir);
    try {
      const t0 = performance.now();
      columnar(db);
      const load: DatasetLoad = {
        dataset: name,
        episodes: dataset.episodes,
        turns: dataset.turns,
        coldColumnarMs: performance.now() - t0,
        duckdbLoadMs: duck.loadSeconds * 1000,
        duckdbThreads: await duck.threads(),
      };
      out.loads.push(load);
      log(`  ${name}: columnar cache cold load ${load.coldColumnarMs.toFixed(0)} ms; DuckDB load ${load.duckdbLoadMs.toFixed(0)} ms (${load.duckdbThreads} threads)`);
      for (const a of ANALYSES.filter((x) => x.dataset === name)) {
        const ours = a.run(db);
        const theirs = await duck.run(a.id);
        const mismatch = firstDifference(JSON.parse(JSON.stringify(ours)), JSON.parse(JSON.stringify(theirs)));
        const oursMs: number[] = [];
        const duckMs: number[] = [];
        for (let r = 0; r < repeat; r++) {
          let t = performance.now();
          a.run(db);
          oursMs.push(performance.now() - t);
          t = performance.now();
          await duck.run(a.id);
          duckMs.push(performance.now() - t);
        }
        const row: AnalysisTiming = {
          id: a.id,
          dataset: name,
          oursMs: median(oursMs),
          duckdbMs: median(duckMs),
          ratio: mismatch ? null : median(oursMs) / median(duckMs),
          mismatch,
          values: valueCount(ours),
        };
        out.analyses.push(row);
        log(
          `  ${a.id} (${name}): ours ${row.oursMs.toFixed(1)} ms, DuckDB ${row.duckdbMs.toFixed(1)} ms, ` +
            (mismatch ? `ANSWERS DIFFER: ${mismatch}` : `ratio ${row.ratio?.toFixed(2)} (goal ≤ 1; answers agree on ${row.values} values)`),
        );
      }
    } finally {
      duck.close();
      db.close();
    }
  }
  return out;
}
