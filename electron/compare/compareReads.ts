/**
 * What Compare reads of a run, and the port it reads through (CompareReads): the same shapes whether the run sits
 * in SQLite (compareSides.ts sqliteReads) or in a ClickHouse store (store/clickhouse/queries/storeCompare.ts), so
 * side selection, cost attribution and the counterfactual cost share them without importing one another.
 */
import type { ModelPrice } from '../db/models.ts';

/** The request names something that is not there (a run, a model, a value no episode has): the caller's mistake. */
export class CompareError extends Error {}

/** Turns summed per (episode, model) at import (episode_models), row r: episode index `episode[r]`, models.id `model[r]`. */
export interface EpisodeModels {
  episode: Int32Array;
  model: Int32Array;
  calls: Float64Array;
  tokensIn: Float64Array;
  tokensOut: Float64Array;
  tokensCached: Float64Array;
  tokensCacheWrite: Float64Array;
  /** Known cost of the calls (cost_source ≠ 'none'); calls of unknown cost counted in `unknown`. */
  cost: Float64Array;
  unknown: Float64Array;
  /** The model of most of each episode's own calls (ties: the first to appear); -1 without calls. */
  mainModel: Int32Array;
}

export interface RunEpisodes {
  runId: number;
  runName: string;
  /** Episode i, in id order (a ClickHouse store's: its 52-bit key, in import order). */
  id: Float64Array;
  extId: string[];
  taskId: (string | null)[];
  /** 1 success, 0 failure, -1 unknown. */
  success: Int8Array;
  /** score_norm; NaN when unknown. */
  score: Float64Array;
  /** The episode's own known cost (episodes.total_cost) and calls of unknown cost (episodes.unpriced_turns). */
  cost: Float64Array;
  unpriced: Int32Array;
  /** Index of the session (root episode) a child belongs to; -1 for a session. */
  root: Int32Array;
  /**
   * Every child episode's parent is in the run and no episode is its own parent: then "child" is simply
   * "names a parent", and a whole run's cost by model can be summed in SQL (costAttribution.ts).
   */
  plainChildren: boolean;
  /** Values of the fields a side may be split by. */
  budgetMode: (string | null)[];
  split: (string | null)[];
  /** The episode's policy, else the run's; read only when a side is split by policy (policyOf), since the
   * episode's sits beside its task text and reading it doubles a cold load. */
  policy: (string | null)[] | null;
  /** The per-(episode, model) rows, read only when needed (episodeModelsOf): ~4 rows an episode on a routed run. */
  models: EpisodeModels | null;
  /** The whole run's cost by model, summed in SQL once per run (costAttribution.ts) and kept with the run. */
  wholeRunCost: WholeRunCost | null;
  modelNames: Map<number, string>;
}

/** Rows of the whole-run sums: [model, is child, calls, tokens in/out/cached/written, cost, unknown calls]. */
export interface WholeRunCost {
  sums: [number, number, number, number, number, number, number, number, number][];
  /** Episodes whose logged total exceeds their calls' costs: [is child, models, a model, the rest]. */
  rests: [number, number, number | null, number][];
}

/**
 * Where Compare reads a run from: a SQLite database (sqliteReads) or a ClickHouse store whose runs were read
 * beforehand (store/clickhouse/queries/storeCompare.ts). Everything after the reads is the same code.
 */
export interface CompareReads {
  runEpisodes(runId: number): RunEpisodes;
  episodeModelsOf(data: RunEpisodes): EpisodeModels;
  policyOf(data: RunEpisodes): (string | null)[];
  /** The model's name for any of its spellings; undefined when none is known. */
  modelName(alias: string): string | undefined;
  /** The whole run's cost by model (costAttribution.ts). */
  wholeRunCost(data: RunEpisodes): WholeRunCost;
  counterfactual(runs: readonly RunEpisodes[], model: string): CounterfactualCosts;
}

/** One run's part of a side: its data and the sessions (episode indices) the side takes. */
export interface SidePart {
  data: RunEpisodes;
  sessions: Int32Array;
  /** The side takes every session of the run (no field to split by). */
  whole: boolean;
}


export interface CounterfactualCosts {
  model: ModelPrice;
  /** Per run: each session's cost on the model with its children's calls folded in; NaN when unknown. */
  sessionCost: Map<number, Float64Array>;
  assumption: string;
}
