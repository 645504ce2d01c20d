/**
 * `npm run bench [-- options]`: each benchmark against its baseline, measured in the same run (DESIGN §11,
 * issue 8), on a simulated dataset built once into the cache folder. Prints a ratio line per benchmark, writes
 * the run's JSON into the cache folder and, at the reference size, bench/results.json and BENCHMARKS.md.
 *
 *   import     importPaths vs a bare prepared-INSERT loop of the same rows (bench/importBench.ts); peak RSS
 *   analyses   every analysis vs DuckDB on the same data, answers checked equal first (bench/analysesBench.ts)
 *   scoring    ORT scoring of histories × 6 models vs a bare ORT session (bench/scoring.ts)
 *   train      the estimator trainer's rows/s vs bare dense products of the same shapes (bench/trainBench.ts)
 *   paint      first paint of the Runs and Episodes views in Chromium (bench/paint.ts)
 *   ui         the Playwright scale spec: no interaction blocks for 100 ms or more (e2e/scale.spec.ts)
 *   formats    a ~/.claude/projects tree vs the same turns as canonical JSONL, and peak RSS (bench/formatsBench.ts)
 *   compare    Compare on two runs of N episodes each vs DuckDB computing the same paired table (bench/compareBench.ts)
 *   store      import into a 2-shard ClickHouse cluster vs ClickHouse's own JSONEachRow insert; analyses on the cluster (bench/storeBench.ts)
 *   cli        `routelens --help` and `info --json` start times vs a bare `node -e ''`, and peak RSS (bench/cliBench.ts)
 *   watch      `routelens watch` on a ~/.claude/projects tree while calls are appended vs re-importing each changed file (bench/watchBench.ts)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchAnalyses } from './analysesBench.ts';
import { benchCli, CLI_GOALS } from './cliBench.ts';
import { benchCompare, COMPARE_GOAL_MS } from './compareBench.ts';
import { compareDataset } from './compareDataset.ts';
import { controllerDataset, referenceDataset, root, type Dataset } from './dataset.ts';
import { benchFormats, PEAK_RSS_GOAL } from './formatsBench.ts';
import { benchImport } from './importBench.ts';
import { machine } from './machine.ts';
import { benchPaint, ensureRenderer, runScaleSpec } from './paint.ts';
import { readResults, writeResults, type Results } from './report.ts';
import { benchScoring } from './scoring.ts';
import { benchStore } from './storeBench.ts';
import { benchTrain } from './trainBench.ts';
import { benchWatch } from './watchBench.ts';

const BENCHMARKS = ['import', 'analyses', 'scoring', 'train', 'paint', 'ui', 'formats', 'compare', 'store', 'cli', 'watch'] as const;
type Benchmark = (typeof BENCHMARKS)[number];
const REFERENCE_EPISODES = 29_693;

const HELP = `usage: npm run bench -- [options]
  --episodes N       trajectories to simulate (default ${REFERENCE_EPISODES}, the MTRouter training set)
  --seed S           simulator seed (default 1)
  --only LIST        comma-separated subset of ${BENCHMARKS.join(', ')} (default: all)
  --repeat N         timed repeats of each analysis pair and of the compare pair (default 5) and of the import pair (default 1)
  --cli-runs N       rounds of the CLI start benchmark, each case once per round (default 15)
  --watch-mb N       size of the ~/.claude/projects tree the watch benchmark follows, MiB (default 1024)
  --import-repeat N  override the import pair's repeats
  --scoring-rows N   histories to score (default: every turn of the dataset)
  --train-rows N     training rows for the train benchmark (default 30000, from the sw-random run)
  --train-epochs N   epochs the train benchmark trains (default 1)
  --paint-loads N    cold page loads per view (default 3)
  --formats-mb N     size of the Claude Code tree the formats benchmark imports, in MiB (default 1024)
  --store-scale N    synthetic turns per shard for the store benchmark's analyses at scale (default 10000000; 0: none)
  --cache DIR        where datasets are kept (default bench/.cache); the renderer is built into dist/bench-renderer
  --record / --no-record   write bench/results.json and BENCHMARKS.md (default: only at the reference size)
  --help`;

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(1);
}

const { values } = parseArgs({
  options: {
    episodes: { type: 'string' },
    seed: { type: 'string' },
    only: { type: 'string' },
    'store-scale': { type: 'string' },
    repeat: { type: 'string' },
    'cli-runs': { type: 'string' },
    'watch-mb': { type: 'string' },
    'import-repeat': { type: 'string' },
    'scoring-rows': { type: 'string' },
    'train-rows': { type: 'string' },
    'train-epochs': { type: 'string' },
    'paint-loads': { type: 'string' },
    'formats-mb': { type: 'string' },
    cache: { type: 'string' },
    record: { type: 'boolean' },
    'no-record': { type: 'boolean' },
    help: { type: 'boolean' },
  },
  allowPositionals: false,
});
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
const intOption = (name: keyof typeof values, fallback: number, min = 1): number => {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be a whole number ≥ ${min}`);
  return n;
};
const episodes = intOption('episodes', REFERENCE_EPISODES);
const seed = intOption('seed', 1, 0);
const repeat = intOption('repeat', 5);
const importRepeat = intOption('import-repeat', 1);
const paintLoads = intOption('paint-loads', 3);
const only = (values.only?.split(',').map((s) => s.trim()).filter(Boolean) ?? [...BENCHMARKS]) as Benchmark[];
for (const b of only) if (!BENCHMARKS.includes(b)) fail(`unknown benchmark "${b}" (known: ${BENCHMARKS.join(', ')})`);
const cache = resolve(values.cache ?? join(root, 'bench', '.cache'));
const record = values['no-record'] ? false : (values.record ?? episodes === REFERENCE_EPISODES);
const log = (s: string): void => void process.stdout.write(`${s}\n`);
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

mkdirSync(cache, { recursive: true });
const m = machine();
log(`RouteLens bench — ${m.date}, ${m.cpuModel}, nproc ${m.nproc}, ${m.memoryGiB} GiB, Node ${m.node}, load ${m.loadAverage.start}`);
log(`dataset: scienceworld, ${fmt(episodes)} episodes, seed ${seed} (cache ${cache})`);
// The formats, compare, cli and watch benchmarks bring their own data: the simulated dataset is built only for the others.
const reference: Dataset = only.every((b) => b === 'formats' || b === 'compare' || b === 'cli' || b === 'watch') ? { jsonl: [], db: '', episodes: 0, turns: 0 } : referenceDataset(cache, episodes, seed, log);
log(`  ${fmt(reference.episodes)} episodes, ${fmt(reference.turns)} turns`);
const datasetInfo = { episodes: reference.episodes, turns: reference.turns, seed };
const results: Results = {};
const measured = <T>(result: T) => ({ machine: { ...m, date: new Date().toISOString(), loadAverage: { start: Math.round((loadavg()[0] ?? 0) * 100) / 100 } }, dataset: datasetInfo, result });
const close = <T extends { machine: { loadAverage: { start: number; end?: number } } }>(x: T): T => {
  x.machine.loadAverage.end = Math.round((loadavg()[0] ?? 0) * 100) / 100;
  return x;
};

if (only.includes('import')) {
  log('\nimport (ours vs bare prepared-INSERT loop, same rows, FTS included)');
  const started = measured(null);
  const x = benchImport(reference, cache, importRepeat, log);
  results.import = close({ ...started, result: x });
  log(`import: ${fmt(x.oursTurnsPerSec)} turns/s, bare loop ${fmt(x.bareTurnsPerSec)} turns/s, ratio ${x.ratio.toFixed(2)} (CPU ${x.cpuRatio.toFixed(2)}; goal ≥ 0.5)`);
  log(`peak RSS (main process: import, then every analysis): ${fmt(x.peakRssAfterImport / 2 ** 20)} MiB after import, ${fmt(x.peakRssAfterAnalyses / 2 ** 20)} MiB after analyses`);
}

if (only.includes('analyses')) {
  log('\nanalyses (ours, warm columnar cache, vs DuckDB on the same data)');
  const controllers = controllerDataset(cache, episodes, seed, log);
  const started = measured(null);
  const a = await benchAnalyses({ reference, controllers }, cache, repeat, log);
  results.analyses = close({ ...started, result: a });
  for (const x of a.analyses) {
    log(`analysis ${x.id} (${x.dataset}): ours ${x.oursMs.toFixed(1)} ms, DuckDB ${x.duckdbMs.toFixed(1)} ms, ${x.ratio === null ? `ANSWERS DIFFER (${x.mismatch})` : `ratio ${x.ratio.toFixed(2)} (goal ≤ 1)`}`);
  }
}

if (only.includes('scoring')) {
  log('\nscoring (ours vs bare ORT session)');
  const rows = intOption('scoring-rows', reference.turns);
  const started = measured(null);
  const s = await benchScoring({ rows });
  results.scoring = close({ ...started, result: { ...s, datasetTurns: reference.turns } });
  log(
    `scoring: ${fmt(s.rowsPerSec)} rows/s (${s.provider}, ${s.threads} threads, batch ${s.batchSize}, ${fmt(s.rows)} rows × 6 models), ` +
      `bare ORT ${fmt(s.bareRowsPerSec)} rows/s, ratio ${s.ratio.toFixed(2)} (goal ≥ 0.7)`,
  );
}

if (only.includes('train')) {
  log('\ntrain (the estimator trainer vs bare dense products of the same shapes)');
  const started = measured(null);
  const t = benchTrain(reference.db, { rows: intOption('train-rows', 30_000), epochs: intOption('train-epochs', 1) }, log);
  results.train = close({ ...started, result: t });
  log(
    `train: ${fmt(t.rowsPerSec)} rows/s (${fmt(t.trainRows)} training rows × ${t.epochs} epoch${t.epochs === 1 ? '' : 's'}), ` +
      `bare dense products ${fmt(t.bareRowsPerSec)} rows/s (${fmt(t.bareMultiplyAddsPerRow)} multiply-adds per row), ratio ${t.ratio.toFixed(2)}`,
  );
}

// Under dist/ (ignored by git and eslint), apart from other work's dist/renderer that serve would otherwise use.
const rendererDir = join(root, 'dist', 'bench-renderer');
if (only.includes('paint')) {
  log('\nfirst paint (Chromium, cold loads)');
  ensureRenderer(rendererDir, log);
  const started = measured(null);
  const p = await benchPaint(reference.db, rendererDir, paintLoads, log);
  results.paint = close({ ...started, result: p });
  for (const v of p) log(`first paint ${v.view}: first rows painted ${fmt(v.dataPaintedMs)} ms after navigation (first contentful paint ${fmt(v.firstContentfulPaintMs)} ms)`);
}

if (only.includes('ui')) {
  log('\nresponsiveness (Playwright e2e/scale.spec.ts on the bench database)');
  ensureRenderer(rendererDir, log);
  const started = measured(null);
  const u = runScaleSpec(reference.db, rendererDir, join(cache, 'scale-report.json'), log);
  results.ui = close({ ...started, result: u });
  log(`ui: longest task in any interaction ${fmt(u.maxLongTaskMs)} ms over ${u.steps.length} interactions (goal < ${u.limitMs}); spec ${u.passed ? 'passed' : 'FAILED'}`);
}

if (only.includes('formats')) {
  log('\nformats (a ~/.claude/projects tree through the Claude Code importer vs the same turns as canonical JSONL)');
  const megabytes = intOption('formats-mb', 1024);
  const started = measured(null);
  const f = await benchFormats(cache, megabytes, log);
  results.formats = close({ ...started, dataset: { episodes: f.claudeCode.files, turns: f.claudeCode.turns, seed: 0 }, result: { ...f, megabytes } });
  log(
    `formats: claude-code ${fmt(f.claudeCode.turnsPerSec)} turns/s (${f.claudeCode.mbPerSec.toFixed(1)} MiB/s), canonical ${fmt(f.canonical.turnsPerSec)} turns/s ` +
      `(${f.canonical.mbPerSec.toFixed(1)} MiB/s), ratio ${f.ratio.toFixed(2)} (CPU ${f.cpuRatio.toFixed(2)}; goal ≥ 0.5); ` +
      `peak RSS ${fmt(f.claudeCode.peakRss / 2 ** 20)} MiB (goal < ${fmt(PEAK_RSS_GOAL / 1e6)} MB)`,
  );
  if (f.ratio < 0.5 || f.claudeCode.peakRss >= PEAK_RSS_GOAL) log('some goals were missed (see above)');
}

if (only.includes('store')) {
  log(`\nstore (the dataset imported into a 2-shard ClickHouse cluster vs ClickHouse's own JSONEachRow insert; analyses on the cluster)`);
  const started = measured(null);
  const x = await benchStore(reference, cache, repeat, log, intOption('store-scale', 10_000_000, 0));
  results.store = close({ ...started, result: x });
  log(
    `store: ${fmt(x.oursTurnsPerSec)} turns/s, ClickHouse's own insert ${fmt(x.baselineTurnsPerSec)} turns/s, ratio ${x.ratio.toFixed(2)} (goal ≥ 0.5); ` +
      `peak RSS ${fmt(x.ours.peakRss / 2 ** 20)} MiB = ${fmt(x.ours.peakRss / 1e6)} MB (goal < 500 MB); turns per shard ${x.turnsPerShard.map(fmt).join(' / ')}`,
  );
}

if (only.includes('compare')) {
  log(`\ncompare (two runs of ${fmt(episodes)} episodes each, paired by task, vs DuckDB computing the same paired table)`);
  const dataset = await compareDataset(cache, episodes, seed, log);
  const started = measured(null);
  const c = await benchCompare(dataset, repeat, log);
  results.compare = close({ ...started, dataset: { episodes: c.episodesA + c.episodesB, turns: c.turns, seed }, result: c });
  log(
    `compare: ${fmt(c.pairedTasks)} paired tasks, bootstrap ${fmt(c.bootstrap)}: ours ${fmt(c.warmMs)} ms warm, ${fmt(c.coldMs)} ms cold (goal < ${fmt(COMPARE_GOAL_MS)}); ` +
      `DuckDB ${fmt(c.duckdbMs)} ms, ${c.ratio === null ? `ANSWERS DIFFER (${c.mismatch})` : `ratio ${c.ratio.toFixed(2)}`}`,
  );
}

if (only.includes('cli')) {
  log(`\nCLI start (routelens from its bundle, and from source through tsx, vs a bare node -e '')`);
  const started = measured(null);
  const x = benchCli(cache, intOption('cli-runs', 15), log);
  results.cli = close({ ...started, dataset: { episodes: 0, turns: 0, seed: 0 }, result: x });
  const ratio = (id: string): number => x.cases.find((c) => c.id === id)?.ratio ?? Number.NaN;
  log(`cli: --help ${ratio('help').toFixed(2)}× (goal ≤ ${CLI_GOALS.help}), info --json ${ratio('info').toFixed(2)}× (goal ≤ ${CLI_GOALS.info}) the bare start`);
}

if (only.includes('watch')) {
  const megabytes = intOption('watch-mb', 1024);
  log(`\nwatch (routelens watch on a ~/.claude/projects tree of ${megabytes} MiB while calls are appended, vs re-importing each changed file whole)`);
  const started = measured(null);
  const w = await benchWatch(cache, megabytes, log);
  results.watch = close({ ...started, dataset: { episodes: w.files, turns: 0, seed: 0 }, result: w });
  log(
    `watch: p50 ${fmt(w.ours.p50Ms)} ms, p95 ${fmt(w.ours.p95Ms)} ms (goal p50 < 2,000 ms); baseline p50 ${fmt(w.baseline.p50Ms)} ms, p95 ${fmt(w.baseline.p95Ms)} ms; ` +
      `latency ratio ${w.latencyRatio.toFixed(2)}, CPU ratio ${w.cpuRatio.toFixed(2)}; idle ${(w.ours.idleCpuShare * 100).toFixed(1)}% of a core`,
  );
}

const runFile = join(cache, `results-${episodes}-s${seed}.json`);
if (Object.keys(results).length > 0) {
  writeFileSync(runFile, `${JSON.stringify(results, null, 1)}\n`);
  log(`\nwrote ${runFile}`);
}
// Nothing measured that the record holds (formats alone): bench/results.json and BENCHMARKS.md stay as they are.
if (record && Object.keys(results).length > 0) {
  const jsonPath = join(root, 'bench', 'results.json');
  const merged = { ...readResults(jsonPath), ...results };
  writeResults(jsonPath, join(root, 'BENCHMARKS.md'), merged);
  log(`wrote bench/results.json and BENCHMARKS.md`);
}
const missed =
  (results.import && results.import.result.ratio < 0.5) ||
  results.analyses?.result.analyses.some((a) => a.ratio === null || a.ratio > 1) ||
  (results.scoring && results.scoring.result.ratio < 0.7) ||
  (results.ui && !results.ui.result.passed) ||
  (results.compare && (results.compare.result.ratio === null || Math.max(results.compare.result.warmMs, results.compare.result.coldMs) >= COMPARE_GOAL_MS)) ||
  results.cli?.result.cases.some((c) => (c.id === 'help' && c.ratio > CLI_GOALS.help) || (c.id === 'info' && c.ratio > CLI_GOALS.info)) ||
  (results.watch && (results.watch.result.ours.p50Ms >= 2000 || results.watch.result.ours.missed > 0));
if (missed) log('some goals were missed (see above)');
