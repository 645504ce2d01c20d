/**
 * The ClickHouse store from the command line: `routelens store init|clean --store URL`, and the `--store URL`
 * side of `import`, `info` and `analyze` (cli.ts hands over when a store URL is given or ROUTELENS_STORE is set).
 */
import { err, out, print, UsageError, type Command } from './cliCommon.ts';
import { showAnalysis, showTables } from './cliAnalysisText.ts';
import { bar, Progress } from './cliProgress.ts';
import type { ImportReport } from './importers/pipeline.ts';
import type { ExpectedStepsTable } from './analysis/expectedSteps.ts';
import { storeUrlOf, type ClickHouseStoreUrl } from './store/storeUrl.ts';
import { calibrationFlags, embeddingsFlags, estimatorFlag, showCalibration, showEmbeddings } from './cliAnalyzeEstimator.ts';
import type { ClickHouseStore } from './store/clickhouse/schema/connection.ts';
import type { StoreRunInfo } from './store/clickhouse/queries/storeInfo.ts';

// The store's modules (and the ClickHouse client) load only when a command uses a store: `--db` commands start
// as fast as before.
const storeModules = async () => ({
  ...(await import('./store/clickhouse/schema/connection.ts')),
  ...(await import('./store/clickhouse/schema/schema.ts')),
  ...(await import('./store/clickhouse/schema/cleanStore.ts')),
  ...(await import('./store/clickhouse/import/importToStore.ts')),
  ...(await import('./store/clickhouse/queries/storeInfo.ts')),
  ...(await import('./store/clickhouse/queries/storeAnalyses.ts')),
  ...(await import('./store/clickhouse/queries/storeCalibration.ts')),
  ...(await import('./store/clickhouse/queries/storeEmbeddings.ts')),
});

/** Analyses answered by SQL on the store: every one of DESIGN §8. */
export const PUSHED_DOWN = ['pareto', 'switch-cost', 'error-recovery', 'usage-by-turn', 'budget-modes', 'usage-ratio', 'confusion', 'targets', 'lift', 'plan-dag', 'calibration', 'embeddings'] as const;

export const STORE_OPTION = { store: { type: 'string' } } as const;

/** The commands that take `--store URL` so far; the others say so and ask for `--db FILE`. */
export const STORE_AWARE = { store: true, import: true, info: true, analyze: true, serve: true, export: true, replay: true, compare: true, train: true, score: true } as const;

/** A store checked to have this RouteLens's schema, for a command that reads it; closed again if it has not. */
export async function openCheckedStore(url: ClickHouseStoreUrl): Promise<ClickHouseStore> {
  const { ClickHouseStore: Store } = await import('./store/clickhouse/schema/connection.ts');
  const { requireSchema } = await import('./store/clickhouse/schema/schema.ts');
  const store = new Store(url);
  try {
    await requireSchema(store);
    return store;
  } catch (e) {
    await store.close();
    throw e;
  }
}

async function withStore<T>(url: ClickHouseStoreUrl, f: (store: ClickHouseStore, m: Awaited<ReturnType<typeof storeModules>>) => Promise<T>): Promise<T> {
  const m = await storeModules();
  const store = new m.ClickHouseStore(url);
  try {
    return await f(store, m);
  } finally {
    await store.close();
  }
}

export async function importIntoStore(
  url: ClickHouseStoreUrl,
  paths: string[],
  options: { format?: string; runName?: string; expectedSteps?: ExpectedStepsTable },
  json: boolean,
): Promise<ImportReport> {
  const progress = new Progress(process.stderr, json && !process.stderr.isTTY);
  try {
    return await withStore(url, (store, m) =>
      m.importToStore(store, paths, {
        ...options,
        onProgress: (p) => {
          const within = p.fileBytes > 0 ? p.fileBytesRead / p.fileBytes : 0;
          const frac = p.filesTotal > 0 ? (p.filesDone + within) / p.filesTotal : 1;
          progress.update(`importing into ${store.shown} ${bar(frac)} ${p.filesDone}/${p.filesTotal} files, ${p.episodes} episodes, ${p.turns} turns`);
        },
      }),
    );
  } finally {
    progress.done();
  }
}

export async function infoOfStore(url: ClickHouseStoreUrl): Promise<StoreRunInfo[]> {
  return withStore(url, (store, m) => m.storeInfo(store));
}

export async function analyzeOnStore(
  url: ClickHouseStoreUrl,
  analysis: string | undefined,
  sel: {
    runs: string[]; split?: string; reference?: string; rho?: Record<string, number>; episode?: string; minCount?: number;
    /** calibration, embeddings: their flags as given (checked as with --db; the store numbers an estimator by its scorings). */
    flags?: Record<string, unknown>;
  },
  json: boolean,
): Promise<number> {
  if (!(PUSHED_DOWN as readonly string[]).includes(analysis ?? '')) {
    throw new UsageError(`unknown analysis "${analysis ?? ''}" (available: ${PUSHED_DOWN.join(', ')})`);
  }
  // Flags are checked before connecting, as every other mistake in the command line is.
  const flags = sel.flags ?? {};
  const calibration = analysis === 'calibration' ? calibrationFlags(flags) : undefined;
  const embeddings = analysis === 'embeddings' ? { runs: sel.runs, estimator: estimatorFlag(flags), ...embeddingsFlags(flags) } : undefined;
  return withStore(url, async (store, m) => {
    await m.requireSchema(store);
    try {
      switch (analysis) {
        case 'pareto':
          return showAnalysis('pareto', await m.paretoOnStore(store, sel), json);
        case 'switch-cost':
          return showAnalysis('switch-cost', await m.switchCostOnStore(store, sel), json);
        case 'error-recovery':
          return showAnalysis('error-recovery', await m.errorRecoveryOnStore(store, sel), json);
        case 'budget-modes':
          return showTables(await m.budgetModesOnStore(store, sel), json);
        case 'usage-ratio':
          return showTables(await m.usageRatioOnStore(store, sel), json);
        case 'confusion':
          return showTables(await m.confusionOnStore(store, sel), json);
        case 'lift':
          return showAnalysis('lift', await m.liftOnStore(store, sel), json);
        case 'calibration':
          return showCalibration(await m.calibrationOnStore(store, { ...sel, ...calibration }), json);
        case 'embeddings':
          return showEmbeddings(await m.embeddingsOnStore(store, embeddings), json);
        case 'plan-dag': {
          if (sel.episode === undefined) return showTables(await m.planDagSummaryOnStore(store, sel), json);
          if (sel.runs.length > 1) throw new UsageError('plan-dag --episode takes at most one --run');
          if (sel.split !== undefined) throw new UsageError('plan-dag --episode is one episode: --split does not apply');
          const { run: _run, ...result } = await m.planDagEpisodeOnStore(store, sel.episode, sel.runs[0]);
          return showTables(result, json);
        }
        case 'targets': {
          if (sel.episode === undefined) throw new UsageError('--episode ID is required for targets');
          if (sel.split !== undefined) throw new UsageError('targets is one episode: --split does not apply');
          if (sel.runs.length > 1) throw new UsageError('targets takes at most one --run');
          return showAnalysis('targets', await m.targetsOnStore(store, sel.episode, sel.runs[0]), json);
        }
        default:
          return showAnalysis('usage-by-turn', await m.usageByTurnOnStore(store, sel), json);
      }
    } catch (e) {
      if (e instanceof RangeError) throw new UsageError(e.message);
      throw e;
    }
  });
}

export const storeCommands: Record<string, Command> = {
  store: {
    summary: 'create, migrate or clean a ClickHouse store (docs/scale-out.md)',
    usage: 'routelens store init|clean|ddl --store clickhouse://HOST:PORT[,HOST:PORT…]/DB[?cluster=NAME] [--older-than-minutes N] [--json]\n' +
      '  init: creates the database and tables on every host (idempotent), checks the hosts are the cluster\'s shards in order.\n' +
      '  ddl: prints the statements init runs (and on which hosts), connecting to nothing.\n' +
      '  clean: deletes the rows of imports that never completed (started over --older-than-minutes ago, default 60) and of replaced files,\n' +
      '         and the estimates of scorings cancelled or never completed.\n' +
      '  The URL may also come from ROUTELENS_STORE; a user and password from the URL or ROUTELENS_STORE_USER / ROUTELENS_STORE_PASSWORD.',
    options: { ...STORE_OPTION, 'older-than-minutes': { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
    async run(values, positionals) {
      const action = positionals[0];
      if (action !== 'init' && action !== 'clean' && action !== 'ddl') throw new UsageError('say what to do: routelens store init|clean|ddl --store URL');
      const url = storeUrlOf(values) ?? (() => {
        throw new UsageError('--store URL is required (or set ROUTELENS_STORE)');
      })();
      if (action === 'ddl') {
        // For a DBA who creates the tables by hand: what `init` would run, connecting to nothing.
        const { ddlStatements, STORE_SCHEMA_VERSION } = await import('./store/clickhouse/schema/schema.ts');
        for (const { on, sql } of ddlStatements(url.database, url.cluster)) out(`-- on ${on}\n${sql};`);
        out(`-- on first host\nINSERT INTO ${url.database}.schema_version VALUES (${STORE_SCHEMA_VERSION}, now());`);
        return 0;
      }
      return withStore(url, async (store, m) => {
        if (action === 'init') {
          const result = await m.initStore(store);
          if (values.json) return print({ store: store.shown, ...result });
          err(`${result.created ? 'created' : 'up to date'}: ${store.shown} (schema version ${result.version}, ${store.nodes.length} shard${store.nodes.length === 1 ? '' : 's'})`);
          return 0;
        }
        const minutes = values['older-than-minutes'] === undefined ? 60 : Number(values['older-than-minutes']);
        if (!(minutes >= 0)) throw new UsageError('--older-than-minutes must be a number ≥ 0');
        const report = await m.cleanStore(store, minutes * 60_000);
        if (values.json) return print(report);
        err(`cleaned ${report.abandoned.length} unfinished and ${report.superseded.length} replaced import(s) and ${report.scorings.length} unfinished scoring(s); ClickHouse deletes their rows in the background`);
        return 0;
      });
    },
  },
};

