/**
 * The estimator's trainer (MTRouter §3.3 and App. A; DESIGN §6): the network of weights.ts with hand-written
 * backpropagation over Float32Array parameters, no libraries.
 *
 *   loss   mean over the batch of (ŝ(h_t, a_t) − S̃_t)²  +  1e-3 · ‖residual embeddings‖²
 *   opt    AdamW (lr 1e-3, β 0.9/0.999, ε 1e-8, decoupled weight decay 0.01 on every parameter, as PyTorch's
 *          AdamW default), cosine schedule per step from lr to 1e-5 over the maximum number of epochs,
 *          batch 64, global gradient-norm clip 1.0, dropout 0.1 after both hidden ReLUs of the head
 *   stop   early on validation MAE (patience 3 epochs); the best epoch's weights are kept
 *   seed   one seed drives initialisation, shuffling and dropout through separate streams (seededRandom.ts);
 *          float64 arithmetic in a fixed order, so the same seed and data give bit-identical weights
 *
 * Organisation. All parameters live in one Float32Array (`flat`), with a typed view per tensor, so AdamW,
 * clipping and best-epoch snapshots are single loops; gradients mirror it in float64. The model side
 * (z_a for every candidate, then z_a · W1a + b1) is computed once per batch, because there are K ≈ 6 models
 * and 64 rows; each row then adds only its sparse hashed text (~280 non-zeros of 1024) and 4 structured
 * features times W1, and the dense 256 × 256 second layer, skipping ReLU and dropout zeros. Row gradients of
 * the model side are summed per model and backpropagated through W1a, LayerNorm, the projection and the
 * metadata MLP once per batch.
 */
import { DEFAULT_TRAIN_PATIENCE } from '../../shared/apiEstimator.ts';
import { splitRows, type TrainingSet } from './dataset.ts';
import { STREAM, SeededRandom } from './seededRandom.ts';
import {
  HEAD_HIDDEN,
  LAYER_NORM_EPS,
  META_HIDDEN,
  MODEL_EMBED_DIM,
  MODEL_FEATURES,
  RESIDUAL_DIM,
  type Dense,
  type EstimatorWeights,
} from './weights.ts';

/** The rows the trainer reads (a TrainingSet, or any subset of its fields with the same meaning). */
export type TrainingRows = Pick<
  TrainingSet,
  'rows' | 'historyDim' | 'textDim' | 'textIndptr' | 'textIndices' | 'textValues' | 'structured' | 'model' | 'target' | 'validation' | 'models' | 'modelFeatures'
>;

export interface NetDims {
  historyDim: number;
  textDim: number;
  features: number;
  metaHidden: number;
  residual: number;
  embed: number;
  hidden1: number;
  hidden2: number;
  models: number;
}

export interface TrainOptions {
  seed?: number;
  /** Maximum epochs (the paper: 100, with early stopping); also the length of the cosine schedule. */
  maxEpochs?: number;
  patience?: number;
  batchSize?: number;
  lr?: number;
  minLr?: number;
  weightDecay?: number;
  beta1?: number;
  beta2?: number;
  dropout?: number;
  residualL2?: number;
  clipNorm?: number;
  /** Smaller layers, for gradient checks and quick tests; the default is the architecture of weights.ts. */
  dims?: Partial<Pick<NetDims, 'metaHidden' | 'residual' | 'embed' | 'hidden1' | 'hidden2'>>;
  onEpoch?: (p: EpochProgress) => void;
  /** Called about every 5% of an epoch (an epoch of 500k rows takes minutes). */
  onBatch?: (p: { epoch: number; fraction: number }) => void;
}

export interface EpochProgress {
  epoch: number;
  maxEpochs: number;
  /** Mean squared error over the epoch's training batches (with dropout, without the L2 term). */
  trainLoss: number;
  valMae: number;
  lr: number;
  bestEpoch: number;
  bestValMae: number;
  seconds: number;
  rowsPerSecond: number;
}

export interface TrainMetrics {
  valMae: number;
  /** Spearman ρ of ŝ(h_t, a_t) against S̃_t on the validation turns. */
  valSpearman: number;
  /** MAE on the validation turns of a constant predictor: the mean training target. */
  baselineMae: number;
  trainMae: number;
  trainRows: number;
  validationRows: number;
  epochs: number;
  bestEpoch: number;
  stopped: 'early' | 'max_epochs';
  /** Training rows per second, averaged over the epochs (forward, backward and update). */
  rowsPerSecond: number;
  seconds: number;
  history: EpochProgress[];
}

export const TRAIN_DEFAULTS = {
  seed: 0,
  maxEpochs: 100,
  patience: DEFAULT_TRAIN_PATIENCE,
  batchSize: 64,
  lr: 1e-3,
  minLr: 1e-5,
  weightDecay: 0.01,
  beta1: 0.9,
  beta2: 0.999,
  dropout: 0.1,
  residualL2: 1e-3,
  clipNorm: 1.0,
} as const;
const ADAM_EPS = 1e-8;

// The inner loops, unrolled by 4: V8 does not vectorise, and unrolling doubles throughput here
// (measured 230 → 530 M multiply-adds/s on the 2-core container). A fixed order keeps results bit-identical.

/** y[yo … yo+n) += a · x[xo … xo+n). */
function axpy(y: Float64Array, yo: number, a: number, x: Float32Array | Float64Array, xo: number, n: number): void {
  let j = 0;
  for (; j + 4 <= n; j += 4) {
    y[yo + j] = (y[yo + j] as number) + a * (x[xo + j] as number);
    y[yo + j + 1] = (y[yo + j + 1] as number) + a * (x[xo + j + 1] as number);
    y[yo + j + 2] = (y[yo + j + 2] as number) + a * (x[xo + j + 2] as number);
    y[yo + j + 3] = (y[yo + j + 3] as number) + a * (x[xo + j + 3] as number);
  }
  for (; j < n; j++) y[yo + j] = (y[yo + j] as number) + a * (x[xo + j] as number);
}

/** g[go … go+n) += a · d (a gradient row) and returns w[wo … wo+n) · d, in one pass. */
function axpyDot(g: Float64Array, go: number, a: number, d: Float64Array, w: Float32Array, wo: number, n: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 4 <= n; j += 4) {
    const d0 = d[j] as number;
    const d1 = d[j + 1] as number;
    const d2 = d[j + 2] as number;
    const d3 = d[j + 3] as number;
    g[go + j] = (g[go + j] as number) + a * d0;
    g[go + j + 1] = (g[go + j + 1] as number) + a * d1;
    g[go + j + 2] = (g[go + j + 2] as number) + a * d2;
    g[go + j + 3] = (g[go + j + 3] as number) + a * d3;
    s0 += (w[wo + j] as number) * d0;
    s1 += (w[wo + j + 1] as number) * d1;
    s2 += (w[wo + j + 2] as number) * d2;
    s3 += (w[wo + j + 3] as number) * d3;
  }
  for (; j < n; j++) {
    const dj = d[j] as number;
    g[go + j] = (g[go + j] as number) + a * dj;
    s0 += (w[wo + j] as number) * dj;
  }
  return s0 + s1 + (s2 + s3);
}

interface Tensors<A> {
  metaW: A;
  metaB: A;
  residual: A;
  projW: A;
  projB: A;
  lnGamma: A;
  lnBeta: A;
  w1: A;
  b1: A;
  w2: A;
  b2: A;
  w3: A;
  b3: A;
}

function shapes(d: NetDims): [keyof Tensors<unknown>, number][] {
  return [
    ['metaW', d.features * d.metaHidden],
    ['metaB', d.metaHidden],
    ['residual', d.models * d.residual],
    ['projW', (d.metaHidden + d.residual) * d.embed],
    ['projB', d.embed],
    ['lnGamma', d.embed],
    ['lnBeta', d.embed],
    ['w1', (d.historyDim + d.embed) * d.hidden1],
    ['b1', d.hidden1],
    ['w2', d.hidden1 * d.hidden2],
    ['b2', d.hidden2],
    ['w3', d.hidden2],
    ['b3', 1],
  ];
}

export function paramCount(d: NetDims): number {
  return shapes(d).reduce((a, [, n]) => a + n, 0);
}

function views<A extends Float32Array | Float64Array>(flat: A, d: NetDims): Tensors<A> {
  const out: Partial<Tensors<A>> = {};
  let at = 0;
  for (const [name, n] of shapes(d)) {
    out[name] = flat.subarray(at, at + n) as A;
    at += n;
  }
  return out as Tensors<A>;
}

export function netDims(data: Pick<TrainingRows, 'historyDim' | 'textDim' | 'models'>, dims: TrainOptions['dims'] = {}): NetDims {
  return {
    historyDim: data.historyDim,
    textDim: data.textDim,
    features: MODEL_FEATURES.length,
    metaHidden: dims.metaHidden ?? META_HIDDEN,
    residual: dims.residual ?? RESIDUAL_DIM,
    embed: dims.embed ?? MODEL_EMBED_DIM,
    hidden1: dims.hidden1 ?? HEAD_HIDDEN[0],
    hidden2: dims.hidden2 ?? HEAD_HIDDEN[1],
    models: data.models.length,
  };
}

/**
 * The network with its parameters, gradients and per-batch caches. `lossAndGrad` is the training step's
 * forward and backward; `predict` the inference forward (no dropout).
 */
export class EstimatorNet {
  readonly flat: Float32Array;
  readonly grad: Float64Array;
  readonly p: Tensors<Float32Array>;
  readonly g: Tensors<Float64Array>;
  // Model side, per batch: [K × …].
  private readonly a1: Float64Array;
  private readonly cat: Float64Array;
  private readonly xhat: Float64Array;
  private readonly inv: Float64Array;
  private readonly z: Float64Array;
  private readonly zc: Float64Array;
  private readonly gzc: Float64Array;
  // Rows, per batch: [B × …].
  private cap = 0;
  private u1 = new Float64Array(0);
  private m1 = new Float64Array(0);
  private d1 = new Float64Array(0);
  private u2 = new Float64Array(0);
  private m2 = new Float64Array(0);
  private d2 = new Float64Array(0);
  private y = new Float64Array(0);
  private readonly gu1: Float64Array;
  private readonly gu2: Float64Array;

  constructor(
    readonly dims: NetDims,
    readonly modelFeatures: Float32Array,
    flat?: Float32Array,
  ) {
    const n = paramCount(dims);
    if (flat && flat.length !== n) throw new Error(`expected ${n} parameters, got ${flat.length}`);
    if (modelFeatures.length !== dims.models * dims.features) throw new Error('model features do not match the pool');
    this.flat = flat ?? new Float32Array(n);
    this.grad = new Float64Array(n);
    this.p = views(this.flat, dims);
    this.g = views(this.grad, dims);
    const K = dims.models;
    this.a1 = new Float64Array(K * dims.metaHidden);
    this.cat = new Float64Array(K * (dims.metaHidden + dims.residual));
    this.xhat = new Float64Array(K * dims.embed);
    this.inv = new Float64Array(K);
    this.z = new Float64Array(K * dims.embed);
    this.zc = new Float64Array(K * dims.hidden1);
    this.gzc = new Float64Array(K * dims.hidden1);
    this.gu1 = new Float64Array(dims.hidden1);
    this.gu2 = new Float64Array(dims.hidden2);
  }

  /** PyTorch-style initialisation: U(±1/√fan_in) for linear layers, N(0, 0.1²) residuals, LayerNorm 1/0. */
  init(rng: SeededRandom, outBias: number): void {
    const d = this.dims;
    const uniform = (a: Float32Array, fanIn: number): void => {
      const bound = 1 / Math.sqrt(fanIn);
      for (let i = 0; i < a.length; i++) a[i] = (2 * rng.next() - 1) * bound;
    };
    const p = this.p;
    uniform(p.metaW, d.features);
    uniform(p.metaB, d.features);
    for (let i = 0; i < p.residual.length; i++) p.residual[i] = 0.1 * rng.normal();
    uniform(p.projW, d.metaHidden + d.residual);
    uniform(p.projB, d.metaHidden + d.residual);
    p.lnGamma.fill(1);
    p.lnBeta.fill(0);
    uniform(p.w1, d.historyDim + d.embed);
    uniform(p.b1, d.historyDim + d.embed);
    uniform(p.w2, d.hidden1);
    uniform(p.b2, d.hidden1);
    uniform(p.w3, d.hidden2);
    p.b3[0] = outBias; // start at the constant predictor
  }

  private reserve(b: number): void {
    if (b <= this.cap) return;
    const { hidden1: H1, hidden2: H2 } = this.dims;
    this.cap = b;
    this.u1 = new Float64Array(b * H1);
    this.m1 = new Float64Array(b * H1);
    this.d1 = new Float64Array(b * H1);
    this.u2 = new Float64Array(b * H2);
    this.m2 = new Float64Array(b * H2);
    this.d2 = new Float64Array(b * H2);
    this.y = new Float64Array(b);
  }

  /** z_a for every model, and zc = z_a · W1a + b1. */
  private forwardModels(): void {
    const d = this.dims;
    const p = this.p;
    const F = d.features;
    const Hm = d.metaHidden;
    const C = Hm + d.residual;
    const E = d.embed;
    const H1 = d.hidden1;
    const pz = new Float64Array(E);
    for (let a = 0; a < d.models; a++) {
      for (let j = 0; j < Hm; j++) {
        let s = p.metaB[j] as number;
        for (let i = 0; i < F; i++) s += (this.modelFeatures[a * F + i] as number) * (p.metaW[i * Hm + j] as number);
        this.a1[a * Hm + j] = s;
        this.cat[a * C + j] = s > 0 ? s : 0;
      }
      for (let i = 0; i < d.residual; i++) this.cat[a * C + Hm + i] = p.residual[a * d.residual + i] as number;
      for (let j = 0; j < E; j++) pz[j] = p.projB[j] as number;
      for (let i = 0; i < C; i++) {
        const v = this.cat[a * C + i] as number;
        const row = i * E;
        for (let j = 0; j < E; j++) pz[j] = (pz[j] as number) + v * (p.projW[row + j] as number);
      }
      let mean = 0;
      for (let j = 0; j < E; j++) mean += pz[j] as number;
      mean /= E;
      let variance = 0;
      for (let j = 0; j < E; j++) variance += ((pz[j] as number) - mean) ** 2;
      variance /= E;
      const inv = 1 / Math.sqrt(variance + LAYER_NORM_EPS);
      this.inv[a] = inv;
      for (let j = 0; j < E; j++) {
        const xh = ((pz[j] as number) - mean) * inv;
        this.xhat[a * E + j] = xh;
        this.z[a * E + j] = xh * (p.lnGamma[j] as number) + (p.lnBeta[j] as number);
      }
      const zc = this.zc;
      for (let j = 0; j < H1; j++) zc[a * H1 + j] = p.b1[j] as number;
      for (let i = 0; i < E; i++) {
        const v = this.z[a * E + i] as number;
        const row = (d.historyDim + i) * H1;
        for (let j = 0; j < H1; j++) zc[a * H1 + j] = (zc[a * H1 + j] as number) + v * (p.w1[row + j] as number);
      }
    }
  }

  /** Forward for rows[start … start+count), into the batch caches; dropout when `rng` is given. */
  private forwardRows(data: TrainingRows, rows: Int32Array, start: number, count: number, rng: SeededRandom | null, dropout: number): void {
    this.reserve(count);
    const d = this.dims;
    const p = this.p;
    const H1 = d.hidden1;
    const H2 = d.hidden2;
    const S = d.historyDim - d.textDim;
    const keep = 1 - dropout;
    const scale = 1 / keep;
    // Kept when a uniform 32-bit draw falls below keep · 2^32 (no float division per unit).
    const keepBelow = keep * 4294967296;
    const { u1, m1, d1, u2, m2, d2, y } = this;
    const { textIndptr: indptr, textIndices, textValues, structured } = data;
    const w1 = p.w1;
    const w2 = p.w2;
    for (let b = 0; b < count; b++) {
      const r = rows[start + b] as number;
      const o1 = b * H1;
      const mo = (data.model[r] as number) * H1;
      u1.set(this.zc.subarray(mo, mo + H1), o1);
      for (let k = indptr[r] as number, end = indptr[r + 1] as number; k < end; k++) {
        axpy(u1, o1, textValues[k] as number, w1, (textIndices[k] as number) * H1, H1);
      }
      for (let s = 0; s < S; s++) {
        const v = structured[r * S + s] as number;
        if (v !== 0) axpy(u1, o1, v, w1, (d.textDim + s) * H1, H1);
      }
      for (let j = 0; j < H1; j++) {
        const m = rng ? (rng.uint32() < keepBelow ? scale : 0) : 1;
        m1[o1 + j] = m;
        const u = u1[o1 + j] as number;
        d1[o1 + j] = u > 0 ? u * m : 0;
      }
      const o2 = b * H2;
      for (let j = 0; j < H2; j++) u2[o2 + j] = p.b2[j] as number;
      for (let i = 0; i < H1; i++) {
        const v = d1[o1 + i] as number;
        if (v !== 0) axpy(u2, o2, v, w2, i * H2, H2);
      }
      let out = p.b3[0] as number;
      for (let j = 0; j < H2; j++) {
        const m = rng ? (rng.uint32() < keepBelow ? scale : 0) : 1;
        m2[o2 + j] = m;
        const u = u2[o2 + j] as number;
        const v = u > 0 ? u * m : 0;
        d2[o2 + j] = v;
        out += v * (p.w3[j] as number);
      }
      y[b] = out;
    }
  }

  /** ŝ for the given rows (no dropout). */
  predict(data: TrainingRows, rows: Int32Array, batchSize = 256): Float64Array {
    const out = new Float64Array(rows.length);
    this.forwardModels();
    for (let start = 0; start < rows.length; start += batchSize) {
      const count = Math.min(batchSize, rows.length - start);
      this.forwardRows(data, rows, start, count, null, 0);
      out.set(this.y.subarray(0, count), start);
    }
    return out;
  }

  /**
   * Forward and backward for one batch: adds ∂loss/∂θ to `grad` (the caller zeroes it) and returns
   * { mse, loss } where loss = mse + λ‖residual‖². Dropout only when `rng` is given.
   */
  lossAndGrad(
    data: TrainingRows,
    rows: Int32Array,
    start: number,
    count: number,
    rng: SeededRandom | null,
    dropout: number,
    residualL2: number,
  ): { mse: number; loss: number } {
    const d = this.dims;
    const p = this.p;
    const g = this.g;
    const H1 = d.hidden1;
    const H2 = d.hidden2;
    const S = d.historyDim - d.textDim;
    this.forwardModels();
    this.forwardRows(data, rows, start, count, rng, dropout);
    const { m1, d1, u2, m2, d2, y, gu1, gu2, gzc } = this;
    const { textIndptr: indptr, textIndices, textValues, structured } = data;
    const w2 = p.w2;
    const gw1 = g.w1;
    const gw2 = g.w2;
    gzc.fill(0);
    let sq = 0;
    for (let b = 0; b < count; b++) {
      const r = rows[start + b] as number;
      const err = (y[b] as number) - (data.target[r] as number);
      sq += err * err;
      const gy = (2 * err) / count;
      const o1 = b * H1;
      const o2 = b * H2;
      g.b3[0] = (g.b3[0] as number) + gy;
      for (let j = 0; j < H2; j++) {
        g.w3[j] = (g.w3[j] as number) + (d2[o2 + j] as number) * gy;
        gu2[j] = (u2[o2 + j] as number) > 0 ? gy * (p.w3[j] as number) * (m2[o2 + j] as number) : 0;
        g.b2[j] = (g.b2[j] as number) + (gu2[j] as number);
      }
      for (let i = 0; i < H1; i++) {
        const v = d1[o1 + i] as number;
        // d1 ≠ 0 ⇔ u1 > 0 and kept by dropout: exactly the units whose gradient flows back.
        gu1[i] = v !== 0 ? axpyDot(gw2, i * H2, v, gu2, w2, i * H2, H2) * (m1[o1 + i] as number) : 0;
      }
      for (let k = indptr[r] as number, end = indptr[r + 1] as number; k < end; k++) {
        axpy(gw1, (textIndices[k] as number) * H1, textValues[k] as number, gu1, 0, H1);
      }
      for (let s = 0; s < S; s++) {
        const v = structured[r * S + s] as number;
        if (v !== 0) axpy(gw1, (d.textDim + s) * H1, v, gu1, 0, H1);
      }
      const mo = (data.model[r] as number) * H1;
      for (let j = 0; j < H1; j++) gzc[mo + j] = (gzc[mo + j] as number) + (gu1[j] as number);
    }
    this.backwardModels();
    let l2 = 0;
    for (let i = 0; i < p.residual.length; i++) {
      const v = p.residual[i] as number;
      l2 += v * v;
      g.residual[i] = (g.residual[i] as number) + 2 * residualL2 * v;
    }
    const mse = sq / count;
    return { mse, loss: mse + residualL2 * l2 };
  }

  /** From ∂loss/∂zc (summed per model) back through W1a, LayerNorm, the projection and the metadata MLP. */
  private backwardModels(): void {
    const d = this.dims;
    const p = this.p;
    const g = this.g;
    const F = d.features;
    const Hm = d.metaHidden;
    const C = Hm + d.residual;
    const E = d.embed;
    const H1 = d.hidden1;
    const gz = new Float64Array(E);
    const gp = new Float64Array(E);
    const gc = new Float64Array(C);
    for (let a = 0; a < d.models; a++) {
      const go = a * H1;
      for (let j = 0; j < H1; j++) g.b1[j] = (g.b1[j] as number) + (this.gzc[go + j] as number);
      for (let i = 0; i < E; i++) {
        const zi = this.z[a * E + i] as number;
        const row = (d.historyDim + i) * H1;
        let s = 0;
        for (let j = 0; j < H1; j++) {
          const gj = this.gzc[go + j] as number;
          g.w1[row + j] = (g.w1[row + j] as number) + zi * gj;
          s += (p.w1[row + j] as number) * gj;
        }
        gz[i] = s;
      }
      // LayerNorm: z = γ·x̂ + β, x̂ = (p − μ)·inv  ⇒  ∂p = inv·(∂x̂ − mean(∂x̂) − x̂·mean(∂x̂·x̂)).
      let mg = 0;
      let mgx = 0;
      for (let j = 0; j < E; j++) {
        const xh = this.xhat[a * E + j] as number;
        g.lnGamma[j] = (g.lnGamma[j] as number) + (gz[j] as number) * xh;
        g.lnBeta[j] = (g.lnBeta[j] as number) + (gz[j] as number);
        const gx = (gz[j] as number) * (p.lnGamma[j] as number);
        gp[j] = gx;
        mg += gx;
        mgx += gx * xh;
      }
      mg /= E;
      mgx /= E;
      const inv = this.inv[a] as number;
      for (let j = 0; j < E; j++) gp[j] = inv * ((gp[j] as number) - mg - (this.xhat[a * E + j] as number) * mgx);
      for (let j = 0; j < E; j++) g.projB[j] = (g.projB[j] as number) + (gp[j] as number);
      for (let i = 0; i < C; i++) {
        const ci = this.cat[a * C + i] as number;
        const row = i * E;
        let s = 0;
        for (let j = 0; j < E; j++) {
          g.projW[row + j] = (g.projW[row + j] as number) + ci * (gp[j] as number);
          s += (p.projW[row + j] as number) * (gp[j] as number);
        }
        gc[i] = s;
      }
      for (let i = 0; i < d.residual; i++) g.residual[a * d.residual + i] = (g.residual[a * d.residual + i] as number) + (gc[Hm + i] as number);
      for (let j = 0; j < Hm; j++) {
        if ((this.a1[a * Hm + j] as number) <= 0) continue;
        const ga = gc[j] as number;
        g.metaB[j] = (g.metaB[j] as number) + ga;
        for (let i = 0; i < F; i++) g.metaW[i * Hm + j] = (g.metaW[i * Hm + j] as number) + (this.modelFeatures[a * F + i] as number) * ga;
      }
    }
  }

  /** The weights in the layout of weights.ts (standalone copies, safe to post to another thread). */
  toWeights(models: readonly string[]): EstimatorWeights {
    const d = this.dims;
    const p = this.p;
    const dense = (w: Float32Array, b: Float32Array, inDim: number, outDim: number): Dense => ({ w: w.slice(), b: b.slice(), inDim, outDim });
    return {
      historyDim: d.historyDim,
      models: [...models],
      modelFeatures: this.modelFeatures.slice(),
      meta: dense(p.metaW, p.metaB, d.features, d.metaHidden),
      residual: p.residual.slice(),
      proj: dense(p.projW, p.projB, d.metaHidden + d.residual, d.embed),
      lnGamma: p.lnGamma.slice(),
      lnBeta: p.lnBeta.slice(),
      head1: dense(p.w1, p.b1, d.historyDim + d.embed, d.hidden1),
      head2: dense(p.w2, p.b2, d.hidden1, d.hidden2),
      out: dense(p.w3, p.b3, d.hidden2, 1),
    };
  }
}

/** AdamW on flat arrays (PyTorch semantics: θ ← θ·(1 − lr·wd) − lr·m̂/(√v̂ + ε)). */
export class AdamW {
  private readonly m: Float64Array;
  private readonly v: Float64Array;
  private t = 0;

  constructor(
    n: number,
    private readonly beta1: number,
    private readonly beta2: number,
    private readonly weightDecay: number,
  ) {
    this.m = new Float64Array(n);
    this.v = new Float64Array(n);
  }

  step(theta: Float32Array, grad: Float64Array, lr: number): void {
    this.t++;
    const { beta1: b1, beta2: b2, m, v } = this;
    const c1 = 1 / (1 - b1 ** this.t);
    const c2 = 1 / (1 - b2 ** this.t);
    const decay = 1 - lr * this.weightDecay;
    for (let i = 0; i < theta.length; i++) {
      const gi = grad[i] as number;
      const mi = b1 * (m[i] as number) + (1 - b1) * gi;
      const vi = b2 * (v[i] as number) + (1 - b2) * gi * gi;
      m[i] = mi;
      v[i] = vi;
      theta[i] = (theta[i] as number) * decay - (lr * mi * c1) / (Math.sqrt(vi * c2) + ADAM_EPS);
    }
  }
}

/** Cosine annealing from `lr` at step 0 to `minLr` at `total` steps. */
export function cosineLr(step: number, total: number, lr: number, minLr: number): number {
  const x = total > 0 ? Math.min(step / total, 1) : 1;
  return minLr + 0.5 * (lr - minLr) * (1 + Math.cos(Math.PI * x));
}

/** Scales `grad` to norm ≤ max; returns the norm before clipping. */
export function clipGradNorm(grad: Float64Array, max: number): number {
  let s = 0;
  for (let i = 0; i < grad.length; i++) s += (grad[i] as number) ** 2;
  const norm = Math.sqrt(s);
  if (norm > max) {
    const k = max / norm;
    for (let i = 0; i < grad.length; i++) grad[i] = (grad[i] as number) * k;
  }
  return norm;
}

export function meanAbsoluteError(pred: ArrayLike<number>, target: ArrayLike<number>, rows: Int32Array): number {
  if (rows.length === 0) return NaN;
  let s = 0;
  for (let i = 0; i < rows.length; i++) s += Math.abs((pred[i] as number) - (target[rows[i] as number] as number));
  return s / rows.length;
}

/** Average ranks (ties share their mean rank). */
function ranks(x: ArrayLike<number>): Float64Array {
  const n = x.length;
  const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) => (x[a] as number) - (x[b] as number));
  const r = new Float64Array(n);
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && x[idx[j + 1] as number] === x[idx[i] as number]) j++;
    const rank = (i + j) / 2;
    for (let k = i; k <= j; k++) r[idx[k] as number] = rank;
    i = j + 1;
  }
  return r;
}

/** Spearman's ρ (Pearson correlation of average ranks); NaN when either side is constant or n < 2. */
export function spearman(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  if (n < 2) return NaN;
  const ra = ranks(a);
  const rb = ranks(b);
  const mean = (n - 1) / 2;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const x = (ra[i] as number) - mean;
    const y = (rb[i] as number) - mean;
    sab += x * y;
    saa += x * x;
    sbb += y * y;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : NaN;
}

export interface TrainResult {
  weights: EstimatorWeights;
  metrics: TrainMetrics;
}

/** Trains on the training rows, early-stopping on the validation rows; returns the best epoch's weights. */
export function trainEstimator(data: TrainingRows, options: TrainOptions = {}): TrainResult {
  // An option given as undefined means "the default", not "none" (a spread would copy the undefined).
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as TrainOptions;
  const o = { ...TRAIN_DEFAULTS, ...given };
  const started = performance.now();
  const { train, validation } = splitRows(data);
  if (train.length === 0) throw new Error('no training rows');
  const dims = netDims(data, options.dims);
  const net = new EstimatorNet(dims, data.modelFeatures);
  let targetMean = 0;
  for (const r of train) targetMean += data.target[r] as number;
  targetMean /= train.length;
  net.init(new SeededRandom(o.seed, STREAM.init), targetMean);
  const shuffleRng = new SeededRandom(o.seed, STREAM.shuffle);
  const dropoutRng = new SeededRandom(o.seed, STREAM.dropout);
  const adam = new AdamW(net.flat.length, o.beta1, o.beta2, o.weightDecay);
  const order = train.slice();
  const batches = Math.ceil(train.length / o.batchSize);
  const totalSteps = batches * o.maxEpochs;
  // Without validation rows (a tiny log) the training rows stand in, so early stopping still has a signal.
  const evalRows = validation.length ? validation : train;
  const best = net.flat.slice();
  let bestMae = Infinity;
  let bestEpoch = 0;
  let bad = 0;
  let step = 0;
  let lr: number = o.lr;
  let trainSeconds = 0;
  const history: EpochProgress[] = [];
  let stopped: TrainMetrics['stopped'] = 'max_epochs';
  const reportEvery = Math.max(1, Math.floor(batches / 20));

  for (let epoch = 1; epoch <= o.maxEpochs; epoch++) {
    const t0 = performance.now();
    shuffleRng.shuffle(order);
    let sq = 0;
    for (let bi = 0; bi < batches; bi++) {
      const start = bi * o.batchSize;
      const count = Math.min(o.batchSize, order.length - start);
      net.grad.fill(0);
      const { mse } = net.lossAndGrad(data, order, start, count, o.dropout > 0 ? dropoutRng : null, o.dropout, o.residualL2);
      sq += mse * count;
      clipGradNorm(net.grad, o.clipNorm);
      lr = cosineLr(step, totalSteps, o.lr, o.minLr);
      adam.step(net.flat, net.grad, lr);
      step++;
      if (options.onBatch && (bi + 1) % reportEvery === 0) options.onBatch({ epoch, fraction: (bi + 1) / batches });
    }
    const seconds = (performance.now() - t0) / 1000;
    trainSeconds += seconds;
    const valMae = meanAbsoluteError(net.predict(data, evalRows), data.target, evalRows);
    if (valMae < bestMae) {
      bestMae = valMae;
      bestEpoch = epoch;
      best.set(net.flat);
      bad = 0;
    } else {
      bad++;
    }
    const progress: EpochProgress = {
      epoch,
      maxEpochs: o.maxEpochs,
      trainLoss: sq / train.length,
      valMae,
      lr,
      bestEpoch,
      bestValMae: bestMae,
      seconds,
      rowsPerSecond: train.length / seconds,
    };
    history.push(progress);
    options.onEpoch?.(progress);
    if (bad >= o.patience) {
      stopped = 'early';
      break;
    }
  }
  net.flat.set(best);

  const valPred = net.predict(data, validation);
  const trainPred = net.predict(data, train);
  const valTargets = Float64Array.from(validation, (r) => data.target[r] as number);
  let baseline = 0;
  for (const r of validation) baseline += Math.abs((data.target[r] as number) - targetMean);
  const metrics: TrainMetrics = {
    valMae: meanAbsoluteError(valPred, data.target, validation),
    valSpearman: spearman(valPred, valTargets),
    baselineMae: validation.length ? baseline / validation.length : NaN,
    trainMae: meanAbsoluteError(trainPred, data.target, train),
    trainRows: train.length,
    validationRows: validation.length,
    epochs: history.length,
    bestEpoch,
    stopped,
    rowsPerSecond: (train.length * history.length) / trainSeconds,
    seconds: (performance.now() - started) / 1000,
    history,
  };
  return { weights: net.toWeights(data.models), metrics };
}
