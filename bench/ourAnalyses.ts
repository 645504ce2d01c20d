/**
 * The analyses the bench times, called the way `routelens analyze ID` calls them (default options), and on
 * which dataset: the scienceworld reference has no budget modes and no verification verdicts, so
 * budget-modes runs on the controllers dataset (corl + critique), and usage-ratio and confusion run on both.
 * plan-dag and targets are per-episode look-ups (SQL over plan_nodes / targets), not aggregations over the
 * columnar cache, and are not in the DuckDB comparison.
 */
import type { Db } from '../electron/db/dbHandle.ts';
import { budgetModesAnalysis, confusionAnalysis, usageRatioAnalysis } from '../electron/analysis/controllerAnalyses.ts';
import { errorRecoveryAnalysis } from '../electron/analysis/errorRecovery.ts';
import { liftAnalysis } from '../electron/analysis/lift.ts';
import { paretoAnalysis } from '../electron/analysis/pareto.ts';
import { switchCostAnalysis } from '../electron/analysis/switchCost.ts';
import { usageByTurnAnalysis } from '../electron/analysis/usageByTurn.ts';

export type DatasetName = 'reference' | 'controllers';

export interface OurAnalysis {
  id: string;
  dataset: DatasetName;
  run(db: Db): unknown;
}

/** Bootstrap replicates of lift's intervals: the default `routelens analyze lift` uses. */
export const LIFT_BOOTSTRAP = 200;
export const LIFT_SEED = 1;

export const ANALYSES: readonly OurAnalysis[] = [
  { id: 'pareto', dataset: 'reference', run: (db) => paretoAnalysis(db) },
  { id: 'switch-cost', dataset: 'reference', run: (db) => switchCostAnalysis(db) },
  { id: 'error-recovery', dataset: 'reference', run: (db) => errorRecoveryAnalysis(db) },
  { id: 'usage-by-turn', dataset: 'reference', run: (db) => usageByTurnAnalysis(db) },
  { id: 'lift', dataset: 'reference', run: (db) => liftAnalysis(db, { bootstrap: LIFT_BOOTSTRAP, seed: LIFT_SEED }) },
  { id: 'usage-ratio', dataset: 'reference', run: (db) => usageRatioAnalysis(db) },
  { id: 'confusion', dataset: 'reference', run: (db) => confusionAnalysis(db) },
  { id: 'budget-modes', dataset: 'controllers', run: (db) => budgetModesAnalysis(db) },
  { id: 'usage-ratio', dataset: 'controllers', run: (db) => usageRatioAnalysis(db) },
  { id: 'confusion', dataset: 'controllers', run: (db) => confusionAnalysis(db) },
];
