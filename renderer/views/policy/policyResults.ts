/**
 * What the policy lab shows of a replay, as pure functions of the API's answers: the points of the
 * score/cost figure under the estimator the user picked, the CSV of the results table and of a paired diff,
 * and the sentences that explain empty columns (no ŝ, no propensities).
 */
import { supportByReason, type PolicyDiffResult, type PolicyReplay, type ReplayResult } from '../../../shared/apiReplay.ts';
import { toCsv } from '../../../shared/charts/csv.ts';
import { exportDate, figureExportName } from '../../../shared/charts/figureCaption.ts';
import type { FrontierPolicy } from '../../../shared/charts/layouts/policyFrontier.ts';

/** Which value the figure plots: the best each policy has (DR, else WIS, else DM, as the core ranks them) or one estimator. */
export type ScoreEstimator = 'best' | 'dm' | 'ips' | 'wis' | 'dr';

export const SCORE_ESTIMATORS: readonly { id: ScoreEstimator; label: string; title: string }[] = [
  { id: 'best', label: 'Best', title: 'Doubly robust where the log supports it, else weighted IPS, else the direct method' },
  { id: 'dm', label: 'DM', title: 'Direct method: the estimator’s ŝ under the policy’s first choice' },
  { id: 'ips', label: 'IPS', title: 'Per-decision importance sampling with the logged propensities' },
  { id: 'wis', label: 'WIS', title: 'Weighted (self-normalised) importance sampling' },
  { id: 'dr', label: 'DR', title: 'Doubly robust: DM corrected by importance-weighted residuals' },
];

export const ESTIMATOR_NAME: Record<Exclude<ScoreEstimator, 'best'>, string> = { dm: 'DM', ips: 'IPS', wis: 'WIS', dr: 'DR' };

type Interval = readonly [number, number];

/** A policy's value under one estimator, with its CI, or why there is none. */
export function scoreOf(p: PolicyReplay, estimator: Exclude<ScoreEstimator, 'best'>): { score: number | null; ci: Interval | null; missing: string | null } {
  if (estimator === 'dm') return { score: p.est_score, ci: p.est_score_ci, missing: p.est_score === null ? 'no ŝ from an estimator' : null };
  if (!p.ope) return { score: null, ci: null, missing: 'no logged propensities' };
  // An estimate without support in the log is no point of the figure, whatever its value.
  const unsupported = p.ope.support[estimator];
  if (unsupported !== null) return { score: null, ci: null, missing: unsupported };
  const score = p.ope[estimator];
  const why = estimator === 'dr' ? 'DR needs an estimator' : 'no episode with a non-zero weight';
  return { score, ci: p.ope.ci[estimator], missing: score === null ? why : null };
}

/** Why the importance-weighted estimates were passed over for a policy's point, one line per reason. */
function unsupportedDetails(p: PolicyReplay): string[] {
  if (!p.ope) return [];
  return supportByReason(p.ope).map(([why, keys]) => `${keys.map((k) => ESTIMATOR_NAME[k]).join(' / ')} not used: ${why}`);
}

/** The figure's points: one per replayed policy, in the table's order, coloured by position. */
export function frontierPolicies(result: ReplayResult, estimator: ScoreEstimator, color: (index: number) => string): FrontierPolicy[] {
  const best = new Map(result.frontier.map((f) => [f.policy, f]));
  return result.policies.map((p, i) => {
    const details = [`agreement with the log: ${(p.agreement * 100).toFixed(1)}% of turns`, `switches: ${p.switches.toFixed(2)} per episode`, `${p.episodes} episodes`];
    if (estimator === 'best') {
      const f = best.get(p.policy);
      return {
        policy: p.policy,
        cost: p.est_cost,
        costCi: p.est_cost_ci,
        score: f?.score ?? null,
        ci: f?.score_ci ?? null,
        color: color(i),
        missing: f ? undefined : 'no score estimate',
        details: f ? [`estimate: ${f.score_source.toUpperCase()}`, ...unsupportedDetails(p), ...details] : [...unsupportedDetails(p), ...details],
      };
    }
    const s = scoreOf(p, estimator);
    return { policy: p.policy, cost: p.est_cost, costCi: p.est_cost_ci, score: s.score, ci: s.ci, color: color(i), missing: s.missing ?? undefined, details };
  });
}

export function estimatorLabel(estimator: ScoreEstimator): string {
  return estimator === 'best' ? 'best of DR / WIS / DM' : ESTIMATOR_NAME[estimator];
}

const lo = (ci: Interval | null | undefined) => ci?.[0] ?? null;
const hi = (ci: Interval | null | undefined) => ci?.[1] ?? null;

/** The results table as CSV: one row per policy, every figure with its CI bounds as their own columns. */
export function replayCsv(result: ReplayResult): string {
  const header = [
    'policy', 'label', 'episodes', 'turns', 'agreement', 'episode_agreement', 'first_divergence_median', 'never_diverges',
    'est_score', 'est_score_lo', 'est_score_hi', 'est_cost', 'est_cost_lo', 'est_cost_hi', 'switches',
    'ope_n', 'ips', 'ips_lo', 'ips_hi', 'wis', 'wis_lo', 'wis_hi', 'dr', 'dr_lo', 'dr_hi', 'ess',
    'ips_support', 'wis_support', 'dr_support',
    's_hat_source', 'estimator', 'runs',
  ];
  const runs = result.runs.map((r) => r.name).join(' + ');
  const rows = result.policies.map((p) => [
    p.policy, p.label, p.episodes, p.turns, p.agreement, p.episode_agreement, p.first_divergence.median, p.first_divergence.never,
    p.est_score, lo(p.est_score_ci), hi(p.est_score_ci), p.est_cost, lo(p.est_cost_ci), hi(p.est_cost_ci), p.switches,
    p.ope?.n ?? null, p.ope?.ips ?? null, lo(p.ope?.ci.ips), hi(p.ope?.ci.ips), p.ope?.wis ?? null, lo(p.ope?.ci.wis), hi(p.ope?.ci.wis),
    p.ope?.dr ?? null, lo(p.ope?.ci.dr), hi(p.ope?.ci.dr), p.ope?.ess ?? null,
    p.ope?.support.ips ?? null, p.ope?.support.wis ?? null, p.ope?.support.dr ?? null,
    result.s_hat_source, result.estimator?.name ?? null, runs,
  ]);
  return toCsv(header, rows);
}

/** The disagreement rows of a paired diff as CSV. */
export function diffCsv(diff: PolicyDiffResult): string {
  return toCsv(
    ['episode', 'episode_b', 'ext_id', 'task_id', 'turn', `choice_a (${diff.a})`, `choice_b (${diff.b})`, 'delta_s_hat'],
    diff.rows.map((r) => [r.episode, r.episode_b, r.ext_id, r.task_id, r.t, r.a, r.b, r.delta_s_hat]),
  );
}

/** Why the OPE columns are empty, or null when at least one policy has OPE numbers. */
export function opeNote(result: ReplayResult): string | null {
  if (result.policies.some((p) => p.ope !== null)) {
    if (result.s_hat_source !== 'estimator') return 'DR needs ŝ from an estimator; IPS and WIS use the logged propensities only.';
    return null;
  }
  return `IPS, WIS and DR are empty: none of the ${result.episodes} replayed episodes has a logged propensity on every turn, so the log's router probabilities are unknown and importance weights cannot be formed.`;
}

/** A file name for an export: what, over which runs, today (`policy-replay_sw-mtrouter_2026-11-24.csv`). */
export function exportName(what: string, runs: readonly { name: string }[], detail?: string, date: string = exportDate()): string {
  return figureExportName(what, runs.map((r) => r.name), date, 'csv', detail);
}

/** A note under the results: said once, with the policies it is about (null: the replay as a whole, or every policy). */
export interface LabNote {
  policies: string[] | null;
  note: string;
}

/**
 * The replay's notes, each said once: the same sentence for several policies (the off-policy coverage, an
 * unknown cost) is one note naming them, and one that holds for every policy names none.
 */
export function labNotes(result: ReplayResult): LabNote[] {
  const byNote = new Map<string, string[]>();
  for (const p of result.policies) {
    for (const note of new Set(p.notes)) byNote.set(note, [...(byNote.get(note) ?? []), p.policy]);
  }
  const all = result.policies.length;
  const shared = [...result.notes].filter((n) => !byNote.has(n)).map((note) => ({ policies: null, note }));
  const grouped = [...byNote].map(([note, policies]) => ({ policies: all > 1 && policies.length === all ? null : policies, note }));
  return [...shared, ...grouped];
}
