/** The data behind each figure as CSV: one row per mark, columns with their units in the header. */
import {
  isPlanDagEpisode,
  type BudgetModesResult,
  type CalibrationResult,
  type EmbeddingsResult,
  type ConfusionResult,
  type ErrorRecoveryResult,
  type LiftResult,
  type ParetoResult,
  type PlanDagResult,
  type SwitchCostResult,
  type TargetsResult,
  type UsageByTurnResult,
  type UsageRatioResult,
} from '../analysisResults.ts';
import { toCsv } from './csv.ts';

export function paretoCsv(r: ParetoResult): string {
  return toCsv(
    ['run', 'episodes', 'mean_score', 'mean_cost_usd', 'frontier', 'reference', 'savings_vs_reference', 'score_delta_vs_reference'],
    r.points.map((p) => [p.run, p.n, p.mean_score, p.mean_cost, p.frontier, p.run === r.reference, p.savings_vs_reference, p.score_delta_vs_reference]),
  );
}

export function liftCsv(r: LiftResult): string {
  const rows = (run: string, cells: LiftResult['cells']) => cells.map((c) => [run, c.model, c.category, c.lift, c.ci[0], c.ci[1], c.n]);
  return toCsv(
    ['run', 'model', 'category', 'lift', 'ci_low', 'ci_high', 'n_turns'],
    [...rows('(all selected)', r.cells), ...(r.by_run ?? []).flatMap((b) => rows(b.run, b.cells))],
  );
}

/** One row per successful episode, then one per (run, t) of the cumulative-cost curve: `series` tells them apart. */
export function switchCostCsv(r: SwitchCostResult): string {
  return toCsv(
    ['series', 'run', 'episode', 'switches', 'turns', 'cost_usd', 't', 'mean_cumulative_cost_usd', 'n_episodes'],
    [
      ...r.runs.flatMap((run) => run.episodes.map((e) => ['episode', run.run, e.episode, e.switches, e.turns, e.cost, null, null, null])),
      ...r.runs.flatMap((run) => run.mean_cumulative_cost.map((p) => ['cumulative', run.run, null, null, null, null, p.t, p.mean, p.n])),
    ],
  );
}

export function errorRecoveryCsv(r: ErrorRecoveryResult): string {
  return toCsv(
    ['run', 'error_turn_pairs', 'p_switch', 'p_switch_ci_low', 'p_switch_ci_high', 'p_recover', 'p_recover_ci_low', 'p_recover_ci_high',
      'n_stay', 'p_recover_stay', 'p_recover_stay_ci_low', 'p_recover_stay_ci_high', 'n_switch', 'p_recover_switch', 'p_recover_switch_ci_low', 'p_recover_switch_ci_high'],
    r.groups.map((g) => [
      g.run, g.n, g.p_switch, ...g.ci.p_switch, g.p_recover, ...g.ci.p_recover,
      g.n_stay, g.p_recover_stay, ...g.ci.p_recover_stay, g.n_switch, g.p_recover_switch, ...g.ci.p_recover_switch,
    ]),
  );
}

export function usageByTurnCsv(r: UsageByTurnResult): string {
  return toCsv(
    ['run', 't', 'n_episodes', 'model', 'share'],
    r.runs.flatMap((run) => run.turns.flatMap((t) => Object.entries(t.shares).map(([model, share]) => [run.run, t.t, t.n, model, share]))),
  );
}

/** One row per (run, mode), then per training step; each value with its 95% interval (empty when there is none). */
export function budgetModesCsv(r: BudgetModesResult): string {
  type Summary = Omit<BudgetModesResult['modes'][number], 'mode' | 'by_train_step'>;
  const values = (m: Summary) => [
    m.n, m.mean_score, ...(m.ci.mean_score ?? [null, null]), m.mean_cost, ...(m.ci.mean_cost ?? [null, null]), m.expert_call_ratio, ...(m.ci.expert_call_ratio ?? [null, null]),
  ];
  const rows = (run: string, modes: BudgetModesResult['modes']) =>
    modes.flatMap((m) => [[run, m.mode, null, ...values(m)], ...m.by_train_step.map((s) => [run, m.mode, s.train_step, ...values(s)])]);
  return toCsv(
    ['run', 'mode', 'train_step', 'episodes', 'mean_score', 'mean_score_ci_low', 'mean_score_ci_high', 'mean_cost_usd', 'mean_cost_usd_ci_low', 'mean_cost_usd_ci_high',
      'expert_call_ratio', 'expert_call_ratio_ci_low', 'expert_call_ratio_ci_high'],
    [...rows('(all selected)', r.modes), ...(r.by_run ?? []).flatMap((b) => rows(b.run, b.modes))],
  );
}

/** Usage rows, then accuracy-by-turn-limit rows; `series` tells them apart. */
export function usageRatioCsv(r: UsageRatioResult): string {
  return toCsv(
    ['series', 'run', 'model', 'calls', 'usage_ratio', 'rho', 'over_target', 'max_turns', 'episodes', 'accuracy', 'exhausted_turn_budget'],
    r.runs.flatMap((run) => [
      ...run.usage.map((u) => ['usage', run.run, u.model, u.calls, u.ratio, u.rho, u.over_target, null, null, null, run.exhausted_turn_budget]),
      ...run.accuracy_by_max_turns.map((a) => ['accuracy', run.run, null, null, null, null, null, a.max_turns, a.n, a.accuracy, run.exhausted_turn_budget]),
    ]),
  );
}

/** Routing rows (difficulty × model shares), then the verification counts; `table` tells them apart. */
export function confusionCsv(r: ConfusionResult): string {
  const rows = (run: string, t: Pick<ConfusionResult, 'routing' | 'verification'>) => [
    ...t.routing.flatMap((row) => Object.entries(row.shares).map(([model, share]) => ['routing', run, row.difficulty, row.n, model, share, null, null, null])),
    ...(['stop', 'continue'] as const).flatMap((verdict) =>
      (['correct', 'incorrect'] as const).map((c) => ['verification', run, null, null, null, null, verdict, c, t.verification[`${verdict}_${c}`]]),
    ),
  ];
  return toCsv(
    ['table', 'run', 'difficulty', 'calls', 'model', 'share', 'verdict', 'draft', 'turns'],
    [...rows('(all selected)', r), ...(r.by_run ?? []).flatMap((b) => rows(b.run, b))],
  );
}

export function planDagCsv(r: PlanDagResult): string {
  if (isPlanDagEpisode(r)) {
    return toCsv(
      ['episode', 'run', 'mode', 'round', 'turn', 'subtask', 'model', 'primitive', 'status', 'depends_on'],
      r.rounds.flatMap((round) =>
        round.nodes.map((n) => [r.episode, r.run, r.mode, round.round, round.turn, n.id, n.model, n.primitive, n.status, round.edges.filter(([, d]) => d === n.id).map(([s]) => s).join(' ')]),
      ),
    );
  }
  return toCsv(
    ['series', 'run', 'episodes', 'mode', 'share', 'model', 'primitive', 'subtasks', 'mean_rounds_per_planned_episode', 'mean_subtasks_per_round'],
    r.runs.flatMap((run) => [
      ...Object.entries(run.mode_shares).map(([mode, share]) => ['mode', run.run, run.episodes, mode, share, null, null, null, run.mean_rounds_per_planned_episode, run.mean_subtasks_per_round]),
      ...run.model_primitive.map((u) => ['usage', run.run, run.episodes, null, null, u.model, u.primitive, u.n, null, null]),
    ]),
  );
}

export function targetsCsv(r: TargetsResult): string {
  return toCsv(['episode', 'run', 't', 's_tilde', 'penalty', 'errors'], r.turns.map((t) => [r.episode, r.run, t.t, t.s_tilde, t.penalty, t.errors.join(' ')]));
}

/** One row per (group, ŝ bin): `run` is "(all selected)" for the runs together; MAE and ρ repeat per group. */
export function calibrationCsv(r: CalibrationResult): string {
  const groups = [{ run: '(all selected)', in_training: null as boolean | null, ...r.overall }, ...r.runs];
  return toCsv(
    ['estimator', 'run', 'in_training', 'turns', 'mae', 'spearman', 'bin_lo', 'bin_hi', 'n_turns', 'mean_s_hat', 'mean_s_tilde', 'ci_low', 'ci_high'],
    groups.flatMap((g) => g.bins.map((b) => [
      r.estimator?.name ?? null, g.run, g.in_training, g.n, g.mae, g.spearman, b.lo, b.hi, b.n, b.mean_s_hat, b.mean_s_tilde, b.ci?.[0] ?? null, b.ci?.[1] ?? null,
    ])),
  );
}

/** One row per point: the models' map (`series` model), then the turn histories' (`series` history). */
export function embeddingsCsv(r: EmbeddingsResult): string {
  return toCsv(
    ['series', 'x', 'y', 'model', 'tier', 'turns', 'price_in_per_m', 'price_out_per_m', 'run', 'episode', 'turn', 'outcome', 'success'],
    [
      ...r.models.points.map((p) => ['model', p.x, p.y, p.model, p.tier, p.turns, p.price_in_per_m, p.price_out_per_m, null, null, null, null, null]),
      ...r.histories.points.map((p) => ['history', p.x, p.y, p.model, null, null, null, null, p.run, p.episode, p.turn, p.outcome, p.success]),
    ],
  );
}
