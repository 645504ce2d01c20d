/**
 * Paired, turn-aligned diffs (DESIGN §7; issue 7 item 3's engine):
 * - two policies over the same runs: both choose at every logged history, so the pairs are the episodes and
 *   the rows are the turns where their choices differ, with Δŝ = ŝ(h_t, b) − ŝ(h_t, a);
 * - two runs: episodes are paired by task id (the k-th episode of a task in A with the k-th in B), turns by
 *   index t, and Δŝ = ŝ(h^B_t, b) − ŝ(h^A_t, a) compares each run's estimated value-to-go at that step.
 * Differences are B − A; intervals come from one bootstrap over the pairs, so both sides of a difference
 * see the same resample.
 */
import type { PolicyDiffInput, PolicyDiffResult } from '../../shared/apiReplay.ts';
import { parsePolicySpec } from '../../shared/policySpec.ts';
import type { Db } from '../db/dbHandle.ts';
import { bootstrapIntervals } from './bootstrap.ts';
import { opeEstimates, weakSupportReason, weightedMean } from './ope.ts';
import { compilePolicy, modelsNamed } from './policies.ts';
import { loadReplayData, ReplayError, type ReplayData } from './replayData.ts';
import { loggedEpisodeCosts, noSupportOf, runPolicy, sessionCosts, type PolicyPass } from './replayRun.ts';

type Rows = PolicyDiffResult['rows'];
type Summary = PolicyDiffResult['summary'];

const orNull = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** Mean Δŝ over disagreeing turns as a ratio of per-pair sums, with its bootstrap interval. */
function meanDelta(sum: Float64Array, n: Float64Array, B: number, seed: number): Summary['mean_delta_s_hat'] {
  const ratio = (count?: Uint32Array): number => {
    let s = 0;
    let m = 0;
    for (let i = 0; i < sum.length; i++) {
      const c = count ? (count[i] as number) : 1;
      s += c * (sum[i] as number);
      m += c * (n[i] as number);
    }
    return m > 0 ? s / m : Number.NaN;
  };
  const point = ratio();
  if (!Number.isFinite(point)) return { estimate: null, ci: null };
  const [ci] = bootstrapIntervals(sum.length, B, seed, 1, (count, out) => void (out[0] = ratio(count)));
  return { estimate: point, ci: ci ?? null };
}

/**
 * B − A over the pairs where both values are known (not NaN): an unknown outcome or cost is left out, never
 * read as 0. `left_out` counts the pairs dropped.
 */
function diffOfKnown(a: Float64Array, b: Float64Array, B: number, seed: number): { estimate: number | null; ci: [number, number] | null; left_out: number } {
  const idx = Int32Array.from({ length: a.length }, (_, i) => i).filter((i) => !Number.isNaN(a[i] as number) && !Number.isNaN(b[i] as number));
  const d = diffOfMeans(Float64Array.from(idx, (i) => a[i] as number), Float64Array.from(idx, (i) => b[i] as number), B, seed);
  return { ...d, left_out: a.length - idx.length };
}

function diffOfMeans(a: Float64Array, b: Float64Array, B: number, seed: number): { estimate: number | null; ci: [number, number] | null } {
  const d = Float64Array.from(a, (x, i) => (b[i] as number) - x);
  const point = weightedMean(d);
  if (!Number.isFinite(point)) return { estimate: null, ci: null };
  const [ci] = bootstrapIntervals(d.length, B, seed, 1, (count, out) => void (out[0] = weightedMean(d, count)));
  return { estimate: point, ci: ci ?? null };
}

function policiesDiff(db: Db, input: Extract<PolicyDiffInput, { kind: 'policies' }>): PolicyDiffResult {
  const specs = [parsePolicySpec(input.a), parsePolicySpec(input.b)];
  const data = loadReplayData(db, { runIds: input.runIds ?? [], estimator: input.estimator, models: specs.flatMap(modelsNamed) });
  const [pa, pb] = specs.map((s) => compilePolicy(data, s)) as [ReturnType<typeof compilePolicy>, ReturnType<typeof compilePolicy>];
  const A = runPolicy(data, pa);
  const Bp = runPolicy(data, pb);
  const B = input.bootstrap ?? 1000;
  const seed = input.seed ?? 1;
  const limit = input.limit ?? 1000;
  const { K, sHat } = data;
  const nEp = data.episodeId.length;
  const rows: Rows = [];
  let total = 0;
  const dSum = new Float64Array(nEp);
  const dN = new Float64Array(nEp);
  for (let e = 0; e < nEp; e++) {
    for (let j = data.turnStart[e] as number; j < (data.turnStart[e + 1] as number); j++) {
      const a = A.choice[j] as number;
      const b = Bp.choice[j] as number;
      if (a === b) continue;
      total++;
      const d = sHat ? (sHat[j * K + b] as number) - (sHat[j * K + a] as number) : Number.NaN;
      if (Number.isFinite(d)) {
        dSum[e]! += d;
        dN[e]!++;
      }
      if (rows.length < limit) {
        rows.push({
          episode: data.episodeId[e] as number,
          episode_b: null,
          ext_id: data.extId[e] as string,
          task_id: data.taskId[e] ?? null,
          t: data.t[j] as number,
          a: data.models[a] as string,
          b: data.models[b] as string,
          delta_s_hat: orNull(d),
        });
      }
    }
  }
  const N = data.logged.length;
  // Cost per session (subagents folded in); sessions whose cost is unknown under either policy are left out.
  const sessions = (x: Float64Array): Float64Array => {
    const c = sessionCosts(data, x).cost;
    return Float64Array.from(c.filter((_, e) => (data.parent[e] as number) < 0));
  };
  const cost = diffOfKnown(sessions(A.cost), sessions(Bp.cost), B, seed + 2);
  const value = deltaValue(data, A, Bp, B, seed);
  // DR and WIS need the realised score: sessions without an outcome are not in them.
  let unscored = 0;
  for (let e = 0; e < nEp; e++) if ((data.parent[e] as number) < 0 && Number.isNaN(data.score[e] as number)) unscored++;
  return {
    kind: 'policies',
    a: pa.canonical,
    b: pb.canonical,
    estimator: data.estimator,
    s_hat_source: data.sHatSource,
    summary: {
      pairs: nEp,
      turns: N,
      disagreements: total,
      disagreement_rate: N > 0 ? total / N : 0,
      mean_delta_s_hat: meanDelta(dSum, dN, B, seed),
      delta_score: value,
      delta_cost: { estimate: cost.estimate, ci: cost.ci },
      unknown_outcome: value.method === 'dr' || value.method === 'wis' ? unscored : 0,
      unknown_cost: cost.left_out,
    },
    rows,
    total_rows: total,
  };
}

/** B − A in value with the best estimate both policies have: DR, then WIS, then the direct method. */
function deltaValue(data: ReplayData, A: PolicyPass, Bp: PolicyPass, B: number, seed: number): Summary['delta_score'] {
  const nEp = data.episodeId.length;
  const idx = Int32Array.from({ length: nEp }, (_, e) => e).filter((e) => A.opeOk[e] === 1);
  const take = (x: Float64Array): Float64Array => Float64Array.from(idx, (e) => x[e] as number);
  const R = take(data.score);
  const [wa, wb, da, db] = [take(A.weight), take(Bp.weight), take(A.dr), take(Bp.dr)];
  const estimator = data.sHatSource === 'estimator';
  const both = (count?: Uint32Array) => [opeEstimates(wa, R, da, count), opeEstimates(wb, R, db, count)] as const;
  if (idx.length > 0) {
    const [ea, eb] = both();
    // Only estimates the log supports for both policies (replayRun.ts summarisePolicy applies the same rules).
    const supported = noSupportOf(A, idx) === null && noSupportOf(Bp, idx) === null;
    const usable = (key: 'dr' | 'wis'): boolean =>
      supported && [ea, eb].every((x) => Number.isFinite(x[key]) && weakSupportReason(x[key], x.ess, idx.length) === null);
    const method = estimator && usable('dr') ? 'dr' : usable('wis') ? 'wis' : null;
    if (method) {
      const pick = (x: ReturnType<typeof opeEstimates>): number => (method === 'dr' ? x.dr : x.wis);
      const [ci] = bootstrapIntervals(idx.length, B, seed + 1, 1, (count, out) => {
        const [ba, bb] = both(count);
        out[0] = pick(bb) - pick(ba);
      });
      return { estimate: pick(eb) - pick(ea), ci: ci ?? null, method };
    }
  }
  if (estimator) {
    const dm = diffOfMeans(A.dm, Bp.dm, B, seed);
    if (dm.estimate !== null) return { ...dm, method: 'dm' };
  }
  return { estimate: null, ci: null, method: null };
}

function runsDiff(db: Db, input: Extract<PolicyDiffInput, { kind: 'runs' }>): PolicyDiffResult {
  if (input.runA === input.runB) throw new ReplayError('pick two different runs to compare');
  const data = loadReplayData(db, { runIds: [input.runA, input.runB], estimator: input.estimator });
  const name = (id: number): string => data.runs.find((r) => r.id === id)?.name ?? String(id);
  const B = input.bootstrap ?? 1000;
  const seed = input.seed ?? 1;
  const limit = input.limit ?? 1000;
  // Pair episodes by task id, in id order within each task.
  const byTask = new Map<string, { a: number[]; b: number[] }>();
  for (let e = 0; e < data.episodeId.length; e++) {
    const task = data.taskId[e];
    // A child episode (subagent) is part of its parent's session, not an attempt at a task of its own.
    if (task === null || task === undefined || (data.parent[e] as number) >= 0) continue;
    let slot = byTask.get(task);
    if (!slot) byTask.set(task, (slot = { a: [], b: [] }));
    if (data.runOf[e] === input.runA) slot.a.push(e);
    else if (data.runOf[e] === input.runB) slot.b.push(e);
  }
  const pairs: [number, number][] = [];
  for (const slot of byTask.values()) for (let k = 0; k < Math.min(slot.a.length, slot.b.length); k++) pairs.push([slot.a[k] as number, slot.b[k] as number]);
  pairs.sort((x, y) => (data.episodeId[x[0]] as number) - (data.episodeId[y[0]] as number));
  if (pairs.length === 0) throw new ReplayError(`runs ${name(input.runA)} and ${name(input.runB)} share no task id: nothing to align`);

  const { K, sHat } = data;
  const rows: Rows = [];
  let total = 0;
  let turns = 0;
  const n = pairs.length;
  const dSum = new Float64Array(n);
  const dN = new Float64Array(n);
  const scoreA = new Float64Array(n);
  const scoreB = new Float64Array(n);
  const costA = new Float64Array(n);
  const costB = new Float64Array(n);
  const sessionCost = sessionCosts(data, loggedEpisodeCosts(data)).cost;
  pairs.forEach(([ea, eb], p) => {
    const sa = data.turnStart[ea] as number;
    const sb = data.turnStart[eb] as number;
    const ta = (data.turnStart[ea + 1] as number) - sa;
    const tb = (data.turnStart[eb + 1] as number) - sb;
    scoreA[p] = data.score[ea] as number;
    scoreB[p] = data.score[eb] as number;
    costA[p] = sessionCost[ea] as number;
    costB[p] = sessionCost[eb] as number;
    for (let t = 0; t < Math.max(ta, tb); t++) {
      turns++;
      const a = t < ta ? (data.logged[sa + t] as number) : -1;
      const b = t < tb ? (data.logged[sb + t] as number) : -1;
      if (a === b) continue;
      total++;
      const d = sHat && a >= 0 && b >= 0 ? (sHat[(sb + t) * K + b] as number) - (sHat[(sa + t) * K + a] as number) : Number.NaN;
      if (Number.isFinite(d)) {
        dSum[p]! += d;
        dN[p]!++;
      }
      if (rows.length < limit) {
        rows.push({
          episode: data.episodeId[ea] as number,
          episode_b: data.episodeId[eb] as number,
          ext_id: data.extId[ea] as string,
          task_id: data.taskId[ea] ?? null,
          t,
          a: a >= 0 ? (data.models[a] as string) : null,
          b: b >= 0 ? (data.models[b] as string) : null,
          delta_s_hat: orNull(d),
        });
      }
    }
  });
  // A logged episode without an outcome cannot be half of a paired comparison: such pairs are left out and counted.
  const score = diffOfKnown(scoreA, scoreB, B, seed + 1);
  const cost = diffOfKnown(costA, costB, B, seed + 2);
  return {
    kind: 'runs',
    a: name(input.runA),
    b: name(input.runB),
    estimator: data.estimator,
    s_hat_source: data.sHatSource,
    summary: {
      pairs: n,
      turns,
      disagreements: total,
      disagreement_rate: turns > 0 ? total / turns : 0,
      mean_delta_s_hat: meanDelta(dSum, dN, B, seed),
      delta_score: { estimate: score.estimate, ci: score.ci, method: score.estimate === null ? null : 'logged' },
      delta_cost: { estimate: cost.estimate, ci: cost.ci },
      unknown_outcome: score.left_out,
      unknown_cost: cost.left_out,
    },
    rows,
    total_rows: total,
  };
}

export function policyDiff(db: Db, input: PolicyDiffInput): PolicyDiffResult {
  return input.kind === 'policies' ? policiesDiff(db, input) : runsDiff(db, input);
}
