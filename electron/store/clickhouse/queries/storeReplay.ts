/**
 * `routelens replay --store URL`: the policy replay of electron/replay on a ClickHouse store, streamed. The
 * sessions are read in parts (storeSessionsPart.ts: all of a session's episodes in one part), each part
 * becomes a ReplayData of its own turns with the store-wide columns, prices and output-length ratios, and every
 * policy runs over it by the same code as on SQLite; only per-episode terms are kept, so memory grows with the
 * episodes, never with the turns. The summaries (bootstrap intervals included) then run over the episodes in
 * import order, as SQLite's ids order them, so both stores answer alike.
 *
 * ŝ: an estimator's, from the newest completed scoring of its ONNX file on the store (storeScoring.ts) when one
 * is named, which must cover every selected turn; else the logged candidate scores, as on a SQLite database no
 * estimator has scored. Not on a store yet: `usage:` policies (their ξ is fitted over every turn at once).
 */
import type { PolicyReplay, ReplayResult } from '../../../../shared/apiReplay.ts';
import { parsePolicySpec } from '../../../../shared/policySpec.ts';
import { splitValues } from '../../../../shared/splits.ts';
import { storedExpectedSteps } from '../../../analysis/storedExpectedSteps.ts';
import { shippedPriceOf } from '../../../db/models.ts';
import { compilePolicy, modelsNamed } from '../../../replay/policies.ts';
import {
  candidateLists, noOutputNote, NotScoredError, priceTurns, pricingNotes, ReplayError, type ReplayData,
} from '../../../replay/replayData.ts';
import {
  loggedEpisodeCosts, replayResultOf, runPolicy, summarisePolicy, type EpisodeLevelData, type PolicyPass,
} from '../../../replay/replayRun.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { visibleRows } from '../schema/schema.ts';
import { runIdOf, storeModelOrder } from './storeEpisodes.ts';
import { completedScorings } from './storeEstimators.ts';
import { storeOutputRatios } from './storeOutputRatios.ts';
import { sessionParts, type SessionPart } from './storeSessionsPart.ts';

export interface StoreReplayRequest {
  runs?: string[];
  split?: string;
  policies: readonly string[];
  bootstrap?: number;
  seed?: number;
  /** Turns per part (default 200,000): what is in memory at once. */
  partTurns?: number;
  /** ŝ from the store's scorings of this estimator (the sha256 of its ONNX file). */
  estimator?: { sha256: string; path: string };
  onProgress?: (message: string) => void;
}

const num = (x: unknown): number => Number(x);
const orNaN = (x: unknown): number => (x === null || x === undefined ? Number.NaN : Number(x));

/** Per-episode terms of one policy over all parts, in the parts' order until sorted. */
type Terms = Omit<PolicyPass, 'choice' | 'usage'>;
const TERM_KEYS = ['agreeTurns', 'agreeEpisode', 'firstDivergence', 'cost', 'switches', 'dm', 'weight', 'dr', 'opeOk', 'unsupported'] as const;

export async function replayOnStore(store: ClickHouseStore, request: StoreReplayRequest): Promise<ReplayResult> {
  const specs = request.policies.map((s) => parsePolicySpec(s));
  const usage = specs.find((s) => s.kind === 'usage');
  if (usage) throw new ReplayError('usage: policies fit ξ over every turn at once, which a ClickHouse store does not replay yet: replay them on a SQLite database (--db)');
  const where: string[] = [visibleRows(store)];
  const params: Record<string, unknown> = {};
  const known = await store.query<{ run: string; first: string }>(
    `SELECT run, min(import_id) AS first FROM ${store.table('episodes')} WHERE ${visibleRows(store)} GROUP BY run ORDER BY first, run`,
  );
  if (request.runs?.length) {
    for (const r of request.runs) if (!known.some((k) => k.run === r)) throw new ReplayError(`no run named "${r}" (runs: ${known.map((k) => k.run).join(', ') || 'none'})`);
    where.push('has({runs:Array(String)}, run)');
    params.runs = request.runs;
  }
  const episodeWhere = [...where];
  if (request.split !== undefined) {
    episodeWhere.push('split IS NOT NULL AND has({splits:Array(String)}, assumeNotNull(split))');
    params.splits = splitValues(request.split);
  }
  const runs = known.filter((k) => !request.runs?.length || request.runs.includes(k.run)).map((k) => ({ id: runIdOf(k.run), name: k.run }));
  const [size] = await store.query<{ episodes: string; turns: string }>(
    `SELECT count() AS episodes, sum(n_turns) AS turns FROM ${store.table('episodes')} WHERE ${episodeWhere.join(' AND ')}`, params,
  );
  if (request.split !== undefined && num(size?.episodes) === 0) {
    const splits = await store.query<{ split: string }>(`SELECT DISTINCT split FROM ${store.table('episodes')} WHERE ${visibleRows(store)} AND split IS NOT NULL ORDER BY split`);
    throw new ReplayError(`no episode of the selected runs is in split "${request.split}" (splits here: ${splits.map((s) => s.split).join(', ') || 'none'})`);
  }

  // Columns as on SQLite: the models the runs logged (in model-id order), then scored ones, then those the policies name.
  const order = await storeModelOrder(store);
  const rank = new Map(order.map((m, i) => [m, i]));
  // turns carry their session's split; turn_candidates does not, and is read for the selected episodes.
  const logged = (await store.query<{ model: string }>(`SELECT DISTINCT model FROM ${store.table('turns')} WHERE ${episodeWhere.join(' AND ')}`, params)).map((r) => r.model);
  const selected = `episode_key ${store.globalIn} (SELECT episode_key FROM ${store.table('episodes')} WHERE ${episodeWhere.join(' AND ')})`;
  const scoring = request.estimator ? await scoringFor(store, request.estimator, episodeWhere, params, num(size?.turns ?? 0)) : null;
  const scored = scoring
    ? scoring.models
    : (await store.query<{ model: string }>(`SELECT DISTINCT model FROM ${store.table('turn_candidates')} WHERE ${where.join(' AND ')} AND ${selected}`, params)).map((r) => r.model);
  // Scored models not logged come in SQLite's model-id order too; a model the store has no turns of, last.
  const byRank = (a: string, b: string) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0);
  const models = [...new Set([...logged.sort(byRank), ...[...scored].sort(byRank)])];
  const actionSpace = logged.map((_m, k) => k);
  for (const name of specs.flatMap(modelsNamed)) {
    if (!rank.has(name)) throw new ReplayError(`no model named "${name}" (models in these runs: ${models.join(', ') || 'none'})`);
    if (!models.includes(name)) models.push(name);
  }
  const K = models.length;
  const column = new Map(models.map((m, k) => [m, k]));
  const sHatSource = scoring ? 'estimator' : scored.length > 0 ? 'logged_candidates' : 'none';

  // Output-length ratios over every turn of the store (as SQLite learns them over the whole database).
  const ratios = await storeOutputRatios(store);
  const outputRatio = Float64Array.from(models, (m) => ratios.get(m) ?? 1);
  const notes: string[] = models.filter((m) => !ratios.has(m)).map(noOutputNote);
  const prices = models.map(shippedPriceOf);

  const parts = await sessionParts(store, { where: episodeWhere.join(' AND '), params, turns: num(size?.turns ?? 0), turnsPerPart: request.partTurns ?? 200_000 });
  const terms: Terms[] = specs.map(() => Object.fromEntries(TERM_KEYS.map((k) => [k, []])) as unknown as Terms);
  const usageSum = specs.map(() => new Float64Array(K));
  const policyNotes = specs.map(() => new Set<string>());
  const fallbacks = specs.map(() => 0);
  const facts: { label: string; canonical: string }[] = [];
  const episodes: { order: [number, number]; key: number; root: number; score: number; loggedCost: number }[] = [];
  let turns = 0;
  let unpriced = 0;
  let unknownLogged = 0;

  for (const [p, inPart] of parts.entries()) {
    request.onProgress?.(`replaying part ${p + 1} of ${parts.length} (${turns.toLocaleString('en-US')} turns so far)`);
    const part = await readPart(store, {
      where, episodeWhere, params, part: inPart, column, K, sHatSource, scoringIds: scoring?.ids ?? [], actionSpace, models, runs, outputRatio, prices,
    });
    unpriced += part.unpriced;
    unknownLogged += part.unknownLogged;
    turns += part.data.logged.length;
    const loggedCost = loggedEpisodeCosts(part.data);
    part.meta.forEach((m, e) => episodes.push({ ...m, score: part.data.score[e] as number, loggedCost: loggedCost[e] as number }));
    specs.forEach((spec, n) => {
      const policy = compilePolicy(part.data, spec);
      const pass = runPolicy(part.data, policy);
      facts[n] = { label: policy.label, canonical: policy.canonical };
      for (const k of TERM_KEYS) {
        const into = terms[n]![k] as unknown as number[];
        for (const x of pass[k]) into.push(x);
      }
      const sums = usageSum[n] as Float64Array;
      pass.usage.forEach((u, k) => (sums[k] = (sums[k] as number) + u));
      for (const note of policy.notes) policyNotes[n]!.add(note);
      fallbacks[n] = (fallbacks[n] as number) + policy.fallbacks();
    });
  }

  // The episodes in import order (SQLite's id order): the bootstrap draws the same episodes on both stores.
  const perm = episodes.map((_e, i) => i).sort((a, b) => {
    const x = episodes[a]!.order;
    const y = episodes[b]!.order;
    return x[0] - y[0] || x[1] - y[1];
  });
  const at = new Map(perm.map((i, g) => [episodes[i]!.key, g]));
  const nEp = episodes.length;
  const level: EpisodeLevelData = {
    episodeId: Int32Array.from(perm, (_i, g) => g + 1),
    score: Float64Array.from(perm, (i) => episodes[i]!.score),
    parent: Int32Array.from(perm, (i) => {
      const e = episodes[i]!;
      return e.root === e.key ? -1 : (at.get(e.root) ?? -1);
    }),
    sHatSource, K, models, runs, estimator: scoring?.ref ?? null, outputRatio,
    logged: { length: turns },
  };
  const options = { bootstrap: request.bootstrap ?? 1000, seed: request.seed ?? 1 };
  const summaries: PolicyReplay[] = specs.map((_s, n) => {
    const t = terms[n] as Terms;
    const sorted = <A extends Float64Array | Int32Array | Uint8Array>(make: (len: number) => A, from: ArrayLike<number>): A => {
      const out = make(nEp);
      perm.forEach((i, g) => (out[g] = from[i] as number));
      return out;
    };
    const pass = {
      agreeTurns: sorted((l) => new Float64Array(l), t.agreeTurns),
      agreeEpisode: sorted((l) => new Float64Array(l), t.agreeEpisode),
      firstDivergence: sorted((l) => new Int32Array(l), t.firstDivergence),
      cost: sorted((l) => new Float64Array(l), t.cost),
      switches: sorted((l) => new Float64Array(l), t.switches),
      dm: sorted((l) => new Float64Array(l), t.dm),
      weight: sorted((l) => new Float64Array(l), t.weight),
      dr: sorted((l) => new Float64Array(l), t.dr),
      opeOk: sorted((l) => new Uint8Array(l), t.opeOk),
      unsupported: sorted((l) => new Float64Array(l), t.unsupported),
      usage: usageSum[n] as Float64Array,
    };
    const fact = facts[n] ?? { label: '', canonical: '' };
    return summarisePolicy(level, { ...fact, notes: [...(policyNotes[n] as Set<string>)], fallbacks: () => fallbacks[n] as number }, pass, options);
  });
  const loggedPerEpisode = Float64Array.from(perm, (i) => episodes[i]!.loggedCost);
  return replayResultOf(level, loggedPerEpisode, summaries, options, [...notes, ...pricingNotes(unpriced, unknownLogged, turns)]);
}

interface PartQuery {
  where: string[];
  episodeWhere: string[];
  params: Record<string, unknown>;
  part: SessionPart;
  column: Map<string, number>;
  K: number;
  sHatSource: 'estimator' | 'logged_candidates' | 'none';
  /** The completed scorings ŝ is read from (sHatSource 'estimator'), newest winning. */
  scoringIds: number[];
  actionSpace: number[];
  models: string[];
  runs: { id: number; name: string }[];
  outputRatio: Float64Array;
  prices: ReturnType<typeof shippedPriceOf>[];
}

/** One part's sessions as a ReplayData of their own, and what orders them (import, position in the file). */
async function readPart(store: ClickHouseStore, q: PartQuery): Promise<{
  data: ReplayData; meta: { order: [number, number]; key: number; root: number }[]; unpriced: number; unknownLogged: number;
}> {
  const eps = await store.query<{
    k: string; root: string; imp: string; ord: number; ext_id: string; task_id: string | null; run: string; score_norm: number | null;
    expected_steps: number | null; task_type: string | null; task_category: string | null;
  }>(
    `SELECT episode_key AS k, root_key AS root, import_id AS imp, file_ord AS ord, ext_id, task_id, run, score_norm, expected_steps, task_type, task_category
     FROM ${store.table('episodes')} WHERE ${q.episodeWhere.join(' AND ')} AND ${q.part.episodes} ORDER BY episode_key`,
    q.params,
  );
  const inPart = q.part.rowsOf(eps);
  const index = new Map(eps.map((e, i) => [e.k, i]));
  const nEp = eps.length;
  const rows = await store.query<{ k: string; pos: number; t: number; model: string; propensity: number | null; tin: string | null; tout: string | null; tcached: string | null; cost: number | null }>(
    `SELECT episode_key AS k, pos, t, model, propensity, tokens_in AS tin, tokens_out AS tout, tokens_cached AS tcached, cost
     FROM ${store.table('turns')} WHERE ${q.where.join(' AND ')} AND ${inPart} ORDER BY episode_key, pos`,
    q.params,
  );
  // The part's condition names exactly these episodes, so every row belongs to one of them.
  const N = rows.length;
  const turnStart = new Int32Array(nEp + 1);
  const t = new Int32Array(N);
  const logged = new Int32Array(N);
  const propensity = new Float64Array(N);
  const tokIn = new Float64Array(N);
  const tokOut = new Float64Array(N);
  const tokCached = new Float64Array(N);
  const loggedCost = new Float64Array(N);
  const turnAt = new Map<string, number>();
  let last = -1;
  rows.forEach((r, j) => {
    const e = index.get(r.k) as number;
    while (last < e) turnStart[++last] = j;
    turnAt.set(`${r.k}:${r.pos}`, j);
    t[j] = num(r.t);
    logged[j] = q.column.get(r.model) as number;
    const p = orNaN(r.propensity);
    propensity[j] = p > 0 ? p : Number.NaN;
    tokIn[j] = orNaN(r.tin);
    tokOut[j] = orNaN(r.tout);
    tokCached[j] = r.tcached === null ? 0 : num(r.tcached);
    loggedCost[j] = orNaN(r.cost);
  });
  while (last < nEp) turnStart[++last] = N;
  let sHat: Float64Array | null = null;
  if (q.sHatSource !== 'none') {
    sHat = new Float64Array(N * q.K).fill(Number.NaN);
    const scores = await store.query<{ k: string; pos: number; model: string; s: number }>(
      q.sHatSource === 'estimator'
        ? `SELECT episode_key AS k, pos, model, argMax(s_hat, scoring_id) AS s FROM ${store.table('estimates')}
           WHERE ${visibleRows(store)} AND has({scorings:Array(UInt64)}, scoring_id) AND ${inPart} GROUP BY episode_key, pos, model`
        : `SELECT episode_key AS k, pos, model, logged_score AS s FROM ${store.table('turn_candidates')} WHERE ${q.where.join(' AND ')} AND ${inPart}`,
      { ...q.params, scorings: q.scoringIds },
    );
    for (const s of scores) {
      const j = turnAt.get(`${s.k}:${s.pos}`);
      if (j !== undefined) sHat[j * q.K + (q.column.get(s.model) as number)] = num(s.s);
    }
  }
  const priced = priceTurns({ logged, tokIn, tokOut, tokCached, loggedCost }, q.K, q.prices, q.outputRatio);
  const runIndex = new Map(q.runs.map((r, i) => [r.name, i]));
  const data: ReplayData = {
    ...candidateLists(sHat, N, q.K, q.actionSpace),
    runs: q.runs,
    models: q.models,
    modelIds: q.models.map((_m, k) => k),
    K: q.K,
    // A number per episode for `random:` draws: its key's low 31 bits (SQLite's row ids differ, so its draws do).
    episodeId: Int32Array.from(eps, (e) => Number(BigInt(e.k) & 0x7fffffffn)),
    extId: eps.map((e) => e.ext_id),
    taskId: eps.map((e) => e.task_id),
    runOf: Int32Array.from(eps, (e) => runIndex.get(e.run) ?? -1),
    score: Float64Array.from(eps, (e) => orNaN(e.score_norm)),
    parent: Int32Array.from(eps, (e) => (e.root === e.k ? -1 : (index.get(e.root) ?? -1))),
    expectedSteps: Int32Array.from(eps, (e) => storedExpectedSteps({ expected_steps: e.expected_steps, task_type: e.task_type, task_category: e.task_category })),
    turnStart,
    turnId: Int32Array.from({ length: N }, (_x, j) => j),
    t,
    logged,
    propensity,
    cost: priced.cost,
    sHat,
    actionSpace: q.actionSpace,
    sHatSource: q.sHatSource,
    estimator: null,
    outputRatio: q.outputRatio,
    notes: [],
  };
  return {
    data,
    meta: eps.map((e) => ({ order: [num(e.imp), num(e.ord)] as [number, number], key: num(e.k), root: num(e.root) })),
    unpriced: priced.unpriced,
    unknownLogged: priced.unknownLogged,
  };
}

/**
 * The store's completed scorings of an estimator (by its file's sha256), newest first, and its models; refused
 * unless they cover every selected turn, as SQLite refuses an estimator that has not scored the runs.
 */
async function scoringFor(
  store: ClickHouseStore, estimator: { sha256: string; path: string }, episodeWhere: string[], params: Record<string, unknown>, turns: number,
): Promise<{ ids: number[]; models: string[]; ref: { id: number; name: string; created_at: string } }> {
  const done = (await completedScorings(store)).filter((s) => s.sha === estimator.sha256);
  const score = `routelens score --store URL --model ${estimator.path}`;
  if (done.length === 0) throw new NotScoredError(`${estimator.path} has not scored this store: ${score} first`);
  const ids = done.map((d) => d.id);
  const selectedTurns = `episode_key ${store.globalIn} (SELECT episode_key FROM ${store.table('episodes')} WHERE ${episodeWhere.join(' AND ')})`;
  const [cover] = await store.query<{ turns: string }>(
    `SELECT count() AS turns FROM (SELECT DISTINCT episode_key, pos FROM ${store.table('estimates')}
     WHERE ${visibleRows(store)} AND has({scorings:Array(UInt64)}, scoring_id) AND ${selectedTurns})`,
    { ...params, scorings: ids },
  );
  const covered = num(cover?.turns ?? 0);
  if (covered < turns) throw new NotScoredError(`${estimator.path} has ŝ for ${covered} of the ${turns} selected turns on this store: ${score} (with these runs) first`);
  const models = (await store.query<{ model: string }>(
    `SELECT DISTINCT model FROM ${store.table('estimates')} WHERE has({scorings:Array(UInt64)}, scoring_id)`, { scorings: ids },
  )).map((r) => r.model);
  const newest = done[0]!;
  return { ids, models, ref: { id: ids[0]!, name: newest.name, created_at: newest.at } };
}
