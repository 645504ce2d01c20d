/**
 * Uno-Orchestra's trajectory behaviour modes (seed 004, Tab. 14 / Fig. 6), decided from the turns alone so the
 * importer, the simulator's checks and the plan-dag analysis classify an episode the same way:
 *   lazy           no plan at all: the answer comes straight away
 *   decomp_repair  a verification asked to continue and a later round was planned (a repair round)
 *   oneshot        exactly one planned round (its subtasks dispatched together)
 *   continuation   several rounds of exactly one subtask each, each building on the last
 * Anything else (several multi-subtask rounds without a repair) has no mode: null.
 */
export const BEHAVIOUR_MODES = ['lazy', 'oneshot', 'continuation', 'decomp_repair'] as const;
export type BehaviourMode = (typeof BEHAVIOUR_MODES)[number];

export interface ModeTurn {
  /** Subtasks planned at this turn (the first turn of a round carries the round's plan); null when none. */
  planSubtasks: number | null;
  verdict: 'stop' | 'continue' | null;
}

export function behaviourMode(turns: readonly ModeTurn[]): BehaviourMode | null {
  const planned = turns.flatMap((t, i) => (t.planSubtasks === null ? [] : [{ i, k: t.planSubtasks }]));
  if (planned.length === 0) return 'lazy';
  if (turns.some((t, i) => t.verdict === 'continue' && planned.some((p) => p.i > i))) return 'decomp_repair';
  if (planned.length === 1) return 'oneshot';
  if (planned.every((p) => p.k === 1)) return 'continuation';
  return null;
}
