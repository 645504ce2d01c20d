/** The ids `routelens analyze` takes: plain names, so the command table (main.ts) lists them without loading the analyses. */
export const ESTIMATOR_ANALYSES = ['calibration', 'embeddings'] as const;

export const ANALYSES = [
  'targets', 'lift', 'error-recovery', 'usage-by-turn', 'switch-cost', 'pareto', 'budget-modes', 'usage-ratio', 'confusion', 'plan-dag',
  ...ESTIMATOR_ANALYSES,
] as const;
