/**
 * Seeded random estimator weights and histories for the forward-pass, ONNX and scoring tests and bench/.
 * Weights use Glorot-uniform scales so activations stay O(1); histories look like hash-1024 rows (sparse,
 * L2-normalised, non-negative) followed by a few structured features.
 */
import { HEAD_HIDDEN, META_HIDDEN, MODEL_EMBED_DIM, MODEL_FEATURES, RESIDUAL_DIM } from './weights.ts';
import type { Dense, EstimatorWeights } from './weights.ts';
import { mulberry32 } from '../../shared/random.ts';

/** `attributeLayers` 2 adds the second attribute layer (drawn last, so the other tensors do not change). */
export function randomWeights(seed: number, historyDim = 1028, models = 6, attributeLayers: 1 | 2 = 1): EstimatorWeights {
  const rand = mulberry32(seed);
  const uniform = (n: number, scale: number): Float32Array => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = (rand() * 2 - 1) * scale;
    return a;
  };
  const dense = (inDim: number, outDim: number): Dense => ({
    w: uniform(inDim * outDim, Math.sqrt(6 / (inDim + outDim))),
    b: uniform(outDim, 0.1),
    inDim,
    outDim,
  });
  const F = MODEL_FEATURES.length;
  const w: EstimatorWeights = {
    historyDim,
    models: Array.from({ length: models }, (_, i) => `model-${String.fromCharCode(97 + (i % 26))}${i >= 26 ? i : ''}`),
    modelFeatures: uniform(models * F, 2),
    meta: dense(F, META_HIDDEN),
    residual: uniform(models * RESIDUAL_DIM, 0.5),
    proj: dense(META_HIDDEN + RESIDUAL_DIM, MODEL_EMBED_DIM),
    lnGamma: Float32Array.from(uniform(MODEL_EMBED_DIM, 0.2), (v) => 1 + v),
    lnBeta: uniform(MODEL_EMBED_DIM, 0.1),
    head1: dense(historyDim + MODEL_EMBED_DIM, HEAD_HIDDEN[0]),
    head2: dense(HEAD_HIDDEN[0], HEAD_HIDDEN[1]),
    out: dense(HEAD_HIDDEN[1], 1),
  };
  if (attributeLayers === 2) w.meta2 = dense(META_HIDDEN, META_HIDDEN);
  return w;
}

/** [batch × historyDim]: `nonZero` hashed features per row (L2-normalised), then 4 structured features. */
export function randomHistories(seed: number, batch: number, historyDim = 1028, nonZero = 60): Float32Array {
  const rand = mulberry32(seed);
  const hashed = Math.max(1, historyDim - 4);
  const x = new Float32Array(batch * historyDim);
  for (let r = 0; r < batch; r++) {
    const off = r * historyDim;
    let norm = 0;
    for (let k = 0; k < nonZero; k++) {
      const i = off + Math.floor(rand() * hashed);
      x[i] = x[i]! + 1 + Math.log(1 + rand() * 3);
    }
    for (let i = 0; i < hashed; i++) norm += x[off + i]! ** 2;
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let i = 0; i < hashed; i++) x[off + i] = x[off + i]! * inv;
    for (let i = hashed; i < historyDim; i++) x[off + i] = rand() * 2;
  }
  return x;
}
