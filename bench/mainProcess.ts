/**
 * What the app's main process does with a new dataset, in a process of its own so that its peak RSS is the
 * app's and not the bench's (which also holds DuckDB, ORT and baselines): import the JSONL files through the
 * real pipeline (importPaths), then load the columnar cache and run every analysis once. Prints one JSON
 * document: import time (wall and CPU), the peak RSS after the import and after the analyses.
 *   node --import tsx bench/mainProcess.ts DB FILE.jsonl...
 */
import { openDatabase } from '../electron/db/database.ts';
import { importPaths } from '../electron/importers/pipeline.ts';
import { columnar } from '../electron/analysis/columnar.ts';
import { ANALYSES } from './ourAnalyses.ts';

export interface MainProcessResult {
  importSeconds: number;
  importCpuSeconds: number;
  episodes: number;
  turns: number;
  /** Peak resident set size in bytes, over the process's life up to that point. */
  peakRssAfterImport: number;
  coldColumnarSeconds: number;
  peakRssAfterAnalyses: number;
}

const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const peakRss = (): number => process.resourceUsage().maxRSS * 1024;

async function main(dbPath: string, files: string[]): Promise<MainProcessResult> {
  const db = openDatabase(dbPath);
  const c0 = cpu();
  const t0 = performance.now();
  const report = await importPaths(db, files);
  const importSeconds = (performance.now() - t0) / 1000;
  const importCpuSeconds = cpu() - c0;
  const bad = report.files.filter((f) => f.status !== 'imported');
  if (bad.length > 0) throw new Error(`import did not take every file: ${JSON.stringify(bad)}`);
  const peakRssAfterImport = peakRss();
  const t1 = performance.now();
  columnar(db);
  const coldColumnarSeconds = (performance.now() - t1) / 1000;
  for (const a of ANALYSES) if (a.dataset === 'reference') a.run(db);
  db.close();
  return {
    importSeconds,
    importCpuSeconds,
    episodes: report.files.reduce((a, f) => a + f.episodes, 0),
    turns: report.files.reduce((a, f) => a + f.turns, 0),
    peakRssAfterImport,
    coldColumnarSeconds,
    peakRssAfterAnalyses: peakRss(),
  };
}

const [dbPath, ...files] = process.argv.slice(2);
if (!dbPath || files.length === 0) {
  process.stderr.write('usage: node --import tsx bench/mainProcess.ts DB FILE.jsonl...\n');
  process.exit(1);
}
process.stdout.write(`${JSON.stringify(await main(dbPath, files))}\n`);
