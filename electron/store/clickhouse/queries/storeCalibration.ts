/**
 * The `calibration` analysis (DESIGN §8) pushed down to the ClickHouse store: ŝ of the logged model, from the
 * store's completed scorings of one estimator (`routelens score --store`, the newest scoring winning for a turn
 * scored twice), paired with the turn's realised S̃. The cluster adds up, per run and ŝ bin, the counts and sums a
 * reliability curve and the MAE are made of, and Spearman's ρ as sums over average ranks it assigns itself (the
 * distinct values counted, sorted and cumulated in an array, then joined back); only those sums come back, and
 * the same finishing as the SQLite path (calibration.ts `fitOfSums`) makes the answer.
 *
 * On a store an estimator is the sha256 of its ONNX file and is numbered by its newest completed scoring; its
 * model card (training runs and task types) lives beside a file the store does not know, so whether a run was
 * in its training and which task types it never saw are unknown here (null and absent), never "no".
 */
import type { CalibrationResult, CalibrationRun } from '../../../../shared/analysisResults.ts';
import { calibrationBins, EMPTY_FIT, fitOfSums, NO_OUTCOME_NOTE, notCandidateNote, type Fit } from '../../../analysis/calibration.ts';
import { spearmanOfRankSums } from '../../../estimator/train.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { visibleRows } from '../schema/schema.ts';
import { selectionFilter, type Selection } from './storeAnalyses.ts';
import { completedScorings, scoringOf } from './storeEstimators.ts';

export interface StoreCalibrationOptions extends Selection {
  /** A scoring id: the estimator that scoring used (default: the estimator of the newest completed scoring). */
  estimator?: number;
  bins?: number;
}

const num = (x: unknown): number => Number(x);

/** The estimator asked for (by any of its scorings' ids) or the newest one's: its completed scorings, newest first. */
async function chooseEstimator(store: ClickHouseStore, wanted: number | undefined): Promise<{ ids: number[]; name: string } | null> {
  const done = await completedScorings(store);
  const pick = scoringOf(done, wanted);
  if (!pick) return null;
  const mine = done.filter((d) => d.sha === pick.sha);
  return { ids: mine.map((d) => d.id), name: mine[0]?.name ?? pick.name };
}

type BinRow = {
  g: string;
  bin: number;
  n: string;
  abs_error: number;
  sum_hat: number;
  sum_tilde: number;
  sum_tilde2: number;
  rr: number;
  rh: number;
  rs: number;
};

/**
 * Per group (`groupBy`: the run, or '' for all together) and ŝ bin: the sums of the fit and of the ranks' products,
 * ranks taken within the group. `pairs` selects (run, h, s): ŝ of the logged model and S̃.
 */
async function binSums(store: ClickHouseStore, pairs: string, params: Record<string, unknown>, groupBy: 'run' | "''", bins: number): Promise<BinRow[]> {
  // Average 0-based ranks of column c within each group: a distinct value counted c times after cum − c values
  // holds positions cum − c … cum − 1.
  const ranks = (c: 'h' | 's', r: string): string =>
    `SELECT g, v AS ${c}, ${r} FROM (
       SELECT g, arraySort(x -> x.1, groupArray((v, k))) AS vs FROM (SELECT ${groupBy} AS g, ${c} AS v, count() AS k FROM (${pairs}) GROUP BY g, v) GROUP BY g
     ) ARRAY JOIN arrayMap(x -> x.1, vs) AS v,
       arrayMap((x, cum) -> cum - x.2 + (x.2 - 1) / 2, vs, arrayCumSum(arrayMap(x -> x.2, vs))) AS ${r}`;
  const rows = await store.query<BinRow>(
    `SELECT g, bin, count() AS n, sum(abs(h - s)) AS abs_error, sum(h) AS sum_hat, sum(s) AS sum_tilde, sum(s * s) AS sum_tilde2,
       sum(rank_h * rank_s) AS rr, sum(rank_h * rank_h) AS rh, sum(rank_s * rank_s) AS rs
     FROM (
       SELECT g, h, s, rank_h, rank_s FROM (
         SELECT g, h, s, rank_h FROM (SELECT ${groupBy} AS g, h, s FROM (${pairs})) ANY INNER JOIN (${ranks('h', 'rank_h')}) USING (g, h)
       ) ANY INNER JOIN (${ranks('s', 'rank_s')}) USING (g, s)
     )
     GROUP BY g, least(${bins - 1}, greatest(0, toInt64(floor(h * ${bins})))) AS bin`,
    params,
  );
  return rows;
}

/** The fit of each group from its bins' sums. */
function fitsOf(rows: BinRow[], bins: number): Map<string, Fit> {
  const byGroup = new Map<string, BinRow[]>();
  for (const r of rows) byGroup.set(r.g, [...(byGroup.get(r.g) ?? []), r]);
  const fits = new Map<string, Fit>();
  for (const [g, group] of byGroup) {
    const count = new Float64Array(bins);
    const sumHat = new Float64Array(bins);
    const sumTilde = new Float64Array(bins);
    const sumTilde2 = new Float64Array(bins);
    let n = 0;
    let absError = 0;
    const ranks = { ab: 0, aa: 0, bb: 0 };
    for (const r of group) {
      const b = num(r.bin);
      count[b] = num(r.n);
      sumHat[b] = num(r.sum_hat);
      sumTilde[b] = num(r.sum_tilde);
      sumTilde2[b] = num(r.sum_tilde2);
      n += num(r.n);
      absError += num(r.abs_error);
      ranks.ab += num(r.rr);
      ranks.aa += num(r.rh);
      ranks.bb += num(r.rs);
    }
    fits.set(g, fitOfSums({ n, absError, count, sumHat, sumTilde, sumTilde2 }, bins, spearmanOfRankSums(n, ranks)));
  }
  return fits;
}

export async function calibrationOnStore(store: ClickHouseStore, options: StoreCalibrationOptions = {}): Promise<CalibrationResult> {
  const bins = calibrationBins(options.bins);
  const f = await selectionFilter(store, options);
  const byRun = await selectionFilter(store, { runs: options.runs });
  const scoreHint = `routelens score --store ${store.shown} --model FILE.onnx${(options.runs ?? []).map((r) => ` --run ${/^[\w.-]+$/.test(r) ? r : JSON.stringify(r)}`).join('')}`;
  const est = await chooseEstimator(store, options.estimator);
  if (!est) {
    const note = `No estimator: this store has not been scored yet. Score it with an estimator (${scoreHint}).`;
    return { estimator: null, note, reason: 'no_estimator', overall: EMPTY_FIT, runs: [] };
  }
  const estimator = { id: est.ids[0] as number, name: est.name };
  const params = { ...f.params, scorings: est.ids };
  const [counts] = await store.query<{ episodes: string; unknown_outcome: string }>(
    `SELECT count() AS episodes, countIf(score_norm IS NULL) AS unknown_outcome FROM ${store.table('episodes')}
     WHERE ${visibleRows(store)} AND parent_ext_id IS NULL AND ${f.sql}`,
    f.params,
  );
  const coverage = { episodes: num(counts?.episodes ?? 0), unknown_outcome: num(counts?.unknown_outcome ?? 0), unknown_cost: 0 };
  // One scoring holds a turn × model once: no newest-wins grouping, which held every estimate in memory at once.
  const estimates = est.ids.length === 1
    ? `SELECT episode_key, pos, model, s_hat AS h FROM ${store.table('estimates')}
    WHERE ${visibleRows(store)} AND scoring_id = ${Number(est.ids[0])} AND ${byRun.sql}`
    : `SELECT episode_key, pos, model, argMax(s_hat, scoring_id) AS h FROM ${store.table('estimates')}
    WHERE ${visibleRows(store)} AND has({scorings:Array(UInt64)}, scoring_id) AND ${byRun.sql} GROUP BY episode_key, pos, model`;
  const loggedTurns = (where: string) => `SELECT episode_key, pos, model, run, s_tilde FROM ${store.table('turns')} WHERE ${visibleRows(store)} AND ${where}`;
  // ŝ is float32 on the store, as ORT gives it; its sums are taken in float64, as SQLite stores it.
  const pairs = `SELECT run, toFloat64(h) AS h, assumeNotNull(s_tilde) AS s FROM (${estimates})
    ANY INNER JOIN (${loggedTurns(`s_tilde IS NOT NULL AND ${f.sql}`)}) USING (episode_key, pos, model)`;
  const [perRun, overall] = [await binSums(store, pairs, params, 'run', bins), await binSums(store, pairs, params, "''", bins)];

  if (perRun.length === 0) {
    const [scored] = await store.query<{ n: string }>(`SELECT count() AS n FROM (${estimates})`, { ...byRun.params, scorings: est.ids });
    if (!num(scored?.n)) {
      const note = `Not scored: estimator ${est.name} has not scored the selected runs. Score them: ${scoreHint}`;
      return { estimator, note, reason: 'not_scored', overall: EMPTY_FIT, runs: [], coverage };
    }
    const [logged] = await store.query<{ n: string }>(
      `SELECT count() AS n FROM (${estimates}) ANY INNER JOIN (${loggedTurns(byRun.sql)}) USING (episode_key, pos, model)`,
      { ...byRun.params, scorings: est.ids },
    );
    if (!num(logged?.n)) {
      const models = async (sql: string, p: Record<string, unknown>) => (await store.query<{ model: string }>(sql, p)).map((r) => r.model);
      const names = await models(`SELECT DISTINCT model FROM ${store.table('turns')} WHERE ${visibleRows(store)} AND ${byRun.sql} ORDER BY model LIMIT 6`, byRun.params);
      const candidates = await models(`SELECT DISTINCT model FROM ${store.table('estimates')} WHERE has({scorings:Array(UInt64)}, scoring_id) ORDER BY model`, { scorings: est.ids });
      return { estimator, note: notCandidateNote(names, est.name, candidates), reason: 'model_not_candidate', overall: EMPTY_FIT, runs: [], coverage };
    }
    return { estimator, note: NO_OUTCOME_NOTE, reason: 'no_outcome', overall: EMPTY_FIT, runs: [], coverage };
  }
  const runs: CalibrationRun[] = [...fitsOf(perRun, bins).entries()]
    .map(([run, fit]) => ({ run, ...fit, in_training: null }))
    .sort((a, b) => a.run.localeCompare(b.run));
  return { estimator, note: null, overall: fitsOf(overall, bins).get('') ?? EMPTY_FIT, runs, coverage };
}
