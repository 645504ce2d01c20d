/**
 * The reference forward pass of the outcome estimator (weights.ts has the architecture). The ONNX graph
 * (onnxExport.ts) is tested against it to 1e-5, and the trainer may call it for validation scores.
 *
 * Organisation: the model side (z_a, then its share of head 1) does not depend on the history, so it is
 * computed once per call. Head 1 is split as W1 = [W1x ; W1a] (history rows, then the 64 model rows):
 *   h1(x, a) = ReLU(x · W1x + (z_a · W1a + b1))
 * so a row costs historyDim·256 + K·(256·256 + 256) multiply-adds instead of K·(historyDim + 64)·256, and
 * zeros in x (hashed text features are sparse) and in the ReLU outputs are skipped. Accumulation is in
 * float64 scratch buffers allocated once per forward object: no per-row or per-element allocation.
 */
import { HEAD_HIDDEN, LAYER_NORM_EPS, META_HIDDEN, MODEL_EMBED_DIM, MODEL_FEATURES, RESIDUAL_DIM } from './weights.ts';
import type { Dense, EstimatorWeights } from './weights.ts';

const FEATURE_DIM = MODEL_FEATURES.length;

/** Throws when the weights' shapes disagree with each other or with the architecture in weights.ts. */
export function checkWeights(w: EstimatorWeights): void {
  const K = w.models.length;
  const fail = (what: string): never => {
    throw new Error(`estimator weights: ${what}`);
  };
  if (K < 1) fail('no candidate models');
  if (!Number.isInteger(w.historyDim) || w.historyDim < 1) fail(`historyDim ${w.historyDim} is not a positive integer`);
  const dense = (name: string, d: Dense, inDim: number, outDim: number): void => {
    if (d.inDim !== inDim || d.outDim !== outDim) fail(`${name} is ${d.inDim}→${d.outDim}, expected ${inDim}→${outDim}`);
    if (d.w.length !== inDim * outDim) fail(`${name}.w has ${d.w.length} values, expected ${inDim * outDim}`);
    if (d.b.length !== outDim) fail(`${name}.b has ${d.b.length} values, expected ${outDim}`);
  };
  const vec = (name: string, v: Float32Array, n: number): void => {
    if (v.length !== n) fail(`${name} has ${v.length} values, expected ${n}`);
  };
  vec('modelFeatures', w.modelFeatures, K * FEATURE_DIM);
  dense('meta', w.meta, FEATURE_DIM, META_HIDDEN);
  if (w.meta2) dense('meta2', w.meta2, META_HIDDEN, META_HIDDEN);
  vec('residual', w.residual, K * RESIDUAL_DIM);
  dense('proj', w.proj, META_HIDDEN + RESIDUAL_DIM, MODEL_EMBED_DIM);
  vec('lnGamma', w.lnGamma, MODEL_EMBED_DIM);
  vec('lnBeta', w.lnBeta, MODEL_EMBED_DIM);
  dense('head1', w.head1, w.historyDim + MODEL_EMBED_DIM, HEAD_HIDDEN[0]);
  dense('head2', w.head2, HEAD_HIDDEN[0], HEAD_HIDDEN[1]);
  dense('out', w.out, HEAD_HIDDEN[1], 1);
}

/** z_a for every candidate model: [K × 64], row-major, in the order of `weights.models`. */
export function modelEmbeddings(w: EstimatorWeights): Float32Array {
  checkWeights(w);
  const K = w.models.length;
  const z = new Float32Array(K * MODEL_EMBED_DIM);
  const cat = new Float64Array(META_HIDDEN + RESIDUAL_DIM);
  const h = new Float64Array(META_HIDDEN);
  const p = new Float64Array(MODEL_EMBED_DIM);
  for (let a = 0; a < K; a++) {
    // h_a = ReLU(f_a · W_meta + b_meta) [· W_meta2 + b_meta2], then [h_a ; r_a]
    for (let j = 0; j < META_HIDDEN; j++) {
      let acc = w.meta.b[j]!;
      for (let i = 0; i < FEATURE_DIM; i++) acc += w.modelFeatures[a * FEATURE_DIM + i]! * w.meta.w[i * META_HIDDEN + j]!;
      h[j] = acc > 0 ? acc : 0;
    }
    if (w.meta2) denseInto(h, w.meta2, cat);
    else cat.set(h);
    for (let i = 0; i < RESIDUAL_DIM; i++) cat[META_HIDDEN + i] = w.residual[a * RESIDUAL_DIM + i]!;
    // p = [h_a ; r_a] · W_proj + b_proj
    denseInto(cat, w.proj, p);
    // LayerNorm over the 64 features (biased variance, as ONNX LayerNormalization and PyTorch).
    let mean = 0;
    for (let j = 0; j < MODEL_EMBED_DIM; j++) mean += p[j]!;
    mean /= MODEL_EMBED_DIM;
    let variance = 0;
    for (let j = 0; j < MODEL_EMBED_DIM; j++) variance += (p[j]! - mean) ** 2;
    variance /= MODEL_EMBED_DIM;
    const inv = 1 / Math.sqrt(variance + LAYER_NORM_EPS);
    for (let j = 0; j < MODEL_EMBED_DIM; j++) {
      z[a * MODEL_EMBED_DIM + j] = (p[j]! - mean) * inv * w.lnGamma[j]! + w.lnBeta[j]!;
    }
  }
  return z;
}

/**
 * The model side of head 1, z_a · W1a + b1: [K × 256]. It is what the ONNX graph stores as an initializer
 * (onnxExport.ts), so both paths add the same float32 values to x · W1x.
 */
export function headModelTerm(w: EstimatorWeights, z: Float32Array = modelEmbeddings(w)): Float32Array {
  const K = w.models.length;
  const H = HEAD_HIDDEN[0];
  const out = new Float32Array(K * H);
  const base = w.historyDim * H; // W1a starts after the historyDim history rows of W1
  const acc = new Float64Array(H);
  for (let a = 0; a < K; a++) {
    for (let j = 0; j < H; j++) acc[j] = w.head1.b[j]!;
    for (let i = 0; i < MODEL_EMBED_DIM; i++) {
      const v = z[a * MODEL_EMBED_DIM + i]!;
      const row = base + i * H;
      for (let j = 0; j < H; j++) acc[j] = acc[j]! + v * w.head1.w[row + j]!;
    }
    for (let j = 0; j < H; j++) out[a * H + j] = acc[j]!;
  }
  return out;
}

export interface Forward {
  readonly models: readonly string[];
  readonly historyDim: number;
  /** ŝ for `batch` histories × every model: [batch × K], row-major. `out`, when given, is filled and returned. */
  score(history: Float32Array, batch: number, out?: Float32Array): Float32Array;
}

/**
 * A forward pass bound to `weights`, with the model side precomputed and scratch buffers allocated once.
 * Build a new one after the weights change (the trainer updates them in place).
 */
export function createForward(w: EstimatorWeights): Forward {
  checkWeights(w);
  const K = w.models.length;
  const D = w.historyDim;
  const H1 = HEAD_HIDDEN[0];
  const H2 = HEAD_HIDDEN[1];
  const modelTerm = headModelTerm(w);
  const W1 = w.head1.w;
  const W2 = w.head2.w;
  const b2 = w.head2.b;
  const w3 = w.out.w;
  const b3 = w.out.b[0]!;
  const hx = new Float64Array(H1);
  const h1 = new Float64Array(H1);
  const h2 = new Float64Array(H2);
  return {
    models: w.models,
    historyDim: D,
    score(history, batch, out) {
      if (!Number.isInteger(batch) || batch < 0) throw new Error(`batch ${batch} is not a non-negative integer`);
      if (history.length < batch * D) {
        throw new Error(`history has ${history.length} values, expected ${batch} × ${D} = ${batch * D}`);
      }
      const result = out ?? new Float32Array(batch * K);
      if (result.length < batch * K) throw new Error(`out has ${result.length} values, expected ${batch * K}`);
      for (let r = 0; r < batch; r++) {
        // x · W1x, skipping zero features
        hx.fill(0);
        const xOff = r * D;
        for (let i = 0; i < D; i++) {
          const v = history[xOff + i]!;
          if (v === 0) continue;
          const row = i * H1;
          for (let j = 0; j < H1; j++) hx[j] = hx[j]! + v * W1[row + j]!;
        }
        for (let a = 0; a < K; a++) {
          const mOff = a * H1;
          for (let j = 0; j < H1; j++) {
            const v = hx[j]! + modelTerm[mOff + j]!;
            h1[j] = v > 0 ? v : 0;
          }
          for (let j = 0; j < H2; j++) h2[j] = b2[j]!;
          for (let i = 0; i < H1; i++) {
            const v = h1[i]!;
            if (v === 0) continue;
            const row = i * H2;
            for (let j = 0; j < H2; j++) h2[j] = h2[j]! + v * W2[row + j]!;
          }
          let s = b3;
          for (let j = 0; j < H2; j++) {
            const v = h2[j]!;
            if (v > 0) s += v * w3[j]!;
          }
          result[r * K + a] = s;
        }
      }
      return result;
    },
  };
}

/** ŝ(h, a) for `batch` histories ([batch × historyDim]) and every candidate model: [batch × K], row-major. */
export function scoreBatch(w: EstimatorWeights, history: Float32Array, batch: number): Float32Array {
  return createForward(w).score(history, batch);
}

/** y = x · W + b into `y` (float64 accumulation). */
function denseInto(x: Float64Array, d: Dense, y: Float64Array): void {
  for (let j = 0; j < d.outDim; j++) y[j] = d.b[j]!;
  for (let i = 0; i < d.inDim; i++) {
    const v = x[i]!;
    const row = i * d.outDim;
    for (let j = 0; j < d.outDim; j++) y[j] = y[j]! + v * d.w[row + j]!;
  }
}
