/**
 * Policies as data, compiled against one replay's data (shared/policySpec.ts has the grammar). A compiled
 * policy chooses a column (model) for turn i along the logged history, given its own episode state: what
 * its own earlier choices would have cost and its previous choice. Every policy except `random` is
 * deterministic (π(a|h) ∈ {0, 1}); `random` is uniform over the turn's candidates and draws its realised
 * choice from (seed, episode, t), so a replay does not depend on the order episodes are visited.
 *
 * Score-driven policies break ties towards the lower column; where no candidate of a turn has ŝ they keep
 * the logged model (counted in the notes).
 */
import { describePolicy, formatPolicySpec, MODE_BUDGET_USD, needsScores, type PolicySpec, type UsageConstraint } from '../../shared/policySpec.ts';
import { candidatesOf, ReplayError, type ReplayData } from './replayData.ts';
import { fmix32 } from '../../shared/random.ts';

export interface EpisodeState {
  /** Episode index in the replay data. */
  e: number;
  t: number;
  /** Estimated cost of this policy's own choices so far in the episode. */
  spent: number;
  /** Its previous choice (-1 at the first turn). */
  prev: number;
}

export interface CompiledPolicy {
  spec: PolicySpec;
  canonical: string;
  label: string;
  /** `logged` is the behaviour policy itself: its importance weights are 1. */
  isLogged: boolean;
  stochastic: boolean;
  /** The choice at turn i (for `random`, the seeded draw). */
  choose(i: number, st: EpisodeState): number;
  /** π(·|h_i) into out (length K); only called for stochastic policies. */
  dist(i: number, st: EpisodeState, out: Float64Array): void;
  /** Fitted parameters, filled while compiling. */
  notes: string[];
  /** Turns so far where a score-driven policy kept the logged model for lack of ŝ. */
  fallbacks(): number;
}

/** Moves a policy's episode state past turn i, where it chose column a. */
export function advance(data: ReplayData, st: EpisodeState, i: number, a: number): void {
  const c = data.cost[i * data.K + a] as number;
  st.spent += Number.isNaN(c) ? 0 : c;
  st.prev = a;
}

/** Models a spec names, which the data must give a column. */
export function modelsNamed(spec: PolicySpec): string[] {
  if (spec.kind === 'fixed') return [spec.model];
  if (spec.kind === 'usage') return spec.constraints.map((c) => c.model);
  return [];
}

/** murmur3 fmix32 over (seed, episode id, t): the random policy's draw, independent of visiting order. */
function hash3(a: number, b: number, c: number): number {
  return fmix32(Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35) ^ Math.imul(c + 0x165667b1, 0x27d4eb2f));
}

const costOr0 = (x: number): number => (Number.isNaN(x) ? 0 : x);

export function compilePolicy(data: ReplayData, spec: PolicySpec): CompiledPolicy {
  const canonical = formatPolicySpec(spec);
  if (needsScores(spec) && !data.sHat) {
    throw new ReplayError(
      `policy "${canonical}" needs ŝ, and these runs have neither estimates nor logged candidate scores: score them first (routelens score --db F --model M.onnx) or pass --model M.onnx`,
    );
  }
  const { K, sHat, cost, logged } = data;
  const notes: string[] = [];
  let fallbacks = 0;
  const column = (model: string): number => {
    const k = data.models.indexOf(model);
    if (k < 0) throw new ReplayError(`policy "${canonical}": no model named "${model}" in these runs`);
    return k;
  };
  /** argmax over allowed candidates with ŝ of ŝ − penalty(k); -1 when there is none. */
  const argBest = (i: number, penalty: (k: number) => number, allowed: (k: number) => boolean = () => true): number => {
    let arg = -1;
    let top = -Infinity;
    for (const k of candidatesOf(data, i)) {
      const s = (sHat as Float64Array)[i * K + k] as number;
      if (Number.isNaN(s) || !allowed(k)) continue;
      const v = s - penalty(k);
      if (v > top || arg < 0) {
        top = v;
        arg = k;
      }
    }
    return arg;
  };
  /** argBest, keeping the logged model where no candidate has ŝ. */
  const best = (i: number, penalty: (k: number) => number): number => {
    const arg = argBest(i, penalty);
    if (arg >= 0) return arg;
    fallbacks++;
    return logged[i] as number;
  };
  const cheapest = (i: number): number => {
    let arg = logged[i] as number;
    let low = Infinity;
    for (const k of candidatesOf(data, i)) {
      const c = cost[i * K + k] as number;
      const v = Number.isNaN(c) ? Infinity : c;
      if (v < low) {
        low = v;
        arg = k;
      }
    }
    return arg;
  };
  /** Highest ŝ among models the remaining budget affords, keeping the cheapest model's cost for the expected steps left. */
  const budgeted = (usd: number) => (i: number, st: EpisodeState): number => {
    let minCost = Infinity;
    for (const k of candidatesOf(data, i)) minCost = Math.min(minCost, costOr0(cost[i * K + k] as number));
    if (!Number.isFinite(minCost)) minCost = 0;
    const stepsLeft = Math.max(0, (data.expectedSteps[st.e] as number) - st.t - 1);
    const room = usd - st.spent - minCost * stepsLeft;
    const choice = argBest(i, () => 0, (k) => costOr0(cost[i * K + k] as number) <= room);
    if (choice >= 0) return choice;
    return argBest(i, () => 0) >= 0 ? cheapest(i) : best(i, () => 0);
  };

  const base = { spec, canonical, label: describePolicy(spec), isLogged: false, stochastic: false, notes, dist: noDist, fallbacks: () => fallbacks };
  let policy: CompiledPolicy;
  switch (spec.kind) {
    case 'logged':
      policy = { ...base, isLogged: true, choose: (i) => logged[i] as number };
      break;
    case 'argmax':
      policy = { ...base, choose: (i) => best(i, () => 0) };
      break;
    case 'cost-aware': {
      const { lambda } = spec;
      policy = { ...base, choose: (i) => best(i, (k) => lambda * costOr0(cost[i * K + k] as number)) };
      break;
    }
    case 'budget':
      policy = { ...base, choose: budgeted(spec.usd) };
      break;
    case 'mode':
      policy = { ...base, choose: budgeted(MODE_BUDGET_USD[spec.mode]) };
      break;
    case 'fixed': {
      const k = column(spec.model);
      policy = { ...base, choose: () => k };
      break;
    }
    case 'cheapest':
      policy = { ...base, choose: cheapest };
      break;
    case 'usage': {
      const xi = fitUsageWeights(data, spec.constraints.map((c) => ({ ...c, column: column(c.model) })), notes);
      policy = { ...base, choose: (i) => best(i, (k) => xi[k] as number) };
      break;
    }
    case 'random': {
      const { seed } = spec;
      policy = {
        ...base,
        stochastic: true,
        choose: (i, st) => {
          const c = candidatesOf(data, i);
          return c[hash3(seed, data.episodeId[st.e] as number, st.t) % c.length] as number;
        },
        dist: (i, _st, out) => {
          out.fill(0);
          const c = candidatesOf(data, i);
          for (const k of c) out[k] = 1 / c.length;
        },
      };
      break;
    }
  }
  return policy;
}

function noDist(): void {
  throw new Error('dist() is only defined for stochastic policies');
}

/**
 * Lagrange weights ξ_k for `usage:` (critique controller, seed 002 Eq. 3 / App. D): the policy is
 * argmax_a ŝ(h, a) − ξ_a, and each listed model k should get at most ρ_k of the replayed turns. For one k
 * with the others fixed, turn i goes to k iff ξ_k < δ_i = ŝ_k − max_{j≠k}(ŝ_j − ξ_j), so the smallest ξ_k ≥ 0
 * that meets the ratio is found exactly by sorting δ; coordinate rounds repeat until no ξ moves (at most 50).
 * A given `@XI` is kept as is. The achieved ratios go into the notes.
 */
export function fitUsageWeights(data: ReplayData, constraints: readonly (UsageConstraint & { column: number })[], notes: string[]): Float64Array {
  const { K, sHat } = data;
  const s = sHat as Float64Array;
  const N = data.logged.length;
  const xi = new Float64Array(K);
  for (const c of constraints) if (c.xi !== null) xi[c.column] = c.xi;
  const free = constraints.filter((c) => c.xi === null);
  const delta = new Float64Array(N);
  let rounds = 0;
  for (; rounds < 50 && free.length > 0; rounds++) {
    let moved = false;
    for (const c of free) {
      const k = c.column;
      let m = 0;
      for (let i = 0; i < N; i++) {
        const sk = s[i * K + k] as number;
        if (Number.isNaN(sk)) continue;
        let other = -Infinity;
        for (const j of candidatesOf(data, i)) {
          const sj = s[i * K + j] as number;
          if (j !== k && !Number.isNaN(sj)) other = Math.max(other, sj - (xi[j] as number));
        }
        delta[m++] = sk - other;
      }
      const sorted = delta.subarray(0, m).sort().reverse();
      const allowed = Math.floor(c.rho * N);
      // Turns with δ > ξ go to k; the (allowed+1)-th largest δ is the smallest ξ that keeps at most `allowed`.
      const threshold = allowed < m ? (sorted[allowed] as number) : -Infinity;
      const next = Number.isFinite(threshold) ? Math.max(0, threshold + 1e-12) : threshold === Infinity ? Infinity : 0;
      if (Math.abs(next - (xi[k] as number)) > 1e-12) moved = true;
      xi[k] = next;
    }
    if (!moved) break;
  }
  const usage = new Float64Array(K);
  for (let i = 0; i < N; i++) {
    let arg = -1;
    let top = -Infinity;
    for (const k of candidatesOf(data, i)) {
      const v = (s[i * K + k] as number) - (xi[k] as number);
      if (v > top) {
        top = v;
        arg = k;
      }
    }
    if (arg >= 0) usage[arg]!++;
  }
  for (const c of constraints) {
    const ratio = N > 0 ? (usage[c.column] as number) / N : 0;
    const x = xi[c.column] as number;
    notes.push(`ξ(${c.model}) = ${Number.isFinite(x) ? x.toPrecision(4) : '∞'}${c.xi === null ? ' (fitted)' : ''}: usage ${ratio.toFixed(3)} vs ρ ${c.rho}${ratio > c.rho + 1e-9 ? ' — not met (only model for some turns)' : ''}`);
  }
  return xi;
}
