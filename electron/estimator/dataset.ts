/**
 * Training rows for the outcome estimator (MTRouter §3.3, DESIGN §6), read from a RouteLens database:
 * one row per logged turn t of an episode with a known outcome — the `hash-1024` features of h_t (routelens
 * profile; under another input profile the text features are left to encodedDataset.ts), the index of
 * the model that turn used in the candidate pool, and the target S̃_t (the stored `targets` row, or recomputed
 * from the stored severities through shared/formulas.ts). Episodes are split 90/10 into training and
 * validation by a seeded shuffle of their ids, so all turns of an episode fall on one side.
 *
 * Layout: the hashed text features are kept sparse (CSR: Uint16 bucket, Float32 value), because a dense
 * 1024-d Float32 row per turn would take 2.1 GB at the paper's 515k turns; simulated ScienceWorld histories
 * have ~100–300 non-zeros. The histories of one episode are encoded incrementally: each turn's text is hashed
 * once and its signed counts are added when it enters the window and subtracted when it leaves
 * (hashEncoder.ts explains why that is exact), instead of re-reading the whole history for every turn.
 */
import { aecTargets, severityFromLevel } from '../../shared/formulas.ts';
import { storedExpectedSteps } from '../analysis/storedExpectedSteps.ts';
import type { Db } from '../db/dbHandle.ts';
import { splitCondition } from '../db/splitFilter.ts';
import { HASH_DIM, HASH_ENCODER, MODEL_SALT, RECENT_SALT, addSegment, countsToSparse } from './hashEncoder.ts';
import {
  DEFAULT_HISTORY_TOKENS,
  historyWindow,
  taskCharsKept,
  taskTokens,
  turnTail,
  turnTokens,
  type HistoryTurn,
} from './historyText.ts';
import { inputProfile, type InputProfile } from './inputProfile.ts';
import { modelFactsOf, type ModelFeatureStats } from './modelFeatures.ts';
import { STREAM, SeededRandom } from './seededRandom.ts';

export interface DatasetOptions {
  /** Candidate pool, in order; default: every model used by a turn of an included episode, in models-table order. */
  models?: readonly string[];
  /** Only episodes of these runs (by name); default all. */
  runs?: readonly string[];
  /** Only episodes of this split selection (shared/splits.ts); default all. */
  split?: string;
  /** History budget in approximate tokens (chars / 4); default 8192 as in the paper. */
  maxHistoryTokens?: number;
  /** Share of episodes held out for validation; default 0.1. */
  validationFraction?: number;
  /** Seed of the episode split; default 0. */
  seed?: number;
  /** 'stored' (default) reads the `targets` table, recomputing only where a row is missing; 'recompute' always recomputes. */
  targets?: 'stored' | 'recompute';
  /** Input profile (inputProfile.ts): model features, structured features, and whether text is hashed here; default routelens. */
  profile?: InputProfile;
  onProgress?: (p: { episodesDone: number; episodes: number; rows: number }) => void;
}

export interface DatasetSummary {
  episodes: number;
  trainEpisodes: number;
  validationEpisodes: number;
  trainRows: number;
  validationRows: number;
  /** Episodes left out because their outcome is unknown (no score and no success flag). */
  skippedEpisodesNoOutcome: number;
  /** Turns whose model is not in the candidate pool: in the histories of later turns, not rows themselves. */
  skippedTurnsOutsidePool: number;
  targets: 'stored' | 'recompute';
  recomputedTargets: number;
  maxHistoryTokens: number;
  meanNonZero: number;
  seconds: number;
}

/** Everything the trainer needs; plain typed arrays, so it crosses to a worker thread by structured clone. */
export interface TrainingSet {
  /** hash-1024 here ('none' under a profile other than routelens); encodedDataset.ts fills other encoders' rows. */
  encoder: string;
  profile: InputProfile['name'];
  historyDim: number;
  textDim: number;
  models: string[];
  /** [K × 8] standardised model features (the profile's, modelFeatures.ts). */
  modelFeatures: Float32Array;
  modelFeatureStats: ModelFeatureStats;
  rows: number;
  /** CSR of the hashed text features: row r's non-zeros are [textIndptr[r], textIndptr[r+1]). */
  textIndptr: Int32Array;
  textIndices: Uint16Array;
  textValues: Float32Array;
  /** [rows × (historyDim − textDim)]: the profile's structured features. */
  structured: Float32Array;
  /** Index of the turn's model in `models`. */
  model: Int32Array;
  /** S̃_t. */
  target: Float32Array;
  turnId: Int32Array;
  episodeId: Int32Array;
  /** 1 for validation rows. */
  validation: Uint8Array;
  summary: DatasetSummary;
}

/** The rows the trainer reads (a TrainingSet, or any subset of its fields with the same meaning). */
export type TrainingRows = Pick<
  TrainingSet,
  'rows' | 'historyDim' | 'textDim' | 'textIndptr' | 'textIndices' | 'textValues' | 'structured' | 'model' | 'target' | 'validation' | 'models' | 'modelFeatures'
>;

/** One logged turn as the rows are built from it, from either store. */
export interface TrainingTurn {
  /** The turns table's id on SQLite; on a store, the turn's number in its part. */
  id: number;
  model: string;
  switched: number;
  max_severity: number;
  action: string | null;
  observation: string | null;
  /** The stored target; null recomputes it from the severities. */
  s_tilde: number | null;
}

/** One episode with an outcome, as the rows are built from it. */
export interface TrainingEpisode {
  /** The episodes table's id on SQLite; on a store, the episode's number in its part. */
  id: number;
  score_norm: number;
  expected_steps: number | null;
  task_type: string | null;
  task_category: string | null;
  task_text: string | null;
}

interface TurnRow extends TrainingTurn {
  episode_id: number;
}

/**
 * Training cannot start because of what the database holds (no outcomes, too few episodes, one model): a user
 * error, said in one line with how to fix it (CLI exit 1).
 */
export class TrainingDataError extends Error {
  override name = 'TrainingDataError';
}

/** Where an episode's outcome comes from, for the messages that ask for outcomes. */
const OUTCOME_SOURCES =
  'per episode an "outcome" with "score" (and "score_range") or "success" in routelens/v1 JSON Lines, ' +
  'or SWE-bench results (logs/<instance>/report.json, results_summary.json) beside mini-swe-agent trajectories';

/** Refuses rows that cannot train an estimator worth having: one side of the split empty, or one model. */
export function assertTrainable(data: Pick<TrainingSet, 'models' | 'summary'>): void {
  const { trainEpisodes, validationEpisodes, episodes } = data.summary;
  if (trainEpisodes === 0 || validationEpisodes === 0) {
    throw new TrainingDataError(
      `${episodes} episode${episodes === 1 ? '' : 's'} with an outcome and turns: training holds out 10% of the episodes (at least one) ` +
        `to stop early and measure the error, so it needs at least 2: import more episodes with outcomes (${OUTCOME_SOURCES})`,
    );
  }
  if (data.models.length < 2) {
    throw new TrainingDataError(
      `every turn of the episodes with an outcome used one model (${data.models[0] ?? 'none'}): ŝ(h, a) compares candidate models, ` +
        'so training needs logged turns of at least 2 — import runs of other models or a router\'s logs as well',
    );
  }
}

/** The signed n-gram counts of one turn's action and observation, as (bucket, count) pairs. */
function turnCounts(turn: HistoryTurn, scratch: Int32Array): Int32Array {
  if (turn.action) addSegment(turn.action, scratch);
  if (turn.observation) addSegment(turn.observation, scratch);
  let n = 0;
  for (let j = 0; j < HASH_DIM; j++) if (scratch[j] !== 0) n++;
  const pairs = new Int32Array(2 * n);
  let k = 0;
  for (let j = 0; j < HASH_DIM; j++) {
    const v = scratch[j] as number;
    if (v === 0) continue;
    pairs[k++] = j;
    pairs[k++] = v;
    scratch[j] = 0;
  }
  return pairs;
}

function apply(pairs: Int32Array, acc: Int32Array, sign: number): void {
  for (let k = 0; k < pairs.length; k += 2) {
    const j = pairs[k] as number;
    acc[j] = (acc[j] as number) + sign * (pairs[k + 1] as number);
  }
}

/** The salted counts of a whole turn's action and observation (serialiseHistory's `recent` pieces). */
function addRecent(turn: HistoryTurn, acc: Int32Array, sign: 1 | -1): void {
  addSegment(turn.action ?? '', acc, sign, RECENT_SALT);
  addSegment(turn.observation ?? '', acc, sign, RECENT_SALT);
}

/** The salted previous-model feature (serialiseHistory's `previousModel`). */
function addModel(turn: HistoryTurn, acc: Int32Array, sign: 1 | -1): void {
  if (turn.model) addSegment(turn.model, acc, sign, MODEL_SALT);
}

/**
 * Calls `emit(t, counts)` with the hashed n-gram counts of h_t for every turn t of one episode, in order —
 * the same counts as hashing `serialiseHistory(task, turns.slice(0, t), maxTokens)` (segments, and the recent
 * turn salted, as encodeHashText does), without
 * re-reading earlier turns. `counts` is reused between calls.
 */
export function encodeEpisodeHistories(
  task: string | null,
  turns: readonly HistoryTurn[],
  maxTokens: number,
  emit: (t: number, counts: Int32Array) => void,
): void {
  const taskText = task ?? '';
  const acc = new Int32Array(HASH_DIM);
  const scratch = new Int32Array(HASH_DIM);
  addSegment(taskText.slice(0, taskCharsKept(taskText.length, maxTokens)), acc);
  const room = maxTokens - taskTokens(taskText.length, maxTokens);
  const tokens = turns.map(turnTokens);
  const pairs: (Int32Array | null)[] = turns.map(() => null);
  let first = 0;
  let used = 0;
  for (let t = 0; t < turns.length; t++) {
    if (t > 0) {
      const p = turnCounts(turns[t - 1] as HistoryTurn, scratch);
      pairs[t - 1] = p;
      apply(p, acc, 1);
      used += tokens[t - 1] as number;
      while (used > room && first < t) {
        apply(pairs[first] as Int32Array, acc, -1);
        pairs[first] = null;
        used -= tokens[first] as number;
        first++;
      }
    }
    if (first === t && t > 0) {
      // Not even turn t−1 fits whole: its tail stands in for it (historyWindow decides how much).
      const w = historyWindow(taskText.length, t, (k) => tokens[k] as number, maxTokens);
      const tail = turnTail(turns[t - 1] as HistoryTurn, w.tailChars ?? 0);
      const last = turns[t - 1] as HistoryTurn;
      addSegment(tail, acc);
      addSegment(tail, acc, 1, RECENT_SALT);
      addModel(last, acc, 1);
      emit(t, acc);
      addSegment(tail, acc, -1);
      addSegment(tail, acc, -1, RECENT_SALT);
      addModel(last, acc, -1);
    } else if (t > 0) {
      const last = turns[t - 1] as HistoryTurn;
      addRecent(last, acc, 1);
      addModel(last, acc, 1);
      emit(t, acc);
      addRecent(last, acc, -1);
      addModel(last, acc, -1);
    } else {
      emit(t, acc);
    }
  }
}

class Growable {
  indices = new Uint16Array(1 << 16);
  values = new Float32Array(1 << 16);
  length = 0;

  reserve(extra: number): void {
    if (this.length + extra <= this.indices.length) return;
    let cap = this.indices.length;
    while (cap < this.length + extra) cap *= 2;
    const i = new Uint16Array(cap);
    i.set(this.indices.subarray(0, this.length));
    const v = new Float32Array(cap);
    v.set(this.values.subarray(0, this.length));
    this.indices = i;
    this.values = v;
  }
}

function grow<T extends Int32Array | Float32Array | Uint8Array>(a: T, need: number, make: (n: number) => T): T {
  if (need <= a.length) return a;
  const b = make(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/** Models used by the included episodes' turns, in models-table order. */
function loggedModels(db: Db, runFilter: string, runs: readonly string[]): string[] {
  return (
    db
      .prepare(`SELECT m.name FROM models m WHERE m.id IN (SELECT DISTINCT em.model_id FROM episode_models em
        JOIN episodes e ON e.id = em.episode_id WHERE e.score_norm IS NOT NULL${runFilter}) ORDER BY m.id`)
      .pluck()
      .all(...runs) as string[]
  );
}

/** The counts `checkTrainingSelection` reads, from either store. */
export interface TrainingSelection {
  runs: readonly string[];
  /** Every run's name. */
  known: readonly string[];
  split: string | undefined;
  /** Episodes of the selected runs and split. */
  selected: number;
  /** Every split the store's episodes name. */
  splits: readonly string[];
  withOutcome: number;
  withoutOutcome: number;
}

/**
 * Refuses a training selection with nothing to learn from, in the same words on both stores: an unknown run,
 * a split no selected episode is in, no episode with an outcome.
 */
export function checkTrainingSelection(q: TrainingSelection): void {
  const missing = q.runs.filter((r) => !q.known.includes(r));
  if (missing.length) {
    throw new TrainingDataError(`no run named ${missing.map((r) => `"${r}"`).join(', ')} (runs here: ${[...q.known].sort().map((r) => `"${r}"`).join(', ') || 'none'})`);
  }
  if (q.split !== undefined && q.selected === 0) {
    throw new TrainingDataError(`no episode of the selected runs is in split "${q.split}" (splits here: ${q.splits.join(', ') || 'none'})`);
  }
  if (q.withOutcome === 0) {
    throw new TrainingDataError(
      `no episode${q.runs.length ? ` of ${q.runs.map((r) => `"${r}"`).join(', ')}` : ''} has an outcome (a score or a success flag), so ŝ has nothing to learn from ` +
        `(${q.withoutOutcome} episode${q.withoutOutcome === 1 ? '' : 's'} without one): import logs that carry outcomes (${OUTCOME_SOURCES}) and train again`,
    );
  }
}

/** The episodes with an outcome have no turns of any model. */
export function noTurnsToTrainOn(withOutcome: number): TrainingDataError {
  return new TrainingDataError(`the ${withOutcome} episode${withOutcome === 1 ? '' : 's'} with an outcome have no turns to train on`);
}

export function buildTrainingSet(db: Db, options: DatasetOptions = {}): TrainingSet {
  const started = performance.now();
  const maxTokens = options.maxHistoryTokens ?? DEFAULT_HISTORY_TOKENS;
  const fraction = options.validationFraction ?? 0.1;
  const targetMode = options.targets ?? 'stored';
  const runs = options.runs ?? [];
  const inSplit = splitCondition('e.split', options.split);
  const runFilter = (runs.length ? ` AND e.run_id IN (SELECT id FROM runs WHERE name IN (${runs.map(() => '?').join(', ')}))` : '') + (inSplit ? ` AND ${inSplit}` : '');

  const profile = options.profile ?? inputProfile();
  const known = db.prepare('SELECT name FROM runs').pluck().all() as string[];
  const count = (where: string): number => db.prepare(`SELECT COUNT(*) FROM episodes e WHERE ${where}${runFilter}`).pluck().get(...runs) as number;
  checkTrainingSelection({
    runs, known, split: options.split,
    selected: count('1'),
    splits: db.prepare('SELECT DISTINCT split FROM episodes WHERE split IS NOT NULL ORDER BY split').pluck().all() as string[],
    withOutcome: count('e.score_norm IS NOT NULL'),
    withoutOutcome: count('e.score_norm IS NULL'),
  });
  const models = options.models ? [...options.models] : loggedModels(db, runFilter, runs);
  if (models.length === 0) throw noTurnsToTrainOn(count('e.score_norm IS NOT NULL'));
  const idOf = db.prepare('SELECT id FROM models WHERE name = ?').pluck();
  for (const name of models) if (idOf.get(name) === undefined) throw new TrainingDataError(`unknown model "${name}" in the candidate pool`);
  const mf = profile.modelFeatures(modelFactsOf(db), models);

  const episodes = db
    .prepare(`SELECT e.id, e.score_norm, e.expected_steps, e.task_type, e.task_category, x.task_text FROM episodes e
      LEFT JOIN episode_text x ON x.episode_id = e.id WHERE e.score_norm IS NOT NULL${runFilter} ORDER BY e.id`)
    .all(...runs) as TrainingEpisode[];
  const skippedNoOutcome = count('e.score_norm IS NULL');
  const meta = new Map(episodes.map((e) => [e.id, e]));

  // Episode-level split: a seeded shuffle of the ids, the first 10% held out.
  const order = new Int32Array(episodes.map((e) => e.id));
  new SeededRandom(options.seed ?? 0, STREAM.split).shuffle(order);
  let nVal = Math.round(order.length * fraction);
  if (fraction > 0 && order.length >= 2) nVal = Math.min(Math.max(nVal, 1), order.length - 1);
  const isValidation = new Set(order.subarray(0, nVal));

  const builder = new TrainingRowBuilder({ models, profile, maxTokens, targets: targetMode });
  let episodesDone = 0;
  const finishEpisode = (ep: TrainingEpisode, turns: TurnRow[]): void => {
    builder.addEpisode(ep, turns, isValidation.has(ep.id));
    episodesDone++;
    if (options.onProgress && episodesDone % 500 === 0) options.onProgress({ episodesDone, episodes: episodes.length, rows: builder.rows });
  };

  const turnStream = db.prepare(`SELECT t.id, t.episode_id, m.name AS model, t.switched, t.max_severity, x.action, x.observation,
      g.s_tilde FROM turns t JOIN episodes e ON e.id = t.episode_id JOIN models m ON m.id = t.model_id LEFT JOIN turn_text x ON x.turn_id = t.id
      LEFT JOIN targets g ON g.turn_id = t.id WHERE e.score_norm IS NOT NULL${runFilter} ORDER BY t.episode_id, t.t`);
  let current: TurnRow[] = [];
  let currentId = -1;
  for (const row of turnStream.iterate(...runs) as Iterable<TurnRow>) {
    if (row.episode_id !== currentId) {
      if (current.length) finishEpisode(meta.get(currentId) as TrainingEpisode, current);
      current = [];
      currentId = row.episode_id;
    }
    current.push(row);
  }
  if (current.length) finishEpisode(meta.get(currentId) as TrainingEpisode, current);
  options.onProgress?.({ episodesDone: episodes.length, episodes: episodes.length, rows: builder.rows });

  return {
    ...builder.finish(),
    models,
    modelFeatures: mf.features,
    modelFeatureStats: mf.stats,
    summary: builder.summary(skippedNoOutcome, (performance.now() - started) / 1000),
  };
}

/** The rows of a TrainingSet without the pool's facts and the summary: what TrainingRowBuilder builds. */
export type BuiltRows = Omit<TrainingSet, 'models' | 'modelFeatures' | 'modelFeatureStats' | 'summary'>;

/**
 * Builds the training rows one episode at a time, for both stores: SQLite's whole set (buildTrainingSet) and a
 * ClickHouse store's parts (storeTraining.ts). Each turn of an included episode whose model is in the pool
 * becomes a row: its history's features, its structured features, its model's index and its target S̃_t.
 */
export class TrainingRowBuilder implements RowCounts {
  private readonly poolIndex: Map<string, number>;
  private readonly hashed: boolean;
  private readonly S: number;
  private readonly walk: typeof encodeEpisodeHistories;
  private cap = 1024;
  private textIndptr = new Int32Array(this.cap + 1);
  private structured: Float32Array;
  private model = new Int32Array(this.cap);
  private target = new Float32Array(this.cap);
  private turnId = new Int32Array(this.cap);
  private episodeId = new Int32Array(this.cap);
  private validation = new Uint8Array(this.cap);
  private readonly text = new Growable();
  rows = 0;
  skippedOutsidePool = 0;
  recomputed = 0;
  readonly rowsOf = { train: 0, validation: 0 };
  readonly episodesWithRows = { train: 0, validation: 0 };

  constructor(private readonly o: { models: readonly string[]; profile: InputProfile; maxTokens: number; targets: 'stored' | 'recompute' }) {
    this.poolIndex = new Map(o.models.map((m, i) => [m, i]));
    this.hashed = o.profile.name === 'routelens';
    this.S = o.profile.structured.length;
    this.structured = new Float32Array(this.cap * this.S);
    // Under another profile the text features are the encoder's (encodedDataset.ts): walk the turns, hash nothing.
    const noCounts = new Int32Array(HASH_DIM);
    this.walk = this.hashed ? encodeEpisodeHistories : (_task, turns, _max, emit) => turns.forEach((_turn, t) => emit(t, noCounts));
  }

  /** Adds the episode's rows; `onRow(t)` is told each turn that became one. */
  addEpisode(ep: TrainingEpisode, turns: readonly TrainingTurn[], validation: boolean, onRow?: (t: number) => void): void {
    const { profile, maxTokens } = this.o;
    const S = this.S;
    const n = storedExpectedSteps(ep);
    let recomputedTargets: (number | null)[] | null = null;
    const targetOf = (i: number): number => {
      const stored = (turns[i] as TrainingTurn).s_tilde;
      if (this.o.targets === 'stored' && stored !== null) return stored;
      recomputedTargets ??= aecTargets(ep.score_norm, turns.map((x) => severityFromLevel(x.max_severity)), n).map((x) => x.s_tilde);
      this.recomputed++;
      return recomputedTargets[i] as number;
    };
    let any = false;
    this.walk(ep.task_text, turns, maxTokens, (t, counts) => {
      const turn = turns[t] as TrainingTurn;
      const m = this.poolIndex.get(turn.model);
      if (m === undefined) {
        this.skippedOutsidePool++;
        return;
      }
      const r = this.rows;
      if (r + 1 > this.cap) this.grow();
      const text = this.text;
      text.reserve(HASH_DIM);
      text.length += countsToSparse(counts, text.indices, text.values, text.length);
      this.textIndptr[r + 1] = text.length;
      const prev = t > 0 ? (turns[t - 1] as TrainingTurn) : null;
      profile.writeStructured(
        { t, expectedSteps: n, previousSeverity: prev?.max_severity ?? 0, previousSwitched: prev?.switched === 1 },
        this.structured,
        r * S,
      );
      this.model[r] = m;
      this.target[r] = targetOf(t);
      this.turnId[r] = turn.id;
      this.episodeId[r] = ep.id;
      this.validation[r] = validation ? 1 : 0;
      this.rows++;
      this.rowsOf[validation ? 'validation' : 'train']++;
      any = true;
      onRow?.(t);
    });
    if (any) this.episodesWithRows[validation ? 'validation' : 'train']++;
  }

  private grow(): void {
    const cap = (this.cap *= 2);
    this.textIndptr = grow(this.textIndptr, cap + 1, (k) => new Int32Array(k));
    this.structured = grow(this.structured, cap * this.S, (k) => new Float32Array(k));
    this.model = grow(this.model, cap, (k) => new Int32Array(k));
    this.target = grow(this.target, cap, (k) => new Float32Array(k));
    this.turnId = grow(this.turnId, cap, (k) => new Int32Array(k));
    this.episodeId = grow(this.episodeId, cap, (k) => new Int32Array(k));
    this.validation = grow(this.validation, cap, (k) => new Uint8Array(k));
  }

  /** The rows so far, trimmed (copies: the builder can go on or be dropped). */
  finish(): BuiltRows {
    const rows = this.rows;
    return {
      encoder: this.hashed ? HASH_ENCODER : 'none',
      profile: this.o.profile.name,
      ...rowDims(this.o.profile),
      rows,
      textIndptr: this.textIndptr.slice(0, rows + 1),
      textIndices: this.text.indices.slice(0, this.text.length),
      textValues: this.text.values.slice(0, this.text.length),
      structured: this.structured.slice(0, rows * this.S),
      model: this.model.slice(0, rows),
      target: this.target.slice(0, rows),
      turnId: this.turnId.slice(0, rows),
      episodeId: this.episodeId.slice(0, rows),
      validation: this.validation.slice(0, rows),
    };
  }

  /** Non-zero text features stored so far. */
  get nonZeros(): number {
    return this.text.length;
  }

  /** The counts so far, as plain numbers (the builder and its rows can then go). */
  counts(): RowCounts {
    return {
      rows: this.rows, rowsOf: { ...this.rowsOf }, episodesWithRows: { ...this.episodesWithRows },
      skippedOutsidePool: this.skippedOutsidePool, recomputed: this.recomputed, nonZeros: this.nonZeros,
    };
  }

  summary(skippedEpisodesNoOutcome: number, seconds: number): DatasetSummary {
    return summaryOf([this], skippedEpisodesNoOutcome, this.o.targets, this.o.maxTokens, seconds);
  }
}

/** A row's width under a profile: the hashed text (routelens; another profile's encoder fills its own) and the structured features. */
export function rowDims(profile: InputProfile): { historyDim: number; textDim: number } {
  const textDim = profile.name === 'routelens' ? HASH_DIM : 0;
  return { historyDim: textDim + profile.structured.length, textDim };
}

/** What a builder counted, without its rows (a store keeps these of every part, and only one part's rows). */
export interface RowCounts {
  readonly rows: number;
  readonly rowsOf: { readonly train: number; readonly validation: number };
  readonly episodesWithRows: { readonly train: number; readonly validation: number };
  readonly skippedOutsidePool: number;
  readonly recomputed: number;
  readonly nonZeros: number;
}

/** The summary of rows built by one or more builders (a store builds its parts and its validation apart). */
export function summaryOf(
  builders: readonly RowCounts[], skippedEpisodesNoOutcome: number, targets: 'stored' | 'recompute', maxHistoryTokens: number, seconds: number,
): DatasetSummary {
  const sum = (f: (b: RowCounts) => number): number => builders.reduce((a, b) => a + f(b), 0);
  const rows = sum((b) => b.rows);
  return {
    episodes: sum((b) => b.episodesWithRows.train + b.episodesWithRows.validation),
    trainEpisodes: sum((b) => b.episodesWithRows.train),
    validationEpisodes: sum((b) => b.episodesWithRows.validation),
    trainRows: sum((b) => b.rowsOf.train),
    validationRows: sum((b) => b.rowsOf.validation),
    skippedEpisodesNoOutcome,
    skippedTurnsOutsidePool: sum((b) => b.skippedOutsidePool),
    targets,
    recomputedTargets: sum((b) => b.recomputed),
    maxHistoryTokens,
    meanNonZero: rows ? sum((b) => b.nonZeros) / rows : 0,
    seconds,
  };
}

/** Row indices of the training and validation sides. */
export function splitRows(data: Pick<TrainingSet, 'rows' | 'validation'>): { train: Int32Array; validation: Int32Array } {
  let nVal = 0;
  for (let r = 0; r < data.rows; r++) nVal += data.validation[r] as number;
  const train = new Int32Array(data.rows - nVal);
  const validation = new Int32Array(nVal);
  let a = 0;
  let b = 0;
  for (let r = 0; r < data.rows; r++) {
    if (data.validation[r]) validation[b++] = r;
    else train[a++] = r;
  }
  return { train, validation };
}
