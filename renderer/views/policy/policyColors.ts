/**
 * The colour of each replayed policy, by its place in a replay's results (what the results table and the figure
 * take). A replayed policy is a counterfactual run of the selected logs, plotted on the same score/cost plane as
 * runs are in Pareto, so it is in the run family (muted, never a model's colour) and coloured by the same rule
 * (palette.ts `runColors` over the policies' specs): each keeps its own colour when others are added or removed,
 * in the table, the figure and its export alike. The lab draws policies, never runs, so no policy sits beside a run
 * of the same colour. Past six policies colours repeat; every point is labelled with its policy.
 */
import type { ReplayResult } from '../../../shared/apiReplay.ts';
import { runColors } from '../../../shared/charts/palette.ts';

export function policyColors(result: Pick<ReplayResult, 'policies'>): (index: number) => string {
  const specs = result.policies.map((p) => p.policy);
  const color = runColors(specs);
  return (index) => color(specs[index] ?? '');
}
