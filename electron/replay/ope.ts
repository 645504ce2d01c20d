/**
 * Off-policy evaluation formulas, in one place. Notation: an episode is (h_0, a_0, …, h_{T−1}, a_{T−1}) with
 * the terminal score R = score_norm (no intermediate reward), μ(a_t|h_t) the logged propensity of the chosen
 * model, π the target policy, ρ_t = π(a_t|h_t) / μ(a_t|h_t) and w_t = Π_{k≤t} ρ_k (w_{−1} = 1). A
 * deterministic target has π(a|h) ∈ {0, 1}. Q̂(h, a) = ŝ(h, a) and V̂(h) = Σ_a π(a|h) Q̂(h, a).
 *
 * - Per-decision IPS (Precup, Sutton & Singh 2000): Σ_t w_t r_t; with only a terminal reward this is the
 *   trajectory-wise estimator w_{T−1}·R. Value = mean over episodes.
 * - Weighted IPS (self-normalised; Precup et al. 2000, Mahmood et al. 2014): Σ_i W_i R_i / Σ_i W_i with
 *   W_i = w_{T−1} of episode i. Biased but consistent, bounded by the range of R.
 * - Doubly robust (Jiang & Li 2016, Eq. 10, γ = 1): V_DR = V̂(h_0) + Σ_t w_t (r_t + V̂(h_{t+1}) − Q̂(h_t, a_t))
 *   with V̂(h_T) = 0; with the terminal reward folded in, V̂(h_T) is replaced by R. Unbiased when μ is right,
 *   whatever Q̂; low variance when Q̂ is good.
 * - Effective sample size (Kish 1965): (Σ_i W_i)² / Σ_i W_i².
 * - Direct method: mean over episodes of V̂(h_0).
 */

/** What one episode contributes: its trajectory weight W = w_{T−1} and its doubly-robust value. */
export interface EpisodeOpeTerms {
  weight: number;
  /** NaN when a Q̂ or V̂ the estimator needs is missing. */
  dr: number;
}

/**
 * One episode's terms. rho[t] = π(a_t|h_t)/μ(a_t|h_t); q[t] = Q̂(h_t, a_t); v[t] = V̂(h_t); r = terminal score.
 * A term whose weight is 0 contributes nothing, so missing Q̂ / V̂ after the policy left the log do not matter.
 */
export function episodeOpeTerms(rho: ArrayLike<number>, q: ArrayLike<number>, v: ArrayLike<number>, r: number): EpisodeOpeTerms {
  const T = rho.length;
  let w = 1;
  let dr = T > 0 ? (v[0] as number) : r;
  for (let t = 0; t < T; t++) {
    w *= rho[t] as number;
    if (w === 0) break;
    const next = t + 1 < T ? (v[t + 1] as number) : r;
    dr += w * (next - (q[t] as number));
  }
  return { weight: w, dr };
}

export interface OpeEstimates {
  ips: number;
  /** NaN when every weight is 0. */
  wis: number;
  /** NaN when any episode's DR term is NaN. */
  dr: number;
  ess: number;
}

/**
 * The estimators over episodes i with weight W[i], score R[i] and DR term DR[i]; `count` (bootstrap
 * multiplicities) weights each episode, all ones when omitted.
 */
export function opeEstimates(W: ArrayLike<number>, R: ArrayLike<number>, DR: ArrayLike<number>, count?: ArrayLike<number>): OpeEstimates {
  let n = 0;
  let sw = 0;
  let sw2 = 0;
  let swr = 0;
  let sdr = 0;
  for (let i = 0; i < W.length; i++) {
    const c = count ? (count[i] as number) : 1;
    if (c === 0) continue;
    const w = W[i] as number;
    n += c;
    sw += c * w;
    sw2 += c * w * w;
    swr += c * w * (R[i] as number);
    sdr += c * (DR[i] as number);
  }
  return {
    ips: n > 0 ? swr / n : Number.NaN,
    wis: sw > 0 ? swr / sw : Number.NaN,
    dr: n > 0 ? sdr / n : Number.NaN,
    ess: sw2 > 0 ? (sw * sw) / sw2 : 0,
  };
}

/** Mean of x weighted by bootstrap multiplicities (NaN when empty). */
export function weightedMean(x: ArrayLike<number>, count?: ArrayLike<number>): number {
  let n = 0;
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const c = count ? (count[i] as number) : 1;
    if (c === 0) continue;
    n += c;
    s += c * (x[i] as number);
  }
  return n > 0 ? s / n : Number.NaN;
}

/**
 * Below this effective sample size an importance-weighted estimate rests on a handful of episodes: shown as
 * insufficient support, not as a value (issue 35: argmax plotted at 1.031 on a 0–1 scale with an ESS of 1.9).
 */
export const MIN_ESS = 10;

/** R is score_norm, which every importer scales into [0, 1]; an estimate outside it is not a value of a policy. */
export const SCORE_RANGE: readonly [number, number] = [0, 1];

/** A logged propensity this close to 1 is a deterministic choice (floating-point noise in the logs aside). */
const CERTAIN = 1 - 1e-9;

/**
 * Whether π may take a model the logging router never takes at this turn: μ(a_logged|h) = 1 leaves every other
 * model probability 0, so π(a_logged|h) < 1 puts mass where the log has no support and no importance weight
 * can reach it (the estimators then count those episodes as scoring 0).
 */
export function unsupportedTurn(mu: number, piOfLogged: number): boolean {
  return mu >= CERTAIN && piOfLogged < CERTAIN;
}

/** Why IPS / WIS / DR cannot be computed at all for a policy; null when the log supports it. */
export function noSupportReason(facts: { n: number; unsupportedTurns: number; unsupportedEpisodes: number; weightSum: number }): string | null {
  if (facts.unsupportedTurns > 0) {
    return `no support in the log: at ${facts.unsupportedTurns} turns of ${facts.unsupportedEpisodes} episodes the logging router's choice had propensity 1 (a deterministic logger) and this policy may choose another model there, which the log never shows`;
  }
  if (facts.n > 0 && facts.weightSum === 0) {
    return `no support in the log: this policy departs from the logged choices in all ${facts.n} episodes (every importance weight is 0)`;
  }
  return null;
}

/** Whether the weights of n episodes are all equal (Kish's ESS reaches n only then): an on-policy mean, not a reweighting. */
export function equalWeights(ess: number, n: number): boolean {
  return ess >= n * (1 - 1e-9);
}

/**
 * Why a computed importance-weighted estimate is not to be trusted; null when it is. Equal weights (ESS = n: the
 * logger itself, or a policy agreeing with a deterministic log everywhere) make an on-policy mean, which a small
 * run's interval already qualifies, so a run of under 10 episodes flags only policies that reweight it.
 */
export function weakSupportReason(value: number, ess: number, n: number): string | null {
  if (ess < MIN_ESS && !equalWeights(ess, n)) return `insufficient support: an effective sample size of ${ess.toFixed(1)} of ${n} episodes (under ${MIN_ESS})`;
  if (value < SCORE_RANGE[0] || value > SCORE_RANGE[1]) {
    return `insufficient support: ${value.toFixed(3)} lies outside the score range [${SCORE_RANGE[0]}, ${SCORE_RANGE[1]}]`;
  }
  return null;
}
