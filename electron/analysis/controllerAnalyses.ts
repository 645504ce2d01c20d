/**
 * Analyses of controller-style agents (DESIGN §8):
 *  - `budget-modes` (CoRL, seed 003): per budget mode, mean score, mean cost and the expert-call ratio, overall
 *    and per training step. An expert call is a turn on a model other than the episode's first (the
 *    controller's) model; the ratio is the share of episodes with at least one.
 *  - `usage-ratio` (critique-and-route, seed 002): each model's share of all calls, against targets ρ_k when
 *    given; accuracy by the episode's turn limit; the share of episodes that used their whole turn budget.
 *  - `confusion` (seed 002): routing confusion (task difficulty × routed model, row shares) and verification
 *    confusion (verdict × whether the draft was correct).
 * Episode-level numbers are over sessions (a child episode's cost is in its parent's) and leave unknown
 * outcomes and costs out of their means, counted in `coverage`; calls are turns, children's included.
 */
import type { Db } from '../db/dbHandle.ts';
import type { BudgetModesResult, ConfusionResult, EpisodeCoverage, UsageRatioResult } from '../../shared/analysisResults.ts';
import { ownValue } from '../../shared/nameKeyed.ts';
import { bootstrapMeanInterval } from '../../shared/bootstrapMean.ts';
import { wilsonInterval } from '../../shared/formulas.ts';
import { columnar, modelSlots, selectEpisodes, sharesOf, type ColumnarData } from './columnar.ts';
import { loggedUsageTargets } from './usageTargets.ts';

/**
 * Sums over a group of sessions: all, scored (known score), costed (known cost), with an expert call; and the
 * known scores and costs themselves, which the means' bootstrap intervals resample.
 */
export interface Acc {
  n: number;
  score: number;
  scored: number;
  cost: number;
  costed: number;
  expert: number;
  scores: number[];
  costs: number[];
}

export const emptyAcc = (): Acc => ({ n: 0, score: 0, scored: 0, cost: 0, costed: 0, expert: 0, scores: [], costs: [] });
const emptyCoverage = (): EpisodeCoverage => ({ episodes: 0, unknown_outcome: 0, unknown_cost: 0 });

function callsExpert(data: ColumnarData, e: number): boolean {
  const start = data.turnStart[e] as number;
  for (let i = start + 1; i < (data.turnStart[e + 1] as number); i++) if (data.turnModel[i] !== data.turnModel[start]) return true;
  return false;
}

function add(acc: Acc, data: ColumnarData, e: number): void {
  acc.n++;
  const s = data.episodeScoreNorm[e] as number;
  if (!Number.isNaN(s)) {
    acc.score += s;
    acc.scored++;
    acc.scores.push(s);
  }
  const c = data.episodeCost[e] as number;
  if (!Number.isNaN(c)) {
    acc.cost += c;
    acc.costed++;
    acc.costs.push(c);
  }
  if (callsExpert(data, e)) acc.expert++;
}

const summary = (a: Acc) => ({
  n: a.n,
  mean_score: a.scored ? a.score / a.scored : null,
  mean_cost: a.costed ? a.cost / a.costed : null,
  expert_call_ratio: a.n ? a.expert / a.n : 0,
  // A mean of scores or costs over sessions: resampled; a share of sessions: Wilson's interval, good at any n.
  ci: {
    mean_score: bootstrapMeanInterval(a.scores),
    mean_cost: bootstrapMeanInterval(a.costs),
    expert_call_ratio: a.n ? wilsonInterval(a.expert, a.n) : null,
  },
});

export function budgetModesAnalysis(db: Db, options: { runs?: string[]; split?: string } = {}): BudgetModesResult {
  const data = columnar(db);
  const byMode = new Map<number, { all: Acc; steps: Map<number, Acc> }>();
  const coverage = emptyCoverage();
  // Runs of the selection with a session, and whether one has a budget mode: those without are named, not dropped silently.
  const runHasMode = new Map<number, boolean>();
  for (const e of selectEpisodes(data, options.runs, options.split)) {
    if ((data.episodeParent[e] as number) >= 0) continue;
    const mode = data.episodeBudgetMode[e] as number;
    const run = data.episodeRun[e] as number;
    runHasMode.set(run, (runHasMode.get(run) ?? false) || mode >= 0);
    if (mode < 0) continue;
    coverage.episodes++;
    if (Number.isNaN(data.episodeScoreNorm[e] as number)) coverage.unknown_outcome++;
    if (Number.isNaN(data.episodeCost[e] as number)) coverage.unknown_cost++;
    let g = byMode.get(mode);
    if (!g) byMode.set(mode, (g = { all: emptyAcc(), steps: new Map() }));
    add(g.all, data, e);
    const step = data.episodeTrainStep[e] as number;
    if (step >= 0) {
      let s = g.steps.get(step);
      if (!s) g.steps.set(step, (s = emptyAcc()));
      add(s, data, e);
    }
  }
  const without = [...runHasMode].filter(([, has]) => !has).map(([run]) => data.runs.get(run) ?? String(run));
  return budgetModesOf(
    [...byMode].map(([mode, g]) => ({ mode: data.budgetModes[mode] as string, all: g.all, steps: [...g.steps] })),
    coverage,
    without,
  );
}

/**
 * Each mode's sums (overall and per training step) → means and ratios with their intervals, modes low, medium, high
 * first; `without`: the selected runs with no session in a budget mode. Shared with the ClickHouse store.
 */
export function budgetModesOf(groups: { mode: string; all: Acc; steps: [number, Acc][] }[], coverage: EpisodeCoverage, without: readonly string[] = []): BudgetModesResult {
  const order = ['low', 'medium', 'high'];
  const rank = (m: string): number => (order.includes(m) ? order.indexOf(m) : order.length);
  const modes = groups
    .map((g) => ({
      mode: g.mode,
      ...summary(g.all),
      by_train_step: [...g.steps].sort((a, b) => a[0] - b[0]).map(([step, a]) => ({ train_step: step, ...summary(a) })),
    }))
    .sort((a, b) => rank(a.mode) - rank(b.mode) || a.mode.localeCompare(b.mode));
  return { modes, ...(without.length ? { runs_without_modes: [...without].sort((a, b) => a.localeCompare(b)) } : {}), coverage };
}

export function usageRatioAnalysis(db: Db, options: { runs?: string[]; split?: string; rho?: Record<string, number> } = {}): UsageRatioResult {
  const data = columnar(db);
  const { slotOf, ids } = modelSlots(data);
  const byRun = new Map<number, { calls: Uint32Array; total: number; byMax: Map<number, { n: number; ok: number }>; exhausted: number; withLimit: number }>();
  const coverage = emptyCoverage();
  for (const e of selectEpisodes(data, options.runs, options.split)) {
    const run = data.episodeRun[e] as number;
    let g = byRun.get(run);
    if (!g) byRun.set(run, (g = { calls: new Uint32Array(ids.length), total: 0, byMax: new Map(), exhausted: 0, withLimit: 0 }));
    const start = data.turnStart[e] as number;
    const end = data.turnStart[e + 1] as number;
    for (let i = start; i < end; i++) {
      const k = slotOf[data.turnModel[i] as number] as number;
      g.calls[k] = (g.calls[k] as number) + 1;
    }
    g.total += end - start;
    const limit = data.episodeMaxTurns[e] as number;
    if (limit > 0 && (data.episodeParent[e] as number) < 0) {
      coverage.episodes++;
      if (data.episodeSuccess[e] === -1) coverage.unknown_outcome++;
      g.withLimit++;
      if (end - start >= limit) g.exhausted++;
      const b = g.byMax.get(limit) ?? { n: 0, ok: 0 };
      if (data.episodeSuccess[e] !== -1) {
        b.n++;
        if (data.episodeSuccess[e] === 1) b.ok++;
      }
      g.byMax.set(limit, b);
    }
  }
  return usageRatioOf(
    [...byRun].map(([run, g]) => ({
      run: data.runs.get(run) ?? String(run),
      total: g.total,
      calls: ids.map((m, slot) => [data.models.get(m) ?? String(m), g.calls[slot] as number] as [string, number]),
      byMax: [...g.byMax],
      exhausted: g.exhausted,
      withLimit: g.withLimit,
    })),
    options.rho,
    coverage,
    loggedUsageTargets(db, [...byRun.keys()]),
  );
}

export interface UsageCounts {
  run: string;
  /** Calls per model, in the order ties keep (models by id here, by name on a ClickHouse store). */
  calls: [string, number][];
  total: number;
  byMax: [number, { n: number; ok: number }][];
  exhausted: number;
  withLimit: number;
}

/**
 * Per run: calls per model → ratios against ρ, accuracy by turn limit, share exhausting it. A model's ρ is the
 * request's, else the one the run's log states (`logged`, usageTargets.ts). Shared with the ClickHouse store.
 */
export function usageRatioOf(
  counts: UsageCounts[], rho: Record<string, number> | undefined, coverage: EpisodeCoverage, logged: ReadonlyMap<string, Record<string, number>> = new Map(),
): UsageRatioResult {
  const runs = counts.map((g) => {
    const stated = logged.get(g.run);
    return {
      run: g.run,
      calls: g.total,
      usage: g.calls
        .map((x, i) => [...x, i] as const)
        .filter(([, k]) => k > 0)
        .sort((a, b) => b[1] - a[1] || a[2] - b[2])
        .map(([model, k]) => {
          const asked = rho === undefined ? undefined : ownValue(rho, model);
          const target = asked ?? (stated && ownValue(stated, model));
          const from = asked !== undefined ? ('request' as const) : target !== undefined ? ('log' as const) : undefined;
          return {
            model, calls: k, ratio: k / g.total, rho: target ?? null, over_target: target === undefined ? null : k / g.total > target, ...(from ? { rho_from: from } : {}),
          };
        }),
      accuracy_by_max_turns: [...g.byMax].sort((a, b) => a[0] - b[0]).map(([max_turns, b]) => ({ max_turns, n: b.n, accuracy: b.n ? b.ok / b.n : null })),
      exhausted_turn_budget: g.withLimit ? g.exhausted / g.withLimit : null,
      ...(stated ? { logged_rho: stated } : {}),
    };
  });
  return { runs: runs.sort((a, b) => a.run.localeCompare(b.run)), coverage };
}

export function confusionAnalysis(db: Db, options: { runs?: string[]; split?: string } = {}): ConfusionResult {
  const data = columnar(db);
  const { slotOf, ids } = modelSlots(data);
  const M = ids.length;
  const routing = new Map<number, Uint32Array>(); // difficulty → calls per model slot
  // [stop correct, stop incorrect, continue correct, continue incorrect]
  const verify = new Uint32Array(4);
  for (const e of selectEpisodes(data, options.runs, options.split)) {
    const d = data.episodeDifficulty[e] as number;
    let row: Uint32Array | undefined;
    if (!Number.isNaN(d)) {
      row = routing.get(d);
      if (!row) routing.set(d, (row = new Uint32Array(M)));
    }
    for (let i = data.turnStart[e] as number; i < (data.turnStart[e + 1] as number); i++) {
      if (row) {
        const k = slotOf[data.turnModel[i] as number] as number;
        row[k] = (row[k] as number) + 1;
      }
      const verdict = data.turnVerdict[i] as number;
      const correct = data.turnVerifyCorrect[i] as number;
      if (verdict >= 0 && correct >= 0) {
        const k = (verdict === 1 ? 0 : 2) + (correct === 1 ? 0 : 1);
        verify[k] = (verify[k] as number) + 1;
      }
    }
  }
  const routingRows = [...routing].sort((a, b) => a[0] - b[0]).map(([difficulty, row]) => ({ difficulty, ...sharesOf(data, ids, row, 0) }));
  return {
    routing: routingRows,
    verification: { stop_correct: verify[0] as number, stop_incorrect: verify[1] as number, continue_correct: verify[2] as number, continue_incorrect: verify[3] as number },
  };
}
