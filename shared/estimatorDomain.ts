/**
 * What an estimator was trained on (its training domain) and whether a turn lies outside it. ŝ outside the
 * domain is extrapolation: a network trained on simulated ScienceWorld says nothing reliable about a SWE turn,
 * and it cannot value the logged choice when the logged model is none of its candidates. Every view that shows
 * ŝ shows the domain and flags such turns with the same rule, this one.
 */
import { z } from 'zod';

/** Episodes of each task type the estimator was trained on (task types as the logs name them). */
export const TrainingTaskType = z.object({ task_type: z.string(), episodes: z.number().int().nonnegative() });
export type TrainingTaskType = z.infer<typeof TrainingTaskType>;

/**
 * The training domain as views show it. `task_types` null: not known (a card written before task types were
 * recorded, whose runs are not in this database either); `task_types_from` says where the list came from.
 */
export const EstimatorDomain = z.object({
  task_types: z.array(TrainingTaskType).nullable(),
  task_types_from: z.enum(['card', 'runs_here', 'unknown']),
  runs: z.array(z.string()),
  /** The candidate models the estimator scores. */
  models: z.array(z.string()),
});
export type EstimatorDomain = z.infer<typeof EstimatorDomain>;

/** Why ŝ at a turn is extrapolation. */
export const ExtrapolationReason = z.enum(['task_type_unseen', 'model_not_candidate']);
export type ExtrapolationReason = z.infer<typeof ExtrapolationReason>;

/** A turn as the rule needs it: its episode's task type (null: the log names none) and the logged model. */
export interface TurnInDomain {
  task_type: string | null;
  model: string;
}

/**
 * The reasons ŝ at `turn` is extrapolation, in a fixed order; empty inside the domain. A task type is unseen
 * only when the domain's task types are known and the turn names one they lack: an unnamed or unknown task
 * type is not evidence either way, so it is not flagged (views say the domain is unknown instead).
 */
export function extrapolationReasons(domain: EstimatorDomain, turn: TurnInDomain): ExtrapolationReason[] {
  const out: ExtrapolationReason[] = [];
  if (domain.task_types !== null && turn.task_type !== null && !domain.task_types.some((x) => x.task_type === turn.task_type)) {
    out.push('task_type_unseen');
  }
  if (!domain.models.includes(turn.model)) out.push('model_not_candidate');
  return out;
}

/** One sentence per reason, in words a user knows. */
export function extrapolationText(reason: ExtrapolationReason, turn: TurnInDomain): string {
  return reason === 'task_type_unseen'
    ? `the estimator never saw a ${turn.task_type ?? 'task of this'} task in training`
    : `the logged model ${turn.model} is not one of the estimator's candidates, so the logged choice cannot be valued`;
}

/** "scienceworld (36,000 episodes), swe (200 episodes)", the names alone when read from runs here, or why they are not known. */
export function domainTaskTypesText(domain: EstimatorDomain): string {
  if (domain.task_types === null) return 'task types not recorded';
  if (domain.task_types.length === 0) return 'no task type named in its training logs';
  // Read from this database's runs of the same names: their episode counts are not the training set's.
  if (domain.task_types_from === 'runs_here') return domain.task_types.map((x) => x.task_type).join(', ');
  return domain.task_types.map((x) => `${x.task_type} (${x.episodes.toLocaleString('en-US')} ${x.episodes === 1 ? 'episode' : 'episodes'})`).join(', ');
}
