/**
 * Replays compiled policies along the logged histories (DESIGN §7). One pass per policy over the turns
 * fills per-turn choices and per-episode terms — cost, switches, agreement, V̂(h_0), importance weight,
 * doubly-robust value — and the summary is means of those terms with episode-bootstrap intervals. Stochastic
 * policies contribute expectations under π (agreement, cost, usage, switches); their realised draws give
 * the first-divergence histogram.
 *
 * Cost at ~515k turns × 6 models: one policy pass is a few tens of ms; the bootstrap (B resamples of the
 * per-episode arrays) dominates and is linear in B × episodes.
 */
import type { FrontierPoint, PolicyReplay, ReplayResult } from '../../shared/apiReplay.ts';
import { parsePolicySpec } from '../../shared/policySpec.ts';
import type { Db } from '../db/dbHandle.ts';
import { bootstrapIntervals } from './bootstrap.ts';
import { episodeOpeTerms, equalWeights, noSupportReason, opeEstimates, unsupportedTurn, weakSupportReason, weightedMean } from './ope.ts';
import { advance, compilePolicy, modelsNamed, type CompiledPolicy, type EpisodeState } from './policies.ts';
import { loadReplayData, type ReplayData } from './replayData.ts';
import { nameKeyed } from '../../shared/nameKeyed.ts';

/** Per-turn and per-episode results of one policy. */
export interface PolicyPass {
  /** Realised choice per turn (column). */
  choice: Int32Array;
  /** Expected (under π) agreement with the logged model, summed over the episode's turns. */
  agreeTurns: Float64Array;
  /** P(π reproduces the whole logged episode). */
  agreeEpisode: Float64Array;
  /** First turn t where the realised choice differs from the log; -1 never. */
  firstDivergence: Int32Array;
  /** Expected cost of the episode under π; NaN when π may choose a model whose cost at some turn is unknown. */
  cost: Float64Array;
  switches: Float64Array;
  /** V̂(h_0); NaN without an estimator's ŝ. */
  dm: Float64Array;
  /** Trajectory importance weight W and DR value; NaN where the episode cannot be used for OPE. */
  weight: Float64Array;
  dr: Float64Array;
  /** Episode usable for OPE: a propensity on every turn and a known score. */
  opeOk: Uint8Array;
  /** Turns where π may choose a model the log gives probability 0 (ope.ts unsupportedTurn). */
  unsupported: Float64Array;
  /** Expected turns per model. */
  usage: Float64Array;
}

export function runPolicy(data: ReplayData, policy: CompiledPolicy): PolicyPass {
  const { K, sHat, cost, logged, propensity, turnStart } = data;
  const nEp = data.episodeId.length;
  const N = logged.length;
  const pass: PolicyPass = {
    choice: new Int32Array(N),
    agreeTurns: new Float64Array(nEp),
    agreeEpisode: new Float64Array(nEp),
    firstDivergence: new Int32Array(nEp).fill(-1),
    cost: new Float64Array(nEp),
    switches: new Float64Array(nEp),
    dm: new Float64Array(nEp).fill(Number.NaN),
    weight: new Float64Array(nEp).fill(Number.NaN),
    dr: new Float64Array(nEp).fill(Number.NaN),
    opeOk: new Uint8Array(nEp),
    unsupported: new Float64Array(nEp),
    usage: new Float64Array(K),
  };
  const useEstimates = data.sHatSource === 'estimator' && sHat !== null;
  let pd = new Float64Array(K);
  let prevPd = new Float64Array(K);
  let maxT = 0;
  for (let e = 0; e < nEp; e++) maxT = Math.max(maxT, (turnStart[e + 1] as number) - (turnStart[e] as number));
  const rho = new Float64Array(maxT);
  const q = new Float64Array(maxT);
  const v = new Float64Array(maxT);
  const st: EpisodeState = { e: 0, t: 0, spent: 0, prev: -1 };

  for (let e = 0; e < nEp; e++) {
    const start = turnStart[e] as number;
    const end = turnStart[e + 1] as number;
    st.e = e;
    st.spent = 0;
    st.prev = -1;
    let agree = 0;
    let agreeAll = 1;
    let epCost = 0;
    let switches = 0;
    let opeOk = Number.isFinite(data.score[e] as number) && end > start;
    for (let j = start; j < end; j++) {
      st.t = data.t[j] as number;
      const lg = logged[j] as number;
      const a = policy.choose(j, st);
      pass.choice[j] = a;
      if (policy.stochastic) policy.dist(j, st, pd);
      else {
        pd.fill(0);
        pd[a] = 1;
      }
      // Expectations under π.
      agree += pd[lg] as number;
      agreeAll *= pd[lg] as number;
      let c = 0;
      let value = 0;
      let overlap = 0;
      for (let k = 0; k < K; k++) {
        const p = pd[k] as number;
        if (p === 0) continue;
        // NaN (unknown) propagates: an unknown cost is never counted as 0.
        c += p * (cost[j * K + k] as number);
        pass.usage[k]! += p;
        value += p * (useEstimates ? (sHat[j * K + k] as number) : Number.NaN);
        overlap += p * (prevPd[k] as number);
      }
      epCost += c;
      if (j > start) switches += 1 - overlap;
      if (pass.firstDivergence[e] === -1 && a !== lg) pass.firstDivergence[e] = st.t;
      // OPE terms; the logged policy is the behaviour policy itself (ρ = 1, V̂ = Q̂ of the logged model).
      const jj = j - start;
      const qj = useEstimates ? (sHat[j * K + lg] as number) : Number.NaN;
      q[jj] = qj;
      v[jj] = policy.isLogged ? qj : value;
      const mu = propensity[j] as number;
      if (Number.isNaN(mu)) opeOk = false;
      rho[jj] = policy.isLogged ? 1 : (pd[lg] as number) / mu;
      if (!policy.isLogged && unsupportedTurn(mu, pd[lg] as number)) pass.unsupported[e]!++;
      advance(data, st, j, a);
      [pd, prevPd] = [prevPd, pd];
    }
    prevPd.fill(0);
    pass.agreeTurns[e] = agree;
    pass.agreeEpisode[e] = agreeAll;
    pass.cost[e] = epCost;
    pass.switches[e] = switches;
    if (end > start) pass.dm[e] = v[0] as number;
    if (opeOk) {
      const terms = episodeOpeTerms(rho.subarray(0, end - start), q.subarray(0, end - start), v.subarray(0, end - start), data.score[e] as number);
      pass.opeOk[e] = 1;
      pass.weight[e] = terms.weight;
      pass.dr[e] = useEstimates ? terms.dr : Number.NaN;
    }
  }
  return pass;
}

export interface SummaryOptions {
  bootstrap: number;
  seed: number;
}

const finiteOrNull = (x: number): number | null => (Number.isFinite(x) ? x : null);

/**
 * Per-episode costs as per-session costs: each child episode's cost added to its session's (the root of its
 * parent chain), children themselves NaN so no mean counts them; a session with any unknown cost is NaN.
 * `unknown` counts the sessions whose cost is unknown.
 */
export function sessionCosts(data: Pick<ReplayData, 'parent'>, perEpisode: Float64Array): { cost: Float64Array; sessions: number; unknown: number } {
  const cost = Float64Array.from(perEpisode);
  for (let e = 0; e < cost.length; e++) {
    const root = data.parent[e] as number;
    if (root < 0) continue;
    cost[root] = (cost[root] as number) + (perEpisode[e] as number);
  }
  let sessions = 0;
  let unknown = 0;
  for (let e = 0; e < cost.length; e++) {
    if ((data.parent[e] as number) >= 0) cost[e] = Number.NaN;
    else {
      sessions++;
      if (Number.isNaN(cost[e] as number)) unknown++;
    }
  }
  return { cost, sessions, unknown };
}

/** Mean over the entries that are known (not NaN), weighted by the bootstrap counts when given. */
export function knownMean(x: ArrayLike<number>, count?: ArrayLike<number>): number {
  let n = 0;
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i] as number;
    const c = count ? (count[i] as number) : 1;
    if (c === 0 || Number.isNaN(v)) continue;
    n += c;
    s += c * v;
  }
  return n > 0 ? s / n : Number.NaN;
}

/** Per-episode cost of the logged choices (NaN when a turn's cost is unknown). */
export function loggedEpisodeCosts(data: ReplayData): Float64Array {
  const out = new Float64Array(data.episodeId.length);
  for (let e = 0; e < out.length; e++) {
    let c = 0;
    for (let j = data.turnStart[e] as number; j < (data.turnStart[e + 1] as number); j++) c += data.cost[j * data.K + (data.logged[j] as number)] as number;
    out[e] = c;
  }
  return out;
}

/** Picks the episodes of `mask` from an array (for OPE over the usable episodes only). */
function pick(x: Float64Array, idx: Int32Array): Float64Array {
  return Float64Array.from(idx, (i) => x[i] as number);
}

/**
 * What the summaries read of the replayed data: per episode (score, session root) and the column names, with the
 * turn count as `logged.length`. A store's replay (electron/store/clickhouse/queries/storeReplay.ts) streams the turns and
 * keeps only this.
 */
export type EpisodeLevelData = Pick<ReplayData, 'episodeId' | 'score' | 'parent' | 'sHatSource' | 'K' | 'models' | 'runs' | 'estimator' | 'outputRatio'> & {
  logged: { length: number };
};

/** The parts of a compiled policy its summary reads (a store's replay merges these over its parts). */
export type PolicyFacts = Pick<CompiledPolicy, 'canonical' | 'label' | 'notes' | 'fallbacks'>;

export function summarisePolicy(data: EpisodeLevelData, policy: PolicyFacts, pass: Omit<PolicyPass, 'choice'>, options: SummaryOptions): PolicyReplay {
  const nEp = data.episodeId.length;
  const N = data.logged.length;
  const notes = [...policy.notes];
  const sum = (x: ArrayLike<number>): number => {
    let s = 0;
    for (let i = 0; i < x.length; i++) s += x[i] as number;
    return s;
  };

  // First divergence histogram (realised choices).
  const hist = new Map<number, number>();
  const divergences: number[] = [];
  for (let e = 0; e < nEp; e++) {
    const t = pass.firstDivergence[e] as number;
    if (t < 0) continue;
    hist.set(t, (hist.get(t) ?? 0) + 1);
    divergences.push(t);
  }
  divergences.sort((a, b) => a - b);
  const median = divergences.length === 0 ? null : divergences.length % 2 === 1
    ? (divergences[(divergences.length - 1) / 2] as number)
    : ((divergences[divergences.length / 2 - 1] as number) + (divergences[divergences.length / 2] as number)) / 2;

  // Direct method and cost over all episodes.
  let dmMissing = 0;
  for (let e = 0; e < nEp; e++) if (Number.isNaN(pass.dm[e] as number)) dmMissing++;
  const dmAvailable = data.sHatSource === 'estimator' && dmMissing === 0 && nEp > 0;
  if (data.sHatSource === 'estimator' && dmMissing > 0) notes.push(`ŝ of the chosen model is missing at the first turn of ${dmMissing} episodes: no direct-method estimate`);
  const costs = sessionCosts(data, pass.cost);
  if (costs.unknown > 0) {
    notes.push(`${costs.unknown} of ${costs.sessions} episodes have an unknown cost under this policy (no cost logged and no price for a model it may choose): left out of the estimated cost`);
  }
  const [costCi, dmCi] = bootstrapIntervals(nEp, options.bootstrap, options.seed, 2, (count, out) => {
    out[0] = knownMean(costs.cost, count);
    out[1] = dmAvailable ? weightedMean(pass.dm, count) : Number.NaN;
  });

  // Off-policy estimates over the episodes with propensities and a score.
  const opeIdx = Int32Array.from({ length: nEp }, (_, e) => e).filter((e) => pass.opeOk[e] === 1);
  let ope: PolicyReplay['ope'] = null;
  if (opeIdx.length > 0) {
    const W = pick(pass.weight, opeIdx);
    const R = pick(data.score, opeIdx);
    const DR = pick(pass.dr, opeIdx);
    const est = opeEstimates(W, R, DR);
    const drAvailable = data.sHatSource === 'estimator' && Number.isFinite(est.dr);
    if (data.sHatSource === 'estimator' && !drAvailable) notes.push('ŝ is missing where the policy follows the log: no doubly-robust estimate');
    const none = noSupportOf(pass, opeIdx);
    if (none !== null) {
      ope = { n: opeIdx.length, ips: null, wis: null, dr: null, ess: est.ess, ci: { ips: null, wis: null, dr: null }, support: { ips: none, wis: none, dr: none } };
      notes.push(`no IPS / WIS / DR: ${none}`);
    } else {
      const [ipsCi, wisCi, drCi] = bootstrapIntervals(opeIdx.length, options.bootstrap, options.seed + 1, 3, (count, out) => {
        const b = opeEstimates(W, R, DR, count);
        out[0] = b.ips;
        out[1] = b.wis;
        out[2] = drAvailable ? b.dr : Number.NaN;
      });
      const wis = finiteOrNull(est.wis);
      const dr = drAvailable ? est.dr : null;
      const weak = (value: number | null): string | null => (value === null ? null : weakSupportReason(value, est.ess, opeIdx.length));
      ope = {
        n: opeIdx.length,
        ips: est.ips,
        wis,
        dr,
        ess: est.ess,
        ci: { ips: ipsCi ?? null, wis: wis !== null ? (wisCi ?? null) : null, dr: dr !== null ? (drCi ?? null) : null },
        support: { ips: weak(est.ips), wis: weak(wis), dr: weak(dr) },
      };
      // Equal weights (ESS = n) are the log's own mean, however few the episodes.
      if (est.ess < Math.max(30, 0.05 * opeIdx.length) && !equalWeights(est.ess, opeIdx.length)) {
        notes.push(`effective sample size ${est.ess.toFixed(1)} of ${opeIdx.length} episodes: the policy rarely follows the log, so IPS / WIS / DR rest on a few episodes and can miss its value`);
      }
    }
    if (opeIdx.length < nEp) notes.push(`off-policy estimates use the ${opeIdx.length} of ${nEp} episodes with a logged propensity on every turn and a known score`);
  }
  if (policy.fallbacks() > 0) notes.push(`kept the logged model at ${policy.fallbacks()} turns without ŝ`);

  const usage = nameKeyed<number>();
  for (let k = 0; k < data.K; k++) if ((pass.usage[k] as number) > 0) usage[data.models[k] as string] = N > 0 ? (pass.usage[k] as number) / N : 0;
  return {
    policy: policy.canonical,
    label: policy.label,
    episodes: nEp,
    turns: N,
    agreement: N > 0 ? sum(pass.agreeTurns) / N : 0,
    episode_agreement: nEp > 0 ? sum(pass.agreeEpisode) / nEp : 0,
    first_divergence: { histogram: [...hist].sort((a, b) => a[0] - b[0]).map(([t, n]) => ({ t, n })), never: nEp - divergences.length, median },
    est_score: dmAvailable ? weightedMean(pass.dm) : null,
    est_score_ci: dmAvailable ? (dmCi ?? null) : null,
    est_cost: finiteOrNull(knownMean(costs.cost)) ?? (nEp > 0 ? null : 0),
    est_cost_ci: costCi ?? null,
    switches: nEp > 0 ? weightedMean(pass.switches) : 0,
    usage,
    ope,
    notes,
  };
}

/** Why the log cannot support IPS / WIS / DR of a pass over the OPE episodes `idx` (ope.ts noSupportReason); null when it can. */
export function noSupportOf(pass: Pick<PolicyPass, 'unsupported' | 'weight'>, idx: ArrayLike<number>): string | null {
  let unsupportedTurns = 0;
  let unsupportedEpisodes = 0;
  let weightSum = 0;
  for (let i = 0; i < idx.length; i++) {
    const e = idx[i] as number;
    unsupportedTurns += pass.unsupported[e] as number;
    if ((pass.unsupported[e] as number) > 0) unsupportedEpisodes++;
    weightSum += pass.weight[e] as number;
  }
  return noSupportReason({ n: idx.length, unsupportedTurns, unsupportedEpisodes, weightSum });
}

/** The best score estimate of each policy, and which are not dominated on (cost, score). */
export function frontierOf(policies: readonly PolicyReplay[]): FrontierPoint[] {
  const points: FrontierPoint[] = [];
  for (const p of policies) {
    // An importance-weighted estimate without support is no point of the plane; the direct method then stands in.
    const pick =
      p.ope?.dr != null && p.ope.support.dr === null ? { score: p.ope.dr, ci: p.ope.ci.dr, src: 'dr' as const }
        : p.ope?.wis != null && p.ope.support.wis === null ? { score: p.ope.wis, ci: p.ope.ci.wis, src: 'wis' as const }
          : p.est_score !== null ? { score: p.est_score, ci: p.est_score_ci, src: 'dm' as const }
            : null;
    if (!pick || p.est_cost === null) continue;
    points.push({ policy: p.policy, cost: p.est_cost, cost_ci: p.est_cost_ci, score: pick.score, score_ci: pick.ci, score_source: pick.src, frontier: false });
  }
  for (const p of points) {
    p.frontier = !points.some((o) => o !== p && o.cost <= p.cost && o.score >= p.score && (o.cost < p.cost || o.score > p.score));
  }
  return points;
}

export interface ReplayRequest {
  runIds?: readonly number[];
  /** Only episodes of this split selection (shared/splits.ts). */
  split?: string;
  policies: readonly string[];
  estimator?: number;
  bootstrap?: number;
  seed?: number;
  onProgress?: (message: string) => void;
}

/** Parses, compiles and replays every policy; the result is what `replay --json` prints. */
export function replayPolicies(db: Db, request: ReplayRequest): ReplayResult {
  const specs = request.policies.map((s) => parsePolicySpec(s));
  const data = loadReplayData(db, {
    runIds: request.runIds,
    split: request.split,
    estimator: request.estimator,
    models: specs.flatMap(modelsNamed),
    onProgress: request.onProgress,
  });
  const options = { bootstrap: request.bootstrap ?? 1000, seed: request.seed ?? 1 };
  const policies: PolicyReplay[] = [];
  specs.forEach((spec, n) => {
    const policy = compilePolicy(data, spec);
    request.onProgress?.(`replaying ${policy.canonical} (${n + 1}/${specs.length}) over ${data.logged.length} turns`);
    const summary = summarisePolicy(data, policy, runPolicy(data, policy), options);
    policies.push(summary);
  });
  return replayResultOf(data, loggedEpisodeCosts(data), policies, options, data.notes);
}

/** The replay's answer from its policies' summaries and the logged episodes' scores and costs. */
export function replayResultOf(
  data: EpisodeLevelData, loggedPerEpisode: Float64Array, policies: PolicyReplay[], options: SummaryOptions, dataNotes: readonly string[],
): ReplayResult {
  let scored = 0;
  let scoreSum = 0;
  let sessions = 0;
  for (let e = 0; e < data.episodeId.length; e++) {
    if ((data.parent[e] as number) >= 0) continue;
    sessions++;
    const s = data.score[e] as number;
    if (Number.isFinite(s)) {
      scored++;
      scoreSum += s;
    }
  }
  const loggedCosts = sessionCosts(data, loggedPerEpisode);
  const nEp = data.episodeId.length;
  const notes = [...dataNotes];
  if (scored < sessions) notes.push(`${sessions - scored} of ${sessions} episodes have no outcome: left out of the logged score and of off-policy estimates, not counted as failures`);
  if (loggedCosts.unknown > 0) notes.push(`${loggedCosts.unknown} of ${sessions} episodes have an unknown logged cost: left out of the logged cost`);
  return {
    runs: data.runs,
    estimator: data.estimator,
    s_hat_source: data.sHatSource,
    episodes: nEp,
    turns: data.logged.length,
    logged: {
      score: scored > 0 ? scoreSum / scored : null,
      cost: finiteOrNull(knownMean(loggedCosts.cost)) ?? (nEp > 0 ? null : 0),
      unknown_outcome: sessions - scored,
      unknown_cost: loggedCosts.unknown,
    },
    output_ratio: Object.fromEntries(data.models.map((m, k) => [m, data.outputRatio[k] as number])),
    policies,
    frontier: frontierOf(policies),
    bootstrap: options.bootstrap,
    seed: options.seed,
    notes,
  };
}
