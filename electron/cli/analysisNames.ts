/**
 * The ids `routelens analyze` takes and the estimator analyses' flags: plain data, so the command table (main.ts) and
 * `analyze` parse and list them without loading the analyses (calibration and embeddings load ONNX Runtime).
 */
export const ESTIMATOR_ANALYSES = ['calibration', 'embeddings'] as const;

export const ANALYSES = [
  'targets', 'lift', 'error-recovery', 'usage-by-turn', 'switch-cost', 'pareto', 'budget-modes', 'usage-ratio', 'confusion', 'plan-dag',
  ...ESTIMATOR_ANALYSES,
] as const;

/** Flags of calibration and embeddings (analyzeEstimator.ts reads them). */
export const ESTIMATOR_ANALYSIS_OPTIONS = {
  estimator: { type: 'string' }, bins: { type: 'string' }, color: { type: 'string' }, sample: { type: 'string' }, seed: { type: 'string' },
} as const;

export const ESTIMATOR_ANALYSIS_USAGE =
  '  calibration: [--estimator ID] [--bins N]   embeddings: [--estimator ID] [--color model|outcome] [--sample N ≤ 2000] [--seed S]';
