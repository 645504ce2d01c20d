/**
 * The outcome estimator's architecture and weights (DESIGN §6, MTRouter §3): the one description that the
 * trainer fills, the TypeScript forward pass reads, and the ONNX exporter turns into a graph.
 *
 *   z_x  = history features, length `historyDim` (hash-1024 text features + STRUCTURED_FEATURES)
 *   f_a  = 8 model metadata features (log1p + z-score, MODEL_FEATURES), per candidate model a
 *   h_a  = ReLU(f_a · W_meta + b_meta)                       32-d attribute embedding
 *          [· W_meta2 + b_meta2]                             with a second attribute layer (no activation
 *                                                             after it), the reference implementation's
 *                                                             two-layer attribute MLP (mtrouterTraining.ts)
 *   z_a  = LayerNorm([h_a ; r_a] · W_proj + b_proj)           64-d, r_a a learnable 16-d residual per model
 *   ŝ    = w3 · ReLU(W2 · ReLU(W1 · [z_x ; z_a] + b1) + b2) + b3   (dropout 0.1 in training only)
 *
 * Matrices are row-major Float32Array with shape [in, out] (y = x · W + b), so they map one-to-one onto
 * ONNX MatMul initializers.
 */

export const META_HIDDEN = 32;
export const RESIDUAL_DIM = 16;
export const MODEL_EMBED_DIM = 64;
export const HEAD_HIDDEN = [256, 256] as const;
export const LAYER_NORM_EPS = 1e-5;

/** The 8 model metadata features, in order (values from the models table, before log1p + z-score). */
export const MODEL_FEATURES = [
  'price_in_per_m',
  'price_out_per_m',
  'price_cached_per_m',
  'max_input_tokens',
  'max_output_tokens',
  'knowledge_cutoff_months_since_2020',
  'mean_output_tokens_in_logs',
  'mean_latency_ms_in_logs',
] as const;

/** Structured history features appended after the hashed text features, in order. */
export const STRUCTURED_FEATURES = [
  'progress', // min((t+1)/N, 1)
  'last_error_severity_coef', // β of the previous turn's max severity, 0 when none
  'previous_model_switched', // 1 when the previous turn switched model
  'log1p_turn_index',
] as const;

export interface Dense {
  /** [inDim × outDim], row-major. */
  w: Float32Array;
  /** [outDim]. */
  b: Float32Array;
  inDim: number;
  outDim: number;
}

export interface EstimatorWeights {
  historyDim: number;
  /** Candidate model names, in the order of the model axis of every per-model tensor. */
  models: string[];
  /** [K × 8] standardised model features (already log1p + z-scored). */
  modelFeatures: Float32Array;
  meta: Dense; // 8 → 32
  /** The attribute MLP's second layer (32 → 32), when it has two. */
  meta2?: Dense;
  /** [K × 16] learnable residual per model. */
  residual: Float32Array;
  proj: Dense; // 48 → 64
  lnGamma: Float32Array; // 64
  lnBeta: Float32Array; // 64
  head1: Dense; // historyDim + 64 → 256
  head2: Dense; // 256 → 256
  out: Dense; // 256 → 1
}
