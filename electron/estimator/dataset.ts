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
import { storedExpectedSteps } from '../analysis/expectedSteps.ts';
import type { Db } from '../db/database.ts';
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
import type { ModelFeatureStats } from './modelFeatures.ts';
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

interface TurnRow {
  id: number;
  episode_id: number;
  model_id: number;
  model: string;
  switched: number;
  max_severity: number;
  action: string | null;
  observation: string | null;
  s_tilde: number | null;
}

interface EpisodeRow {
  id: number;
  score_norm: number;
  expected_steps: number | null;
  task_type: string | null;
  task_category: string | null;
  task_text: string | null;
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

export function buildTrainingSet(db: Db, options: DatasetOptions = {}): TrainingSet {
  const started = performance.now();
  const maxTokens = options.maxHistoryTokens ?? DEFAULT_HISTORY_TOKENS;
  const fraction = options.validationFraction ?? 0.1;
  const targetMode = options.targets ?? 'stored';
  const runs = options.runs ?? [];
  const inSplit = splitCondition('e.split', options.split);
  const runFilter = (runs.length ? ` AND e.run_id IN (SELECT id FROM runs WHERE name IN (${runs.map(() => '?').join(', ')}))` : '') + (inSplit ? ` AND ${inSplit}` : '');

  const profile = options.profile ?? inputProfile();
  const hashed = profile.name === 'routelens';
  const S = profile.structured.length;
  const known = new Set(db.prepare('SELECT name FROM runs').pluck().all() as string[]);
  const missing = runs.filter((r) => !known.has(r));
  if (missing.length) {
    throw new TrainingDataError(`no run named ${missing.map((r) => `"${r}"`).join(', ')} (runs here: ${[...known].map((r) => `"${r}"`).join(', ') || 'none'})`);
  }
  if (inSplit && db.prepare(`SELECT COUNT(*) FROM episodes e WHERE 1${runFilter}`).pluck().get(...runs) === 0) {
    const splits = db.prepare('SELECT DISTINCT split FROM episodes WHERE split IS NOT NULL ORDER BY split').pluck().all() as string[];
    throw new TrainingDataError(`no episode of the selected runs is in split "${options.split}" (splits here: ${splits.join(', ') || 'none'})`);
  }
  const withOutcome = db.prepare(`SELECT COUNT(*) FROM episodes e WHERE e.score_norm IS NOT NULL${runFilter}`).pluck().get(...runs) as number;
  if (withOutcome === 0) {
    const without = db.prepare(`SELECT COUNT(*) FROM episodes e WHERE e.score_norm IS NULL${runFilter}`).pluck().get(...runs) as number;
    throw new TrainingDataError(
      `no episode${runs.length ? ` of ${runs.map((r) => `"${r}"`).join(', ')}` : ''} has an outcome (a score or a success flag), so ŝ has nothing to learn from ` +
        `(${without} episode${without === 1 ? '' : 's'} without one): import logs that carry outcomes (${OUTCOME_SOURCES}) and train again`,
    );
  }

  const models = options.models ? [...options.models] : loggedModels(db, runFilter, runs);
  if (models.length === 0) throw new TrainingDataError(`the ${withOutcome} episode${withOutcome === 1 ? '' : 's'} with an outcome have no turns to train on`);
  const poolIndex = new Map<number, number>();
  const idOf = db.prepare('SELECT id FROM models WHERE name = ?').pluck();
  models.forEach((name, i) => {
    const id = idOf.get(name) as number | undefined;
    if (id === undefined) throw new TrainingDataError(`unknown model "${name}" in the candidate pool`);
    poolIndex.set(id, i);
  });
  const mf = profile.modelFeatures(db, models);

  const episodes = db
    .prepare(`SELECT e.id, e.score_norm, e.expected_steps, e.task_type, e.task_category, x.task_text FROM episodes e
      LEFT JOIN episode_text x ON x.episode_id = e.id WHERE e.score_norm IS NOT NULL${runFilter} ORDER BY e.id`)
    .all(...runs) as EpisodeRow[];
  const skippedNoOutcome = db
    .prepare(`SELECT COUNT(*) FROM episodes e WHERE e.score_norm IS NULL${runFilter}`)
    .pluck()
    .get(...runs) as number;
  const meta = new Map(episodes.map((e) => [e.id, e]));

  // Episode-level split: a seeded shuffle of the ids, the first 10% held out.
  const order = new Int32Array(episodes.map((e) => e.id));
  new SeededRandom(options.seed ?? 0, STREAM.split).shuffle(order);
  let nVal = Math.round(order.length * fraction);
  if (fraction > 0 && order.length >= 2) nVal = Math.min(Math.max(nVal, 1), order.length - 1);
  const isValidation = new Set(order.subarray(0, nVal));

  // Under another profile the text features are the encoder's (encodedDataset.ts): walk the turns, hash nothing.
  const noCounts = new Int32Array(HASH_DIM);
  const walk: typeof encodeEpisodeHistories = hashed
    ? encodeEpisodeHistories
    : (_task, turns, _max, emit) => turns.forEach((_turn, t) => emit(t, noCounts));
  let cap = 1024;
  let textIndptr = new Int32Array(cap + 1);
  let structured = new Float32Array(cap * S);
  let model = new Int32Array(cap);
  let target = new Float32Array(cap);
  let turnId = new Int32Array(cap);
  let episodeId = new Int32Array(cap);
  let validation = new Uint8Array(cap);
  const text = new Growable();
  let rows = 0;
  let skippedOutsidePool = 0;
  let recomputed = 0;
  let episodesDone = 0;
  const summaryRows = { train: 0, validation: 0 };
  const episodesWithRows = { train: 0, validation: 0 };

  const finishEpisode = (ep: EpisodeRow, turns: TurnRow[]): void => {
    const n = storedExpectedSteps(ep);
    let recomputedTargets: (number | null)[] | null = null;
    const targetOf = (i: number): number => {
      const stored = (turns[i] as TurnRow).s_tilde;
      if (targetMode === 'stored' && stored !== null) return stored;
      recomputedTargets ??= aecTargets(ep.score_norm, turns.map((x) => severityFromLevel(x.max_severity)), n).map((x) => x.s_tilde);
      recomputed++;
      return recomputedTargets[i] as number;
    };
    const val = isValidation.has(ep.id);
    let any = false;
    walk(ep.task_text, turns, maxTokens, (t, counts) => {
      const turn = turns[t] as TurnRow;
      const m = poolIndex.get(turn.model_id);
      if (m === undefined) {
        skippedOutsidePool++;
        return;
      }
      if (rows + 1 > cap) {
        cap *= 2;
        textIndptr = grow(textIndptr, cap + 1, (k) => new Int32Array(k));
        structured = grow(structured, cap * S, (k) => new Float32Array(k));
        model = grow(model, cap, (k) => new Int32Array(k));
        target = grow(target, cap, (k) => new Float32Array(k));
        turnId = grow(turnId, cap, (k) => new Int32Array(k));
        episodeId = grow(episodeId, cap, (k) => new Int32Array(k));
        validation = grow(validation, cap, (k) => new Uint8Array(k));
      }
      text.reserve(HASH_DIM);
      text.length += countsToSparse(counts, text.indices, text.values, text.length);
      textIndptr[rows + 1] = text.length;
      const prev = t > 0 ? (turns[t - 1] as TurnRow) : null;
      profile.writeStructured(
        { t, expectedSteps: n, previousSeverity: prev?.max_severity ?? 0, previousSwitched: prev?.switched === 1 },
        structured,
        rows * S,
      );
      model[rows] = m;
      target[rows] = targetOf(t);
      turnId[rows] = turn.id;
      episodeId[rows] = ep.id;
      validation[rows] = val ? 1 : 0;
      rows++;
      if (val) summaryRows.validation++;
      else summaryRows.train++;
      any = true;
    });
    if (any) episodesWithRows[val ? 'validation' : 'train']++;
    episodesDone++;
    if (options.onProgress && episodesDone % 500 === 0) options.onProgress({ episodesDone, episodes: episodes.length, rows });
  };

  const turnStream = db.prepare(`SELECT t.id, t.episode_id, t.model_id, m.name AS model, t.switched, t.max_severity, x.action, x.observation,
      g.s_tilde FROM turns t JOIN episodes e ON e.id = t.episode_id JOIN models m ON m.id = t.model_id LEFT JOIN turn_text x ON x.turn_id = t.id
      LEFT JOIN targets g ON g.turn_id = t.id WHERE e.score_norm IS NOT NULL${runFilter} ORDER BY t.episode_id, t.t`);
  let current: TurnRow[] = [];
  let currentId = -1;
  for (const row of turnStream.iterate(...runs) as Iterable<TurnRow>) {
    if (row.episode_id !== currentId) {
      if (current.length) finishEpisode(meta.get(currentId) as EpisodeRow, current);
      current = [];
      currentId = row.episode_id;
    }
    current.push(row);
  }
  if (current.length) finishEpisode(meta.get(currentId) as EpisodeRow, current);
  options.onProgress?.({ episodesDone: episodes.length, episodes: episodes.length, rows });

  return {
    encoder: hashed ? HASH_ENCODER : 'none',
    profile: profile.name,
    historyDim: (hashed ? HASH_DIM : 0) + S,
    textDim: hashed ? HASH_DIM : 0,
    models,
    modelFeatures: mf.features,
    modelFeatureStats: mf.stats,
    rows,
    textIndptr: textIndptr.slice(0, rows + 1),
    textIndices: text.indices.slice(0, text.length),
    textValues: text.values.slice(0, text.length),
    structured: structured.slice(0, rows * S),
    model: model.slice(0, rows),
    target: target.slice(0, rows),
    turnId: turnId.slice(0, rows),
    episodeId: episodeId.slice(0, rows),
    validation: validation.slice(0, rows),
    summary: {
      episodes: episodesWithRows.train + episodesWithRows.validation,
      trainEpisodes: episodesWithRows.train,
      validationEpisodes: episodesWithRows.validation,
      trainRows: summaryRows.train,
      validationRows: summaryRows.validation,
      skippedEpisodesNoOutcome: skippedNoOutcome,
      skippedTurnsOutsidePool: skippedOutsidePool,
      targets: targetMode,
      recomputedTargets: recomputed,
      maxHistoryTokens: maxTokens,
      meanNonZero: rows ? text.length / rows : 0,
      seconds: (performance.now() - started) / 1000,
    },
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
