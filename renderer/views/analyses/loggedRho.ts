/**
 * The ρ the usage-ratio page's control shows before the user sets one: the targets the selected runs' logs state
 * (usage-ratio's `logged_rho`, from policy.usage_targets), model by model where every run that states one agrees.
 * Runs that disagree keep their own in the figure; the control then shows none for that model.
 */
import type { UsageRatioResult } from '../../../shared/analysisResults.ts';
import { nameKeyed, ownValue } from '../../../shared/nameKeyed.ts';

export function rhoStatedByRuns(runs: readonly Pick<UsageRatioResult['runs'][number], 'logged_rho'>[]): Record<string, number> {
  const out = nameKeyed<number>();
  const disagreed = new Set<string>();
  for (const r of runs) {
    for (const [model, rho] of Object.entries(r.logged_rho ?? {})) {
      const seen = ownValue(out, model);
      if (seen !== undefined && seen !== rho) disagreed.add(model);
      out[model] = rho;
    }
  }
  for (const model of disagreed) delete out[model];
  return out;
}
