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
