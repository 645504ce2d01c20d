/**
 * The `calibration` analysis (DESIGN §8): how well an estimator's ŝ(h_t, a_t) of the logged model predicts the
 * realised target S̃_t (DESIGN §5, the `targets` table) — a reliability curve over equal-width ŝ bins (mean ŝ
 * against mean S̃ with n and a 95% interval), the mean absolute error and Spearman's ρ, over the selected runs
 * together and per run. Only the logged model's ŝ can be checked: S̃ is realised for the action taken.
 *
 * Runs the estimator was trained on (its model card lists them) are flagged, since their fit is in-sample.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { DEFAULT_CALIBRATION_BINS, MAX_CALIBRATION_BINS, MIN_CALIBRATION_BINS, type CalibrationBin, type CalibrationResult, type CalibrationRun } from '../../shared/analysisResults.ts';
import { splitValues } from '../../shared/splits.ts';
import type { Db } from '../db/dbHandle.ts';
import { cardBeside, modelCardPath, readModelCard } from '../estimator/modelCard.ts';
import { estimatorInUse } from '../estimator/inUse.ts';
import { domainOf } from '../estimator/trainingDomain.ts';
import { spearman } from '../estimator/train.ts';

export interface CalibrationOptions {
  runs?: readonly string[];
  /** Only turns of episodes in this split selection (shared/splits.ts). */
  split?: string;
  /** estimators.id; default the estimator that scored the selected runs most recently. */
  estimator?: number;
  /** Equal-width bins over ŝ ∈ [0, 1] (default 10). */
  bins?: number;
}

export type Fit = CalibrationResult['overall'];

/** The bin of ŝ among `bins` equal-width bins over [0, 1]; ŝ outside falls in the end bins. */
export function calibrationBin(sHat: number, bins: number): number {
  return Math.min(bins - 1, Math.max(0, Math.floor(sHat * bins)));
}

/** Sums over paired ŝ and S̃ that a fit is made of, per bin (index = calibrationBin), as either store adds them up. */
export interface CalibrationSums {
  n: number;
  absError: number;
  count: ArrayLike<number>;
  sumHat: ArrayLike<number>;
  sumTilde: ArrayLike<number>;
  sumTilde2: ArrayLike<number>;
}

/** The reliability bins and MAE of the sums, with Spearman's ρ computed where the pairs are (NaN: none). */
export function fitOfSums(sums: CalibrationSums, bins: number, rho: number): Fit {
  const out: CalibrationBin[] = [];
  for (let b = 0; b < bins; b++) {
    const k = (sums.count[b] ?? 0) as number;
    const mean = k > 0 ? (sums.sumTilde[b] as number) / k : null;
    let ci: [number, number] | null = null;
    if (k >= 2 && mean !== null) {
      const variance = Math.max(0, ((sums.sumTilde2[b] as number) - k * mean * mean) / (k - 1));
      const half = 1.96 * Math.sqrt(variance / k);
      ci = [mean - half, mean + half];
    }
    out.push({ lo: b / bins, hi: (b + 1) / bins, n: k, mean_s_hat: k > 0 ? (sums.sumHat[b] as number) / k : null, mean_s_tilde: mean, ci });
  }
  const n = sums.n;
  return { n, mae: n > 0 ? sums.absError / n : null, spearman: Number.isFinite(rho) ? rho : null, bins: out };
}

/** The reliability bins, MAE and ρ of paired ŝ and S̃ (same length). */
export function calibrationFit(sHat: ArrayLike<number>, sTilde: ArrayLike<number>, bins = DEFAULT_CALIBRATION_BINS): Fit {
  const n = sHat.length;
  if (sTilde.length !== n) throw new RangeError(`ŝ has ${n} values and S̃ ${sTilde.length}`);
  const count = new Float64Array(bins);
  const sumHat = new Float64Array(bins);
  const sumTilde = new Float64Array(bins);
  const sumTilde2 = new Float64Array(bins);
  let absError = 0;
  for (let i = 0; i < n; i++) {
    const h = sHat[i] as number;
    const s = sTilde[i] as number;
    absError += Math.abs(h - s);
    const b = calibrationBin(h, bins);
    count[b] = (count[b] as number) + 1;
    sumHat[b] = (sumHat[b] as number) + h;
    sumTilde[b] = (sumTilde[b] as number) + s;
    sumTilde2[b] = (sumTilde2[b] as number) + s * s;
  }
  return fitOfSums({ n, absError, count, sumHat, sumTilde, sumTilde2 }, bins, n >= 2 ? spearman(sHat, sTilde) : NaN);
}

/** The number of bins asked for, checked. */
export function calibrationBins(bins: number | undefined): number {
  const b = bins ?? DEFAULT_CALIBRATION_BINS;
  if (!Number.isInteger(b) || b < MIN_CALIBRATION_BINS || b > MAX_CALIBRATION_BINS) throw new RangeError(`bins must be a whole number from ${MIN_CALIBRATION_BINS} to ${MAX_CALIBRATION_BINS}, got ${b}`);
  return b;
}

function runIdsOf(db: Db, names: readonly string[]): Map<number, string> {
  const all = db.prepare('SELECT id, name FROM runs').all() as { id: number; name: string }[];
  if (names.length === 0) return new Map(all.map((r) => [r.id, r.name]));
  const byName = new Map(all.map((r) => [r.name, r.id]));
  const out = new Map<number, string>();
  for (const name of names) {
    const id = byName.get(name);
    if (id === undefined) throw new RangeError(`no run named "${name}"`);
    out.set(id, name);
  }
  return out;
}

const inRuns = (ids: number[]): string => (ids.length ? ` AND ep.run_id IN (${ids.map(() => '?').join(', ')})` : '');
const inSplits = (values: string[]): string => (values.length ? ` AND ep.split IN (${values.map(() => '?').join(', ')})` : '');

/**
 * Runs the estimator's card says it was trained on, when it was trained on this database (the card names the
 * database file; run names of another database say nothing about this one's). Null when unknown.
 */
function trainingRuns(onnxPath: string | null, dbPath: string): Set<string> | null {
  if (!onnxPath || !existsSync(modelCardPath(onnxPath))) return null;
  try {
    const card = readModelCard(modelCardPath(onnxPath));
    return card.data.database === basename(dbPath) ? new Set(card.data.runs) : null;
  } catch {
    return null;
  }
}

export const NO_OUTCOME_NOTE =
  'No outcome: the scored turns belong to episodes with no known outcome, so there is no realised target (final score less later error penalties) to check ŝ against.';

/** What a calibration says when the logged models are none of the estimator's candidates. */
export function notCandidateNote(logged: readonly string[], estimator: string, candidates: readonly string[] | null): string {
  return `Model not a candidate: the selected runs' logged models (${logged.join(', ')}) are none of estimator ${estimator}'s candidates${candidates ? ` (${candidates.join(', ')})` : ''}, so there is no ŝ of the logged choice to check against what happened.`;
}

export const EMPTY_FIT: Fit = { n: 0, mae: null, spearman: null, bins: [] };

export function calibrationAnalysis(db: Db, options: CalibrationOptions = {}): CalibrationResult {
  const bins = calibrationBins(options.bins);
  const runs = runIdsOf(db, options.runs ?? []);
  const selected = options.runs?.length ? [...runs.keys()] : [];
  const dbArg = db.name && db.name !== ':memory:' ? db.name : 'FILE';
  const runArgs = (options.runs ?? []).map((r) => ` --run ${/^[\w.-]+$/.test(r) ? r : JSON.stringify(r)}`).join('');

  let est: { id: number; name: string; onnx_path: string | null } | undefined;
  if (options.estimator !== undefined) {
    est = db.prepare('SELECT id, name, onnx_path FROM estimators WHERE id = ?').get(options.estimator) as typeof est;
    if (!est) throw new RangeError(`no estimator with id ${options.estimator}`);
  } else {
    // The database's estimator in use (inUse.ts), as what-if and the step debugger read it.
    const inUse = estimatorInUse(db);
    est = inUse ? (db.prepare('SELECT id, name, onnx_path FROM estimators WHERE id = ?').get(inUse.id) as typeof est) : undefined;
  }
  if (!est) {
    const note = `No estimator: this database has none yet. Score it with the default model (routelens score --db ${dbArg}) or train one (routelens train --db ${dbArg} --out model.onnx).`;
    return { estimator: null, note, reason: 'no_estimator', overall: EMPTY_FIT, runs: [] };
  }
  const domain = domainOf(db, cardBeside(est.onnx_path));
  const runTypes = db
    .prepare(`SELECT DISTINCT ep.task_type FROM episodes ep WHERE ep.task_type IS NOT NULL${inRuns(selected)}`)
    .pluck()
    .all(...selected) as string[];
  const outside = domain?.task_types ? runTypes.filter((type) => !domain.task_types?.some((x) => x.task_type === type)) : [];

  const splits = options.split === undefined ? [] : splitValues(options.split);
  // S̃ needs an outcome: say how many sessions have none instead of letting their turns vanish silently.
  const counts = db
    .prepare(`SELECT COUNT(*) AS episodes, COALESCE(SUM(ep.score_norm IS NULL), 0) AS unknown_outcome FROM episodes ep
      WHERE ep.parent_ext_id IS NULL${inRuns(selected)}${inSplits(splits)}`)
    .get(...selected, ...splits) as { episodes: number; unknown_outcome: number };
  const coverage = { ...counts, unknown_cost: 0 };
  const rows = db
    .prepare(`SELECT ep.run_id, s.s_hat, g.s_tilde FROM turns t JOIN episodes ep ON ep.id = t.episode_id
      JOIN estimates s ON s.estimator_id = ? AND s.turn_id = t.id AND s.model_id = t.model_id
      JOIN targets g ON g.turn_id = t.id WHERE g.s_tilde IS NOT NULL${inRuns(selected)}${inSplits(splits)} ORDER BY t.id`)
    .raw()
    .iterate(est.id, ...selected, ...splits) as Iterable<[number, number, number]>;
  const byRun = new Map<number, { hat: number[]; tilde: number[] }>();
  const hat: number[] = [];
  const tilde: number[] = [];
  for (const [run, h, s] of rows) {
    let r = byRun.get(run);
    if (!r) byRun.set(run, (r = { hat: [], tilde: [] }));
    r.hat.push(h);
    r.tilde.push(s);
    hat.push(h);
    tilde.push(s);
  }
  const estimator = { id: est.id, name: est.name };
  if (hat.length === 0) {
    const scored = db
      .prepare(`SELECT COUNT(*) FROM estimates s JOIN turns t ON t.id = s.turn_id JOIN episodes ep ON ep.id = t.episode_id
        WHERE s.estimator_id = ?${inRuns(selected)}`)
      .pluck()
      .get(est.id, ...selected) as number;
    if (!scored) {
      const note = `Not scored: estimator ${est.name} has not scored the selected runs. Score them: routelens score --db ${dbArg}${runArgs}`;
      return { estimator, note, reason: 'not_scored', overall: EMPTY_FIT, runs: [], coverage, outside_training: outside };
    }
    // Calibration compares ŝ of the logged model with what happened: no ŝ for the logged model, nothing to compare.
    const loggedScored = db
      .prepare(`SELECT COUNT(*) FROM estimates s JOIN turns t ON t.id = s.turn_id AND t.model_id = s.model_id JOIN episodes ep ON ep.id = t.episode_id
        WHERE s.estimator_id = ?${inRuns(selected)}`)
      .pluck()
      .get(est.id, ...selected) as number;
    if (!loggedScored) {
      const logged = db
        .prepare(`SELECT DISTINCT m.name FROM turns t JOIN models m ON m.id = t.model_id JOIN episodes ep ON ep.id = t.episode_id WHERE 1${inRuns(selected)} ORDER BY m.name LIMIT 6`)
        .pluck()
        .all(...selected) as string[];
      const note = notCandidateNote(logged, est.name, domain ? domain.models : null);
      return { estimator, note, reason: 'model_not_candidate', overall: EMPTY_FIT, runs: [], coverage, outside_training: outside };
    }
    return { estimator, note: NO_OUTCOME_NOTE, reason: 'no_outcome', overall: EMPTY_FIT, runs: [], coverage, outside_training: outside };
  }
  const trained = trainingRuns(est.onnx_path, db.name);
  const perRun: CalibrationRun[] = [...byRun.entries()]
    .map(([id, r]) => {
      const run = runs.get(id) ?? String(id);
      return { run, ...calibrationFit(r.hat, r.tilde, bins), in_training: trained ? trained.has(run) : null };
    })
    .sort((a, b) => a.run.localeCompare(b.run));
  return { estimator, note: null, overall: calibrationFit(hat, tilde, bins), runs: perRun, coverage, outside_training: outside };
}
