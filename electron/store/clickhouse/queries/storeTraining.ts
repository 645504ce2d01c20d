/**
 * The estimator's training rows from a ClickHouse store, in bounded memory (issue 19). The episodes with an
 * outcome are read in parts (storeSessionsPart.ts: a session's episodes in one part, about `partTurns` turns
 * each); each part's rows are built by the same TrainingRowBuilder as SQLite's (same histories, hashed features,
 * structured features and targets) and spilled to a file, so training holds one part at a time. The held-out
 * episodes are kept in memory, at most `maxValidationTurns` turns of them.
 *
 * The split differs from SQLite's in how the held-out episodes are drawn, not in what a split is: SQLite shuffles
 * every episode id with the seed, which needs all ids at once; a store holds out the episodes with the smallest
 * cityHash64(episode_key, seed), the same count (10%, at least one, not all), so the split is seeded, stable and
 * chosen on the shards.
 */
import { shippedModelPrice, loadPool } from '../../../db/models.ts';
import { splitValues } from '../../../../shared/splits.ts';
import {
  checkTrainingSelection, noTurnsToTrainOn, rowDims, summaryOf, TrainingRowBuilder, type DatasetSummary, type RowCounts,
} from '../../../estimator/dataset.ts';
import type { HeldOutTurn } from '../../../estimator/decisionQuality.ts';
import { DEFAULT_HISTORY_TOKENS } from '../../../estimator/historyText.ts';
import { inputProfile, type InputProfile } from '../../../estimator/inputProfile.ts';
import type { ModelFacts, ModelFeatureStats } from '../../../estimator/modelFeatures.ts';
import { SpilledParts } from '../../../estimator/trainingParts.ts';
import type { TrainingTaskType } from '../../../../shared/estimatorDomain.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { visibleRows } from '../schema/schema.ts';
import { storeModelOrder } from './storeEpisodes.ts';
import { readSessionsPart, sessionParts, type PartTurn } from './storeSessionsPart.ts';

export interface StoreTrainingOptions {
  runs?: readonly string[];
  split?: string;
  seed?: number;
  maxHistoryTokens?: number;
  profile?: InputProfile;
  /** Share of the episodes held out (default 0.1), lowered where it would hold out more than maxValidationTurns. */
  validationFraction?: number;
  /** The most held-out turns kept in memory (default 50,000). */
  maxValidationTurns?: number;
  /** Turns per part (default 20,000): what is read and encoded at once. */
  partTurns?: number;
  /** Where the part files go (default the system's temporary folder). */
  spillDir?: string;
  onProgress?: (p: { part: number; parts: number; rows: number }) => void;
}

export interface StoreTrainingSet {
  parts: SpilledParts;
  models: string[];
  modelFeatureStats: ModelFeatureStats;
  /** The held-out rows' tool category and whether the turn before erred (decisionQuality.ts), in row order. */
  heldOut: HeldOutTurn[];
  summary: DatasetSummary;
  /** The selected runs (every run when none was named), in import order. */
  runs: string[];
  taskTypes: TrainingTaskType[];
  /** The largest part's rows: what training holds at once besides the held-out rows. */
  largestPart: number;
}

const num = (x: unknown): number => Number(x);

/** Model facts on a store: prices and limits as RouteLens ships them (the pool, then the price library), means over the turns. */
async function storeModelFacts(store: ClickHouseStore): Promise<ModelFacts> {
  const means = await store.query<{ model: string; mean_out: number | null; mean_latency: number | null }>(
    `SELECT model, avg(tokens_out) AS mean_out, avg(latency_ms) AS mean_latency FROM ${store.table('turns')} WHERE ${visibleRows(store)} GROUP BY model`,
  );
  const meanOf = new Map(means.map((r) => [r.model, { mean_out: r.mean_out === null ? null : num(r.mean_out), mean_latency: r.mean_latency === null ? null : num(r.mean_latency) }]));
  const pool = loadPool();
  return {
    meta: (name) => {
      const price = shippedModelPrice(name);
      const entry = pool.find((m) => m.name === name);
      return {
        price_in_per_m: price.price_in_per_m, price_out_per_m: price.price_out_per_m, price_cached_per_m: price.price_cached_per_m,
        max_input_tokens: entry?.max_input_tokens ?? null, max_output_tokens: entry?.max_output_tokens ?? null, knowledge_cutoff: entry?.knowledge_cutoff ?? null,
      };
    },
    logMeans: (name) => meanOf.get(name),
  };
}

export async function buildStoreTrainingSet(store: ClickHouseStore, options: StoreTrainingOptions = {}): Promise<StoreTrainingSet> {
  const started = performance.now();
  const profile = options.profile ?? inputProfile();
  const maxTokens = options.maxHistoryTokens ?? DEFAULT_HISTORY_TOKENS;
  const runs = options.runs ?? [];
  const where = [visibleRows(store)];
  const params: Record<string, unknown> = {};
  if (runs.length) {
    where.push('has({runs:Array(String)}, run)');
    params.runs = runs;
  }
  if (options.split !== undefined) {
    where.push('split IS NOT NULL AND has({splits:Array(String)}, assumeNotNull(split))');
    params.splits = splitValues(options.split);
  }
  const episodes = store.table('episodes');
  const selected = where.join(' AND ');
  const withOutcomeWhere = `${selected} AND score_norm IS NOT NULL`;

  const known = (await store.query<{ run: string; first: string }>(
    `SELECT run, min(import_id) AS first FROM ${episodes} WHERE ${visibleRows(store)} GROUP BY run ORDER BY first, run`,
  )).map((r) => r.run);
  const [counts] = await store.query<{ selected: string; with_outcome: string; without_outcome: string; turns: string }>(
    `SELECT count() AS selected, countIf(score_norm IS NOT NULL) AS with_outcome, countIf(score_norm IS NULL) AS without_outcome,
       sumIf(n_turns, score_norm IS NOT NULL) AS turns FROM ${episodes} WHERE ${selected}`,
    params,
  );
  const splits = (await store.query<{ split: string }>(`SELECT DISTINCT split FROM ${episodes} WHERE ${visibleRows(store)} AND split IS NOT NULL ORDER BY split`)).map((r) => r.split);
  const withOutcome = num(counts?.with_outcome ?? 0);
  checkTrainingSelection({
    runs, known, split: options.split, selected: num(counts?.selected ?? 0), splits, withOutcome, withoutOutcome: num(counts?.without_outcome ?? 0),
  });

  // The pool: models the included episodes' turns used, in the order a SQLite database's ids would give them.
  const order = await storeModelOrder(store);
  const rank = new Map(order.map((m, i) => [m, i]));
  const inOutcomeEpisodes = `episode_key ${store.globalIn} (SELECT episode_key FROM ${episodes} WHERE ${withOutcomeWhere})`;
  const models = (await store.query<{ model: string }>(
    `SELECT DISTINCT model FROM ${store.table('turns')} WHERE ${visibleRows(store)} AND ${inOutcomeEpisodes}`, params,
  )).map((r) => r.model).sort((a, b) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0));
  if (models.length === 0) throw noTurnsToTrainOn(withOutcome);
  const mf = profile.modelFeatures(await storeModelFacts(store), models);

  // The held-out episodes: the nVal with the smallest seeded hash, nVal as SQLite counts it (capped in turns).
  const turnsWithOutcome = num(counts?.turns ?? 0);
  const maxValidation = options.maxValidationTurns ?? 50_000;
  const fraction = Math.min(options.validationFraction ?? 0.1, turnsWithOutcome > 0 ? maxValidation / turnsWithOutcome : 1);
  let nVal = Math.round(withOutcome * fraction);
  if (fraction > 0 && withOutcome >= 2) nVal = Math.min(Math.max(nVal, 1), withOutcome - 1);
  params.seed = options.seed ?? 0;
  const heldOutKeys = new Set(
    nVal === 0
      ? []
      : (await store.query<{ k: string }>(
          `SELECT episode_key AS k FROM ${episodes} WHERE ${withOutcomeWhere} ORDER BY cityHash64(episode_key, toUInt64({seed:UInt64})), episode_key LIMIT ${nVal}`,
          params,
        )).map((r) => r.k),
  );

  const parts = new SpilledParts({ ...rowDims(profile), models, modelFeatures: mf.features }, options.spillDir);
  const builderOptions = { models, profile, maxTokens, targets: 'stored' as const };
  const heldOutBuilder = new TrainingRowBuilder(builderOptions);
  const heldOut: HeldOutTurn[] = [];
  // Only the counts of the parts built: their rows are in the part files.
  const partCounts: RowCounts[] = [];
  const toRead = await sessionParts(store, { where: withOutcomeWhere, params, turns: turnsWithOutcome, turnsPerPart: options.partTurns ?? 20_000 });
  const P = toRead.length;
  let largestPart = 0;
  try {
    for (const [p, inPart] of toRead.entries()) {
      options.onProgress?.({ part: p, parts: P, rows: partCounts.reduce((a, b) => a + b.rows, 0) + heldOutBuilder.rows });
      const part = await readSessionsPart(store, { where: withOutcomeWhere, params, part: inPart });
      const builder = new TrainingRowBuilder(builderOptions);
      for (const { episode: e, turns, key } of part) {
        // The part was read with score_norm IS NOT NULL.
        const episode = { ...e, score_norm: e.score_norm as number };
        if (heldOutKeys.has(key)) {
          heldOutBuilder.addEpisode(episode, turns, true, (t) => {
            const turn = turns[t] as PartTurn;
            heldOut.push({ category: turn.category, previousErred: t > 0 && (turns[t - 1] as PartTurn).max_severity > 0 });
          });
        } else {
          builder.addEpisode(episode, turns, false);
        }
      }
      const rows = builder.finish();
      parts.add(rows);
      largestPart = Math.max(largestPart, rows.rows);
      partCounts.push(builder.counts());
    }
    const validation = heldOutBuilder.finish();
    parts.setValidation({ ...validation, models, modelFeatures: mf.features });
    options.onProgress?.({ part: P, parts: P, rows: partCounts.reduce((a, b) => a + b.rows, 0) + heldOutBuilder.rows });

    const taskTypes = (await store.query<{ task_type: string; episodes: string }>(
      `SELECT task_type, count() AS episodes FROM ${episodes} WHERE ${withOutcomeWhere} AND task_type IS NOT NULL
       GROUP BY task_type ORDER BY episodes DESC, task_type`,
      params,
    )).map((r) => ({ task_type: r.task_type, episodes: num(r.episodes) }));
    return {
      parts,
      models,
      modelFeatureStats: mf.stats,
      heldOut,
      summary: summaryOf([...partCounts, heldOutBuilder], num(counts?.without_outcome ?? 0), 'stored', maxTokens, (performance.now() - started) / 1000),
      runs: runs.length ? [...runs] : known,
      taskTypes,
      largestPart,
    };
  } catch (e) {
    parts.remove();
    throw e;
  }
}

