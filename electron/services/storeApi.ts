/**
 * The API contract over a ClickHouse store (DESIGN §2, second store): what `serve --store URL` answers. Runs, the
 * Episodes list (sorted, filtered, paged and searched on the cluster), one episode on demand, the analyses and
 * their figure files come from SQL on the shards; only aggregates and the page or episode asked for travel.
 * Compare runs the same code over each run's episodes read from the store. What needs estimator scores, replay
 * in the window or writes (import, training, scoring, the policy lab) is not built on the store yet: those calls
 * say so, as a user's error naming `--db`, and change nothing.
 */
import { EpisodeQuery, type RouteLensApi } from '../../shared/api.ts';
import { ExportFigureRequest } from '../../shared/apiAnalysis.ts';
import { ExportCompareFigureRequest } from '../../shared/apiCompare.ts';
import { CompareError } from '../compare/compareReads.ts';
import { compareFigureFile } from '../export/compareFigureFile.ts';
import { compareOnStore } from '../store/clickhouse/queries/storeCompare.ts';
import { modelColorFrom } from '../../shared/charts/context.ts';
import { answer } from './analysisService.ts';
import { figureFile } from '../export/figureFile.ts';
import type { ClickHouseStore } from '../store/clickhouse/schema/connection.ts';
import { requireSchema, schemaVersion, visibleRows } from '../store/clickhouse/schema/schema.ts';
import { runAnalysisOnStore } from '../store/clickhouse/queries/storeAnalysisRequest.ts';
import { listEstimatorsOnStore } from '../store/clickhouse/queries/storeEstimators.ts';
import {
  episodeDetailOnStore, findEpisodesOnStore, listModelsOnStore, listRunsOnStore, queryEpisodesOnStore,
} from '../store/clickhouse/queries/storeEpisodes.ts';
import { onlyEpisode } from './episodeRef.ts';
import { pagedDetail } from './episodePages.ts';
import { InputError } from './serviceErrors.ts';
import { caseServices } from './caseService.ts';

/** Calls a ClickHouse store does not answer yet, and what each needs. */
const NOT_ON_STORE: Record<string, string> = {
  startImport: 'importing from the window', importStatus: 'importing from the window',
  replay: 'the policy lab', policyDiff: 'the policy lab', episodePolicyChoices: 'the policy lab', exportFrontierFigure: 'the policy lab',
  startEstimatorJob: 'training and scoring estimators', estimatorJobStatus: 'training and scoring estimators',
  cancelEstimatorJob: 'training and scoring estimators', setEstimatorInUse: 'estimators', renameEstimator: 'estimators', whatIf: 'what-if',
  followedFolders: 'following folders', followFolders: 'following folders', unfollowFolder: 'following folders',
  setAlertRule: 'alert rules', removeAlertRule: 'alert rules',
};

/** The message a window shows for a call the store does not answer (one line, the way out included). */
export function notOnStoreMessage(what: string): string {
  return `${what} works on a SQLite database, not yet on a ClickHouse store: open one with --db FILE (import the logs there with \`routelens import\`)`;
}

/** A comparison the store cannot make as asked (a run, a model, a value not there) is the caller's input error. */
function asInput(e: unknown): never {
  if (e instanceof CompareError) throw new InputError(e.message);
  throw e;
}

export async function createStoreApi(store: ClickHouseStore): Promise<RouteLensApi> {
  await requireSchema(store);
  const count = async (sql: string): Promise<number> => Number((await store.query<{ n: string }>(sql))[0]?.n ?? 0);
  const refuse = (name: string) => async () => {
    throw new InputError(notOnStoreMessage(NOT_ON_STORE[name] ?? name));
  };
  const refused = Object.fromEntries(Object.keys(NOT_ON_STORE).map((name) => [name, refuse(name)])) as unknown as Pick<RouteLensApi, keyof typeof NOT_ON_STORE & keyof RouteLensApi>;
  const api: RouteLensApi = {
    ...refused,
    dbInfo: async () => ({
      path: store.shown,
      runs: await count(`SELECT uniqExact(run) AS n FROM ${store.table('episodes')} WHERE ${visibleRows(store)}`),
      episodes: await count(`SELECT count() AS n FROM ${store.table('episodes')} WHERE ${visibleRows(store)}`),
      turns: await count(`SELECT count() AS n FROM ${store.table('turns')} WHERE ${visibleRows(store)}`),
      schema_version: (await schemaVersion(store)) ?? 0,
      // The ledger only grows (a completed, replaced or cleaned file adds an event), so its size moves with every change.
      data_version: await count(`SELECT count() AS n FROM ${store.database}.imports`),
      store: 'clickhouse',
    }),
    listRuns: async () => listRunsOnStore(store),
    // Nothing follows files into a store: no session on it is live.
    liveSessions: async () => [],
    // No watcher writes into a store, so no rule is evaluated there: none to list, none fired.
    alertRules: async () => [],
    alerts: async () => [],
    listModels: async () => listModelsOnStore(store),
    queryEpisodes: async (input) => queryEpisodesOnStore(store, EpisodeQuery.parse(input)),
    // The store reads a long episode whole and pages it here: its rows stay on the server, not in one answer.
    getEpisode: async (input) => {
      const id = 'id' in input ? input.id : onlyEpisode(await findEpisodesOnStore(store, input.ext_id, input.run), input);
      return pagedDetail(await episodeDetailOnStore(store, id), input.around);
    },
    getTurns: async (input) => ({ from: input.from, turns: (await episodeDetailOnStore(store, input.id)).turns.slice(input.from, input.from + input.count) }),
    // The estimators that scored the store, the newest in use: calibration names the one it reads.
    listEstimators: async () => listEstimatorsOnStore(store),
    compare: async (input) => compareOnStore(store, input).catch(asInput),
    exportCompareFigure: async (input) => {
      const req = ExportCompareFigureRequest.parse(input);
      const result = await compareOnStore(store, req.request).catch(asInput);
      const file = await compareFigureFile(result, req.figure, { ...req, modelColor: modelColorFrom(await listModelsOnStore(store)) });
      return { filename: file.filename, mime: file.mime, data_base64: file.data.toString('base64') };
    },
    runAnalysis: async (request) => answer(() => runAnalysisOnStore(store, request)),
    exportFigure: async (input) => {
      const req = ExportFigureRequest.parse(input);
      const response = await answer(() => runAnalysisOnStore(store, req.request));
      const file = await figureFile(response, { ...req, modelColor: modelColorFrom(await listModelsOnStore(store)) });
      return { filename: file.filename, mime: file.mime, data_base64: file.data.toString('base64') };
    },
  };
  // A shared case reads a store's episodes, runs and comparisons as the window does.
  return { ...api, ...caseServices(api, store.shown) };
}
