/**
 * The `routelens` command (DESIGN §9). Each subcommand parses its own flags, prints `--help`, writes one
 * JSON document to stdout with `--json`, and exits 0 (ok), 1 (the user's input is wrong: message on
 * stderr, no stack) or 2 (our bug).
 */
import { parseArgs } from 'node:util';
import { budgetModesAnalysis, confusionAnalysis, usageRatioAnalysis } from './analysis/controllerAnalyses.ts';
import { errorRecoveryAnalysis } from './analysis/errorRecovery.ts';
import { liftAnalysis } from './analysis/lift.ts';
import { planDagEpisode, planDagSummary } from './analysis/planDag.ts';
import { paretoAnalysis } from './analysis/pareto.ts';
import { switchCostAnalysis } from './analysis/switchCost.ts';
import { usageByTurnAnalysis } from './analysis/usageByTurn.ts';
import { episodeTargets } from './analysis/targets.ts';
import { expectedStepsTableNames, loadExpectedSteps, type ExpectedStepsTable } from './analysis/expectedSteps.ts';
import { bar, Progress } from './cliProgress.ts';
import { err, out, requireDb, UsageError, withRuns, type Command } from './cliCommon.ts';
import { visibleText as v } from '../shared/displayText.ts';
import { nameKeyed } from '../shared/nameKeyed.ts';
import { estimatorCommands } from './cliEstimator.ts';
import { databaseErrorOf, describeWait, openDatabase, SchemaError } from './db/database.ts';
import { runCostSources } from './db/runCostChecks.ts';
import { doctorCommands } from './cliDoctor.ts';
import { buildDemo } from './demo.ts';
import { importPaths, type ImportReport } from './importers/pipeline.ts';
import { IMPORTERS } from './importers/registry.ts';
import { ImportError } from './importers/types.ts';
import { startServer, untilSignalled } from './server/serve.ts';
import { PRESET_NAMES, PRESETS, simulateToFile, type PresetName } from '../fixtures/simulator/index.ts';
import { createApi, resolveEpisodeId } from './services/api.ts';
import { NotFoundError } from './services/dispatch.ts';
import { compareCommands } from './cliCompare.ts';
import { exportDataCommands } from './cliExportData.ts';
import { showAnalysis, showRunsInfo, showTables } from './cliAnalysisText.ts';
import { analyzeOnStore, importIntoStore, infoOfStore, STORE_AWARE, STORE_OPTION, storeCommands } from './cliStore.ts';
import { describeStore, StoreError, storeUrlOf, StoreUrlError } from './store/storeUrl.ts';
import { replayCommands } from './cliReplay.ts';
import { exportCommands } from './cliExport.ts';
import { analyzeEstimator, ESTIMATOR_ANALYSES, ESTIMATOR_ANALYSIS_OPTIONS, ESTIMATOR_ANALYSIS_USAGE } from './cliAnalyzeEstimator.ts';

const ANALYSES = [
  'targets', 'lift', 'error-recovery', 'usage-by-turn', 'switch-cost', 'pareto', 'budget-modes', 'usage-ratio', 'confusion', 'plan-dag',
  ...ESTIMATOR_ANALYSES,
] as const;

/** `--min-n N` for lift: cells with fewer turns are left out. */
function minNOf(values: Record<string, unknown>): number | undefined {
  const minCount = values['min-n'] === undefined ? undefined : Number(values['min-n']);
  if (minCount !== undefined && !(Number.isInteger(minCount) && minCount >= 1)) throw new UsageError('--min-n must be a whole number ≥ 1');
  return minCount;
}

/** `--rho gpt-5=0.25,kimi-k2=0.5` → { 'gpt-5': 0.25, 'kimi-k2': 0.5 } */
function parseRho(text: string | undefined): Record<string, number> | undefined {
  if (text === undefined) return undefined;
  // Model names come from the user and the logs: `__proto__` must stay a key, not set a prototype.
  const out = nameKeyed<number>();
  for (const part of text.split(',')) {
    const [model, value] = part.split('=');
    const rho = Number(value);
    if (!model || !(rho >= 0 && rho <= 1)) throw new UsageError(`--rho takes MODEL=RATIO pairs with ratios in [0, 1], got "${part}"`);
    out[model.trim()] = rho;
  }
  return out;
}


/** Ignored files listed one per line up to this many; `--verbose` lists them all. */
const IGNORED_SHOWN = 20;

function printImportReport(report: ImportReport, verbose: boolean): void {
  for (const f of report.files) {
    // Paths, reasons and warnings quote file names and log text: one line each, whatever they hold.
    if (f.status === 'imported') err(`imported  ${v(f.path)} (${f.format}: ${f.episodes} episodes, ${f.turns} turns)`);
    else if (f.status === 'skipped') err(`skipped   ${v(f.path)}: ${v(f.reason ?? '')}`);
    else err(`rejected  ${v(f.reason ?? '')}`);
  }
  const shown = verbose ? report.ignored : report.ignored.slice(0, IGNORED_SHOWN);
  for (const i of shown) err(`ignored   ${v(i.path)}: ${v(i.reason)}`);
  if (shown.length < report.ignored.length) {
    const byReason = new Map<string, number>();
    for (const i of report.ignored.slice(shown.length)) {
      const kind = i.reason.replace(/:.*$/, '').replace(/\s*\(.*$/, '');
      byReason.set(kind, (byReason.get(kind) ?? 0) + 1);
    }
    const summary = [...byReason].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`).join(', ');
    err(`ignored   … and ${report.ignored.length - shown.length} more (${summary}); --verbose lists them all`);
  }
  for (const w of report.warnings) err(`warning: ${v(w)}`);
}

/** `routelens import … --db FILE`: waits, with a message, while another process imports into the same file. */
async function importIntoDb(values: Record<string, unknown>, paths: string[], expectedSteps: ExpectedStepsTable | undefined): Promise<ImportReport> {
  const db = openDatabase(requireDb(values, false));
  const progress = new Progress(process.stderr, values.json === true && !process.stderr.isTTY);
  let waitedForWriter = false;
  try {
    return await importPaths(db, paths, {
      format: values.format as string | undefined,
      runName: values.run as string | undefined,
      expectedSteps,
      // Another process is importing into this database: say so, once a second, until it finishes.
      onWait: (w) => {
        if (!waitedForWriter) err(describeWait(w)); // always once, also with --json
        else progress.update(describeWait(w));
        waitedForWriter = true;
      },
      onProgress: (p) => {
        if (waitedForWriter) {
          waitedForWriter = false;
          progress.done();
        }
        const within = p.fileBytes > 0 ? p.fileBytesRead / p.fileBytes : 0;
        const frac = p.filesTotal > 0 ? (p.filesDone + within) / p.filesTotal : 1;
        progress.update(`importing ${bar(frac)} ${p.filesDone}/${p.filesTotal} files, ${p.episodes} episodes, ${p.turns} turns`);
      },
    });
  } finally {
    progress.done();
    db.close();
  }
}

const baseCommands: Record<string, Command> = {
  simulate: {
    summary: 'generate trajectories with planted, known effects (and a .truth.json beside them)',
    usage: `routelens simulate --preset ${PRESET_NAMES.join('|')} --episodes N --seed S --out FILE.jsonl`,
    options: { preset: { type: 'string' }, episodes: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } },
    async run(values) {
      const preset = values.preset as string | undefined;
      if (!preset || !(PRESET_NAMES as readonly string[]).includes(preset)) {
        throw new UsageError(`--preset must be one of:\n${PRESETS.map((p) => `  ${p.name.padEnd(13)}${p.description}`).join('\n')}`);
      }
      const episodes = Number(values.episodes ?? '1000');
      const seed = Number(values.seed ?? '1');
      if (!Number.isInteger(episodes) || episodes < 1) throw new UsageError('--episodes must be a whole number ≥ 1');
      if (!Number.isInteger(seed)) throw new UsageError('--seed must be a whole number');
      if (typeof values.out !== 'string') throw new UsageError('--out FILE.jsonl is required');
      const progress = new Progress();
      const started = Date.now();
      let result;
      try {
        result = await simulateToFile({
          preset: preset as PresetName, episodes, seed, out: values.out,
          onProgress: (done, total) => progress.update(`simulating ${bar(done / total)} ${done}/${total} episodes`),
        });
      } catch (e) {
        if (e instanceof RangeError) throw new UsageError(e.message);
        throw e;
      }
      progress.done();
      err(`wrote ${values.out}: ${result.episodes} episodes, ${result.turns} turns in ${((Date.now() - started) / 1000).toFixed(1)} s; truth in ${result.truthPath}`);
      return 0;
    },
  },

  import: {
    summary: 'import trajectory logs (files or folders) into a database',
    usage: `routelens import PATH... --db FILE|--store URL [--format auto|${IMPORTERS.map((i) => i.format).join('|')}] [--run NAME] [--expected-steps ${expectedStepsTableNames().join('|')}|FILE] [--verbose] [--json]\n` +
      '  --verbose: list every file of a folder that was not read (the first 20 are listed by default); --json has them all.\n' +
      '  --expected-steps: N per task for the AEC targets, stored per episode at import: a built-in table, a JSON/YAML\n' +
      '  file {"by_task_type": {TYPE: {"default": N, "by_category": {CATEGORY: N}}}}, or the MTRouter authors\' error_rules.yaml\n' +
      '  (its aec.expected_steps). Default: fixtures/expected-steps.json (ScienceWorld 27 for every task, as the authors\' code).',
    options: { db: { type: 'string' }, ...STORE_OPTION, format: { type: 'string' }, run: { type: 'string' }, 'expected-steps': { type: 'string' }, json: { type: 'boolean' }, verbose: { type: 'boolean' } },
    allowPositionals: true,
    async run(values, paths) {
      if (paths.length === 0) throw new UsageError('give at least one file or folder to import');
      const stepsSpec = values['expected-steps'] as string | undefined;
      let expectedSteps;
      try {
        expectedSteps = stepsSpec === undefined ? undefined : loadExpectedSteps(stepsSpec);
      } catch (e) {
        if (e instanceof RangeError) throw new UsageError(e.message);
        throw e;
      }
      const store = storeUrlOf(values);
      const report = store
        ? await importIntoStore(store, paths, { format: values.format as string | undefined, runName: values.run as string | undefined, expectedSteps }, values.json === true)
        : await importIntoDb(values, paths, expectedSteps);
      if (values.json) out(JSON.stringify(report));
      else printImportReport(report, values.verbose === true);
      const rejected = report.files.filter((f) => f.status === 'rejected').length;
      if (!values.json) {
        const imported = report.files.filter((f) => f.status === 'imported');
        err(`${imported.length} imported, ${report.files.length - imported.length - rejected} skipped, ${rejected} rejected` +
          (report.ignored.length ? `, ${report.ignored.length} other files ignored` : ''));
      }
      return rejected > 0 ? 1 : 0;
    },
  },

  info: {
    summary: 'list the runs in a database',
    usage: 'routelens info --db FILE|--store URL [--json]',
    options: { db: { type: 'string' }, ...STORE_OPTION, json: { type: 'boolean' } },
    async run(values) {
      const store = storeUrlOf(values);
      if (store) return showRunsInfo(await infoOfStore(store), values.json === true);
      const db = openDatabase(requireDb(values), { readonly: true });
      try {
        const runs = await createApi(db).listRuns({});
        // Episodes per data split and run (`--split` of train, replay and analyze selects by these names).
        const splits = new Map<string, Record<string, number>>();
        for (const { run, split, n } of db
          .prepare('SELECT r.name AS run, e.split, COUNT(*) AS n FROM episodes e JOIN runs r ON r.id = e.run_id WHERE e.split IS NOT NULL GROUP BY r.id, e.split ORDER BY e.split')
          .all() as { run: string; split: string; n: number }[]) {
          splits.set(run, { ...splits.get(run), [split]: n });
        }
        const costSources = runCostSources(db);
        // Turns whose cost is unknown (no cost logged, no price known, not covered by a logged total).
        const unpriced = new Map(
          (db.prepare('SELECT r.name AS run, COALESCE(SUM(e.unpriced_turns), 0) AS n FROM runs r LEFT JOIN episodes e ON e.run_id = r.id GROUP BY r.id')
            .all() as { run: string; n: number }[]).map((x) => [x.run, x.n]),
        );
        return showRunsInfo(runs.map((r) => ({
          name: r.name, format: r.format, episodes: r.episodes, child_episodes: r.child_episodes, turns: r.turns, models: r.models,
          // null when any cost is unknown; known_cost is then the part that is known (a lower bound).
          total_cost: r.total_cost, known_cost: r.known_cost, unpriced_turns: unpriced.get(r.name) ?? 0,
          unpriced_episodes: r.unpriced_episodes, success_rate: r.success_rate, unknown_outcome: r.unknown_outcome,
          splits: splits.get(r.name) ?? {},
          log_totals: r.log_totals, cost_sources: costSources.get(r.id) ?? [],
        })), values.json === true);
      } finally {
        db.close();
      }
    },
  },

  analyze: {
    summary: `run an analysis: ${ANALYSES.join(', ')}`,
    usage: `routelens analyze ${ANALYSES.join('|')} --db FILE|--store URL [--run NAME...] [--split NAME[,NAME]] [--episode ID] [--min-n N] [--reference RUN] [--rho MODEL=R,...] [--json]\n` +
      '  --split: only episodes of these splits (train, val, test_id, ood_test, …; the groups id and ood)\n' +
      ESTIMATOR_ANALYSIS_USAGE,
    options: {
      db: { type: 'string' }, ...STORE_OPTION, episode: { type: 'string' }, run: { type: 'string', multiple: true }, split: { type: 'string' },
      'min-n': { type: 'string' }, reference: { type: 'string' }, rho: { type: 'string' }, json: { type: 'boolean' },
      ...ESTIMATOR_ANALYSIS_OPTIONS,
    },
    allowPositionals: true,
    async run(values, positionals) {
      const analysis = positionals[0];
      const runs = (values.run as string[] | undefined) ?? [];
      const split = values.split as string | undefined;
      const store = storeUrlOf(values);
      if (store) {
        const sel = {
          runs, split, reference: values.reference as string | undefined, rho: parseRho(values.rho as string | undefined), episode: values.episode as string | undefined,
          minCount: minNOf(values), flags: values,
        };
        return analyzeOnStore(store, analysis, sel, values.json === true);
      }
      const db = openDatabase(requireDb(values), { readonly: true });
      try {
        if (analysis === 'targets') {
          if (typeof values.episode !== 'string') throw new UsageError('--episode ID is required for targets');
          if (split !== undefined) throw new UsageError('targets is one episode: --split does not apply');
          if (runs.length > 1) throw new UsageError('targets takes at most one --run');
          const id = resolveEpisodeId(db, { ext_id: values.episode, run: runs[0] });
          return showAnalysis('targets', { episode: values.episode, ...episodeTargets(db, id) }, values.json === true);
        }
        if (analysis === 'lift') {
          const minCount = minNOf(values);
          return showAnalysis('lift', withRuns(() => liftAnalysis(db, { runs, split, minCount })), values.json === true);
        }
        if (analysis === 'error-recovery') {
          return showAnalysis('error-recovery', withRuns(() => errorRecoveryAnalysis(db, { runs, split })), values.json === true);
        }
        if (analysis === 'usage-by-turn') {
          return showAnalysis('usage-by-turn', withRuns(() => usageByTurnAnalysis(db, { runs, split })), values.json === true);
        }
        if (analysis === 'switch-cost') {
          return showAnalysis('switch-cost', withRuns(() => switchCostAnalysis(db, { runs, split })), values.json === true);
        }
        if (analysis === 'pareto') {
          const reference = values.reference as string | undefined;
          return showAnalysis('pareto', withRuns(() => paretoAnalysis(db, { runs, split, reference })), values.json === true);
        }
        if (analysis === 'plan-dag') {
          if (typeof values.episode === 'string') {
            if (runs.length > 1) throw new UsageError('plan-dag --episode takes at most one --run');
            if (split !== undefined) throw new UsageError('plan-dag --episode is one episode: --split does not apply');
            const id = resolveEpisodeId(db, { ext_id: values.episode, run: runs[0] });
            const result = planDagEpisode(db, id, values.episode);
            out(values.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
            return 0;
          }
          const result = withRuns(() => planDagSummary(db, { runs, split }));
          out(values.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
          return 0;
        }
        if (analysis === 'budget-modes' || analysis === 'usage-ratio' || analysis === 'confusion') {
          const rho = parseRho(values.rho as string | undefined);
          const result = withRuns(() =>
            analysis === 'budget-modes'
              ? budgetModesAnalysis(db, { runs, split })
              : analysis === 'usage-ratio'
                ? usageRatioAnalysis(db, { runs, split, rho })
                : confusionAnalysis(db, { runs, split }),
          );
          return showTables(result, values.json === true);
        }
        if (analysis === 'calibration' || analysis === 'embeddings') return await analyzeEstimator(db, analysis, values, runs);
        throw new UsageError(`unknown analysis "${analysis ?? ''}" (available: ${ANALYSES.join(', ')})`);
      } finally {
        db.close();
      }
    },
  },

  serve: {
    summary: 'serve the app to a browser on 127.0.0.1 (with an access token)',
    usage: 'routelens serve --db FILE|--store URL [--port P]\n' +
      '  --store: Runs, Episodes, the inspector, the analyses and figure export read a ClickHouse store (docs/scale-out.md)',
    options: { db: { type: 'string' }, ...STORE_OPTION, port: { type: 'string' } },
    async run(values) {
      const port = values.port === undefined ? 0 : Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a number from 0 to 65535');
      const store = storeUrlOf(values);
      const server = await startServer(store ? { store, port } : { dbPath: requireDb(values), port });
      out(`RouteLens is serving ${store ? describeStore(store) : String(values.db)} at ${server.url}`);
      out('Open that URL in a browser (it carries this launch\'s access token). Ctrl+C stops.');
      await untilSignalled(server);
      return 0;
    },
  },

  demo: {
    summary: 'build the demo database from the bundled samples',
    usage: 'routelens demo --db FILE [--force]',
    options: { db: { type: 'string' }, force: { type: 'boolean' } },
    async run(values) {
      const path = requireDb(values, false);
      const progress = new Progress();
      const summary = await buildDemo(path, { force: values.force === true, onProgress: (m) => progress.update(m) });
      progress.done();
      err(summary);
      return 0;
    },
  },
};

/** Every command; areas add theirs from their own modules. */
const commands: Record<string, Command> = {
  ...baseCommands,
  ...estimatorCommands,
  ...replayCommands,
  ...compareCommands,
  ...storeCommands,
  ...exportDataCommands,
  ...exportCommands,
  ...doctorCommands,
};

function help(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  return [
    'routelens — inspect, compare and replay multi-model LLM agent trajectories',
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `routelens help COMMAND` (or `routelens COMMAND --help`) for its options.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    out(help());
    return name === undefined ? 1 : 0;
  }
  // Some npx versions take `npx routelens --help` as asking npm for help; `npx routelens help import` reaches us.
  if (name === 'help') {
    const about = rest[0];
    if (about === undefined) {
      out(help());
      return 0;
    }
    const command = Object.hasOwn(commands, about) ? commands[about] : undefined;
    if (!command) {
      err(`routelens help: unknown command "${about}"\n\n${help()}`);
      return 1;
    }
    out(`${command.summary}\n\nusage: ${command.usage}`);
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    err(`routelens: unknown command "${name}"\n\n${help()}`);
    return 1;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    out(`${command.summary}\n\nusage: ${command.usage}`);
    return 0;
  }
  let dbPath: string | undefined;
  if (rest.some((a) => a === '--store' || a.startsWith('--store=')) && !(name in STORE_AWARE)) {
    err(`routelens ${name}: does not read a ClickHouse store yet (--store works with ${Object.keys(STORE_AWARE).join(', ')}); give --db FILE`);
    return 1;
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: command.options,
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
    });
    if (typeof values.db === 'string') dbPath = values.db;
    return await command.run(values as Record<string, unknown>, positionals);
  } catch (caught) {
    // SQLite's damage and lock errors, met on any query, are the file's state, not our bug (issue 16).
    const e = dbPath === undefined ? caught : databaseErrorOf(caught, dbPath);
    if (e instanceof UsageError || e instanceof ImportError || e instanceof NotFoundError || e instanceof SchemaError || e instanceof StoreError || e instanceof StoreUrlError) {
      err(`routelens ${name}: ${e.message}`);
      return 1;
    }
    if (e instanceof Error && 'code' in e && typeof e.code === 'string' && e.code.startsWith('ERR_PARSE_ARGS')) {
      err(`routelens ${name}: ${e.message}\nusage: ${command.usage}`);
      return 1;
    }
    err(`routelens ${name}: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 2;
  }
}
