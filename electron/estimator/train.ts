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
 * clipping and best-epoch snapshots are single loops; gradients mirror it in float64. Both, the Adam moments
 * and the batch buffers live in one WebAssembly memory whose SIMD kernels (trainKernels.ts) run the inner
 * products. The model side (z_a for every candidate, then z_a · W1a + b1) is computed once per batch, because
 * there are K ≈ 6 models and 64 rows. A batch then goes layer by layer:
 *   forward   each row's non-zero inputs as an index/value list: its hashed text (~270 non-zeros of 1024) and
 *             structured features select rows of W1 (a sparse first layer); its active units after ReLU and
 *             dropout (about half) select rows of W2
 *   backward  per row, the output and second-layer deltas, and the first-layer delta of the active units only;
 *             then W2's and W1's gradients row by row from the transposed lists (for each input unit, the batch
 *             rows where it was non-zero), each row written once. Row gradients of the model side are summed
 *             per model and backpropagated through W1a, LayerNorm, the projection and the metadata MLP.
 * Every sum keeps the order of the row-at-a-time loops this replaced (train.test.ts pins their results); it
 * trains 4–5× faster (BENCHMARKS.md, "Estimator training").
 */
import { DEFAULT_TRAIN_PATIENCE } from '../../shared/apiEstimator.ts';
import type { TrainingRows } from './dataset.ts';
import { wholeSet, type RowsOf, type TrainingParts } from './trainingParts.ts';
import { STREAM, SeededRandom } from './seededRandom.ts';
import { KernelMemory } from './trainKernels.ts';
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
  /** Layers of the model encoder's attribute MLP (TrainOptions.attributeLayers). */
  attributeLayers: 1 | 2;
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
  /**
   * The model encoder's attribute MLP: 1 layer, h_a = ReLU(f_a·W + b) (ours), or 2, ReLU(f_a·W + b)·W' + b'
   * (the reference implementation's Linear → ReLU → Linear; mtrouterTraining.ts).
   */
  attributeLayers?: 1 | 2;
  /** The residual embeddings' start: N(0, 0.1²) ('normal', ours) or zeros ('zero', the reference's). */
  residualInit?: 'normal' | 'zero';
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
  attributeLayers: 1,
  residualInit: 'normal',
} as const satisfies TrainOptions;
const ADAM_EPS = 1e-8;
/** Rows per forward batch when scoring (predict); the batch buffers hold at least this many. */
const PREDICT_BATCH = 256;

/**
 * Transposes per-row index lists (row b's entries are [start[b], start[b+1]) of idx/val, b < rows) into
 * per-unit lists of rows: unit u's are [tStart[u], tStart[u+1]) of tRow/tVal, rows in increasing order.
 * `cursor` is scratch of length `units`.
 */
function transposeLists(
  start: Int32Array,
  idx: Int32Array,
  val: Float64Array,
  rows: number,
  units: number,
  tStart: Int32Array,
  tRow: Int32Array,
  tVal: Float64Array,
  cursor: Int32Array,
): void {
  tStart.fill(0, 0, units + 1);
  const end = start[rows] as number;
  for (let k = 0; k < end; k++) {
    const u = (idx[k] as number) + 1;
    tStart[u] = (tStart[u] as number) + 1;
  }
  for (let u = 0; u < units; u++) {
    tStart[u + 1] = (tStart[u + 1] as number) + (tStart[u] as number);
    cursor[u] = tStart[u] as number;
  }
  for (let b = 0; b < rows; b++) {
    for (let k = start[b] as number, e = start[b + 1] as number; k < e; k++) {
      const u = idx[k] as number;
      const at = cursor[u] as number;
      cursor[u] = at + 1;
      tRow[at] = b;
      tVal[at] = val[k] as number;
    }
  }
}

interface Tensors<A> {
  metaW: A;
  metaB: A;
  meta2W: A;
  meta2B: A;
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
    // The attribute MLP's second layer: empty (and so drawing nothing at initialisation) with one layer.
    ['meta2W', d.attributeLayers === 2 ? d.metaHidden * d.metaHidden : 0],
    ['meta2B', d.attributeLayers === 2 ? d.metaHidden : 0],
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

export function netDims(data: Pick<TrainingRows, 'historyDim' | 'textDim' | 'models'>, dims: TrainOptions['dims'] = {}, attributeLayers: 1 | 2 = 1): NetDims {
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
    attributeLayers,
  };
}

/**
 * The network with its parameters, gradients and per-batch caches. `lossAndGrad` is the training step's
 * forward and backward; `predict` the inference forward (no dropout).
 */
export class EstimatorNet {
  /** Where the parameters, gradients and batch buffers live, with the kernels that read them (trainKernels.ts). */
  readonly memory = new KernelMemory();
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
  private readonly b2: Float64Array;
  // Rows, per batch: [B × …] activations, dropout masks and gradients.
  private cap = 0;
  private u1: Float64Array = new Float64Array(0);
  private m1: Float64Array = new Float64Array(0);
  private u2: Float64Array = new Float64Array(0);
  private m2: Float64Array = new Float64Array(0);
  private d2: Float64Array = new Float64Array(0);
  private y: Float64Array = new Float64Array(0);
  private gu1: Float64Array = new Float64Array(0);
  private gu2: Float64Array = new Float64Array(0);
  // Each row's non-zero inputs (history features; after ReLU and dropout, hidden units) as index/value lists:
  // row b's are [start[b], start[b+1]).
  private xStart: Int32Array = new Int32Array(1);
  private xIdx: Int32Array = new Int32Array(0);
  private xVal: Float64Array = new Float64Array(0);
  private hStart: Int32Array = new Int32Array(1);
  private hIdx: Int32Array = new Int32Array(0);
  private hVal: Float64Array = new Float64Array(0);
  // The same lists transposed, per input unit: the batch rows in which it is non-zero, in row order.
  private readonly xtStart: Int32Array;
  private xtRow: Int32Array = new Int32Array(0);
  private xtVal: Float64Array = new Float64Array(0);
  private readonly htStart: Int32Array;
  private htRow: Int32Array = new Int32Array(0);
  private htVal: Float64Array = new Float64Array(0);
  private readonly cursor: Int32Array;

  /** `flat`, when given, is copied in (the parameters live in `memory`). */
  constructor(
    readonly dims: NetDims,
    readonly modelFeatures: Float32Array,
    flat?: Float32Array,
  ) {
    const n = paramCount(dims);
    if (flat && flat.length !== n) throw new Error(`expected ${n} parameters, got ${flat.length}`);
    if (modelFeatures.length !== dims.models * dims.features) throw new Error('model features do not match the pool');
    this.flat = this.memory.f32(n);
    if (flat) this.flat.set(flat);
    this.grad = this.memory.f64(n);
    this.p = views(this.flat, dims);
    this.g = views(this.grad, dims);
    const K = dims.models;
    this.a1 = new Float64Array(K * dims.metaHidden);
    this.cat = new Float64Array(K * (dims.metaHidden + dims.residual));
    this.xhat = new Float64Array(K * dims.embed);
    this.inv = new Float64Array(K);
    this.z = new Float64Array(K * dims.embed);
    this.zc = this.memory.f64(K * dims.hidden1);
    this.gzc = new Float64Array(K * dims.hidden1);
    this.b2 = this.memory.f64(dims.hidden2);
    this.xtStart = new Int32Array(dims.historyDim + 1);
    this.htStart = new Int32Array(dims.hidden1 + 1);
    this.cursor = new Int32Array(Math.max(dims.historyDim, dims.hidden1));
  }

  /**
   * PyTorch-style initialisation: U(±1/√fan_in) for linear layers, residuals N(0, 0.1²) or zeros
   * (`residualInit`), LayerNorm 1/0.
   */
  init(rng: SeededRandom, outBias: number, residualInit: 'normal' | 'zero' = 'normal'): void {
    const d = this.dims;
    const uniform = (a: Float32Array, fanIn: number): void => {
      const bound = 1 / Math.sqrt(fanIn);
      for (let i = 0; i < a.length; i++) a[i] = (2 * rng.next() - 1) * bound;
    };
    const p = this.p;
    uniform(p.metaW, d.features);
    uniform(p.metaB, d.features);
    uniform(p.meta2W, d.metaHidden);
    uniform(p.meta2B, d.metaHidden);
    if (residualInit === 'zero') p.residual.fill(0);
    else for (let i = 0; i < p.residual.length; i++) p.residual[i] = 0.1 * rng.normal();
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

  /**
   * Batch buffers for `b` rows (at least PREDICT_BATCH, so training and scoring share one set), the index
   * lists sized for every feature of every row: the memory only grows, so they are allocated once.
   */
  private reserve(b: number): void {
    if (b <= this.cap) return;
    const { hidden1: H1, hidden2: H2, historyDim: D } = this.dims;
    const mem = this.memory;
    b = Math.max(b, PREDICT_BATCH);
    this.cap = b;
    this.u1 = mem.f64(b * H1);
    this.m1 = mem.f64(b * H1);
    this.u2 = mem.f64(b * H2);
    this.m2 = new Float64Array(b * H2);
    this.d2 = new Float64Array(b * H2);
    this.y = new Float64Array(b);
    this.gu1 = mem.f64(b * H1);
    this.gu2 = mem.f64(b * H2);
    this.xStart = new Int32Array(b + 1);
    this.xIdx = mem.i32(b * D);
    this.xVal = mem.f64(b * D);
    this.xtRow = mem.i32(b * D);
    this.xtVal = mem.f64(b * D);
    this.hStart = new Int32Array(b + 1);
    this.hIdx = mem.i32(b * H1);
    this.hVal = mem.f64(b * H1);
    this.htRow = mem.i32(b * H1);
    this.htVal = mem.f64(b * H1);
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
      if (d.attributeLayers === 2) {
        // cat[0 … Hm) = ReLU(a1) · W' + b' (no activation after the second layer, as in the reference)
        for (let j = 0; j < Hm; j++) {
          let s = p.meta2B[j] as number;
          for (let i = 0; i < Hm; i++) {
            const r = this.a1[a * Hm + i] as number;
            if (r > 0) s += r * (p.meta2W[i * Hm + j] as number);
          }
          this.cat[a * C + j] = s;
        }
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

  /**
   * Forward for rows[start … start+count), into the batch caches; dropout when `rng` is given. Leaves each
   * row's non-zero history features in xStart/xIdx/xVal and its non-zero first-layer units in hStart/hIdx/hVal.
   */
  private forwardRows(data: TrainingRows, rows: Int32Array, start: number, count: number, rng: SeededRandom | null, dropout: number): void {
    this.reserve(count);
    const d = this.dims;
    const p = this.p;
    const H1 = d.hidden1;
    const H2 = d.hidden2;
    const S = d.historyDim - d.textDim;
    const { textIndptr: indptr, textIndices, textValues, structured } = data;

    const { xStart, xIdx, xVal } = this;
    let at = 0;
    for (let b = 0; b < count; b++) {
      const r = rows[start + b] as number;
      xStart[b] = at;
      // The lists hold historyDim entries per row: one per feature, as the encoders write them.
      if ((indptr[r + 1] as number) - (indptr[r] as number) > d.textDim) throw new Error(`row ${r} has more text features than the ${d.textDim} there are`);
      for (let k = indptr[r] as number, end = indptr[r + 1] as number; k < end; k++) {
        xIdx[at] = textIndices[k] as number;
        xVal[at++] = textValues[k] as number;
      }
      for (let s = 0; s < S; s++) {
        const v = structured[r * S + s] as number;
        if (v === 0) continue;
        xIdx[at] = d.textDim + s;
        xVal[at++] = v;
      }
    }
    xStart[count] = at;

    // Dropout masks in the order the trainer has always drawn them: each row's first layer, then its second.
    const { m1, m2 } = this;
    if (rng) {
      const scale = 1 / (1 - dropout);
      // Kept when a uniform 32-bit draw falls below keep · 2^32 (no float division per unit).
      const keepBelow = (1 - dropout) * 4294967296;
      for (let b = 0; b < count; b++) {
        for (let j = b * H1, end = j + H1; j < end; j++) m1[j] = rng.uint32() < keepBelow ? scale : 0;
        for (let j = b * H2, end = j + H2; j < end; j++) m2[j] = rng.uint32() < keepBelow ? scale : 0;
      }
    } else {
      m1.fill(1, 0, count * H1);
      m2.fill(1, 0, count * H2);
    }

    const { memory: mem, u1, u2, d2, y, zc, b2, hStart, hIdx, hVal } = this;
    for (let j = 0; j < H2; j++) b2[j] = p.b2[j] as number;
    const w3 = p.w3;
    let h = 0;
    for (let b = 0; b < count; b++) {
      const r = rows[start + b] as number;
      const o1 = b * H1;
      mem.gatherRows(u1, o1, zc, (data.model[r] as number) * H1, xIdx, xVal, xStart[b] as number, xStart[b + 1] as number, p.w1, H1);
      hStart[b] = h;
      for (let j = 0; j < H1; j++) {
        const u = u1[o1 + j] as number;
        if (!(u > 0)) continue;
        const v = u * (m1[o1 + j] as number);
        if (v === 0) continue; // dropped: neither its value nor its gradient flows
        hIdx[h] = j;
        hVal[h++] = v;
      }
      const o2 = b * H2;
      mem.gatherRows(u2, o2, b2, 0, hIdx, hVal, hStart[b] as number, h, p.w2, H2);
      let out = p.b3[0] as number;
      for (let j = 0; j < H2; j++) {
        const u = u2[o2 + j] as number;
        const v = u > 0 ? u * (m2[o2 + j] as number) : 0;
        d2[o2 + j] = v;
        out += v * (w3[j] as number);
      }
      y[b] = out;
    }
    hStart[count] = h;
  }

  /** ŝ for the given rows (no dropout). */
  predict(data: TrainingRows, rows: Int32Array, batchSize = PREDICT_BATCH): Float64Array {
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
   * Forward and backward for one batch: writes ∂loss/∂θ into `grad` (every element) and returns
   * { mse, loss } where loss = mse + λ‖residual‖². Dropout only when `rng` is given.
   *
   * The two large weight gradients are sums over the batch of outer products, xᵀ·δ. Each row of them is
   * written once from the per-unit lists of the rows where that input was non-zero (a hashed history feature
   * appears in a few of the 64 rows; a hidden unit is active in about half), instead of adding each row's
   * contribution into float64 rows of W1 and W2 (2 MB and 0.5 MB) one batch row at a time.
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
    this.forwardModels();
    this.forwardRows(data, rows, start, count, rng, dropout);
    // Everything but W1's history rows and W2 is accumulated below; those two are written whole.
    const at = (t: Float64Array): number => (t.byteOffset - this.grad.byteOffset) / Float64Array.BYTES_PER_ELEMENT;
    this.grad.fill(0, 0, at(g.w1));
    g.w1.fill(0, d.historyDim * H1);
    this.grad.fill(0, at(g.b1), at(g.w2));
    this.grad.fill(0, at(g.b2));
    const { memory: mem, m1, u2, m2, d2, y, gu1, gu2, gzc, hStart, hIdx } = this;
    const w2 = p.w2;
    const w3 = p.w3;
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
        const gu = (u2[o2 + j] as number) > 0 ? gy * (w3[j] as number) * (m2[o2 + j] as number) : 0;
        gu2[o2 + j] = gu;
        g.b2[j] = (g.b2[j] as number) + gu;
      }
      gu1.fill(0, o1, o1 + H1);
      mem.backpropActive(gu1, m1, o1, hIdx, hStart[b] as number, hStart[b + 1] as number, w2, gu2, o2, H2);
      const mo = (data.model[r] as number) * H1;
      for (let j = 0; j < H1; j++) gzc[mo + j] = (gzc[mo + j] as number) + (gu1[o1 + j] as number);
    }

    const { htStart, htRow, htVal, cursor } = this;
    transposeLists(hStart, hIdx, this.hVal, count, H1, htStart, htRow, htVal, cursor);
    for (let i = 0; i < H1; i++) mem.gatherGradRow(g.w2, i * H2, htRow, htVal, htStart[i] as number, htStart[i + 1] as number, gu2, H2);
    const { xtStart, xtRow, xtVal } = this;
    transposeLists(this.xStart, this.xIdx, this.xVal, count, d.historyDim, xtStart, xtRow, xtVal, cursor);
    for (let f = 0; f < d.historyDim; f++) mem.gatherGradRow(g.w1, f * H1, xtRow, xtVal, xtStart[f] as number, xtStart[f + 1] as number, gu1, H1);

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
    const gr = new Float64Array(Hm);
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
      if (d.attributeLayers === 2) {
        // Through the second attribute layer: ∂W' = ReLU(a1)ᵀ·∂cat, ∂ReLU(a1) = W'·∂cat (left in gc[0 … Hm)).
        for (let j = 0; j < Hm; j++) g.meta2B[j] = (g.meta2B[j] as number) + (gc[j] as number);
        for (let i = 0; i < Hm; i++) gr[i] = 0;
        for (let i = 0; i < Hm; i++) {
          const r = this.a1[a * Hm + i] as number;
          if (!(r > 0)) continue;
          let s = 0;
          for (let j = 0; j < Hm; j++) {
            g.meta2W[i * Hm + j] = (g.meta2W[i * Hm + j] as number) + r * (gc[j] as number);
            s += (p.meta2W[i * Hm + j] as number) * (gc[j] as number);
          }
          gr[i] = s;
        }
        for (let i = 0; i < Hm; i++) gc[i] = gr[i] as number;
      }
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
      ...(d.attributeLayers === 2 ? { meta2: dense(p.meta2W, p.meta2B, d.metaHidden, d.metaHidden) } : {}),
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

/**
 * AdamW on flat arrays (PyTorch semantics: θ ← θ·(1 − lr·wd) − lr·m̂/(√v̂ + ε)), every parameter every step,
 * as the kernel of trainKernels.ts computes it. `gradScale` multiplies the gradient first (the clipping
 * factor), so scaling costs no pass of its own. θ and the gradient must live in `memory`.
 */
export class AdamW {
  private readonly m: Float64Array;
  private readonly v: Float64Array;
  private t = 0;

  constructor(
    private readonly memory: KernelMemory,
    n: number,
    private readonly beta1: number,
    private readonly beta2: number,
    private readonly weightDecay: number,
  ) {
    this.m = memory.f64(n);
    this.v = memory.f64(n);
  }

  step(theta: Float32Array, grad: Float64Array, lr: number, gradScale = 1): void {
    this.t++;
    const { beta1: b1, beta2: b2 } = this;
    this.memory.adamw(theta, grad, this.m, this.v, {
      scale: gradScale,
      b1,
      ob1: 1 - b1,
      b2,
      ob2: 1 - b2,
      decay: 1 - lr * this.weightDecay,
      lr,
      c1: 1 / (1 - b1 ** this.t),
      c2: 1 / (1 - b2 ** this.t),
      eps: ADAM_EPS,
    });
  }
}

/** Cosine annealing from `lr` at step 0 to `minLr` at `total` steps. */
export function cosineLr(step: number, total: number, lr: number, minLr: number): number {
  const x = total > 0 ? Math.min(step / total, 1) : 1;
  return minLr + 0.5 * (lr - minLr) * (1 + Math.cos(Math.PI * x));
}

/** The factor that scales `grad` (in `memory`) to a global norm of at most `max` (1 when it is within). */
export function clipScale(memory: KernelMemory, grad: Float64Array, max: number): number {
  const norm = Math.sqrt(memory.sumSquares(grad));
  return norm > max ? max / norm : 1;
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
  return rankCorrelation(sab, saa, sbb);
}

/** ρ from the centred sums of the ranks' cross-products and squares; NaN when either side is constant. */
function rankCorrelation(sab: number, saa: number, sbb: number): number {
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : NaN;
}

/**
 * Spearman's ρ from sums over n pairs of 0-based average ranks (Σab, Σa², Σb²), for ranks summed where the pairs
 * live (a ClickHouse store): the ranks' mean is (n − 1) / 2 whatever the ties, so the centred sums follow.
 */
export function spearmanOfRankSums(n: number, sums: { ab: number; aa: number; bb: number }): number {
  if (n < 2) return NaN;
  const mean = (n - 1) / 2;
  const shift = n * mean * mean;
  // A side of equal values has every rank at the mean: its sum differs from the shift by rounding alone, which
  // must not read as variance (the least real one, a single value apart, is about shift / n).
  const centred = (x: number): number => (Math.abs(x - shift) <= shift * 1e-9 ? 0 : x - shift);
  return rankCorrelation(sums.ab - shift, centred(sums.aa), centred(sums.bb));
}

export interface TrainResult {
  weights: EstimatorWeights;
  metrics: TrainMetrics;
}

/** Trains on the training rows, early-stopping on the validation rows; returns the best epoch's weights. */
export function trainEstimator(data: TrainingRows, options: TrainOptions = {}): TrainResult {
  return trainOnParts(wholeSet(data), options);
}

/**
 * The same training over rows in parts (trainingParts.ts): each epoch visits the parts in a shuffled order and
 * each part's rows in a shuffled order, in batches that do not cross parts. One part is the whole-set trainer.
 */
export function trainOnParts(parts: TrainingParts, options: TrainOptions = {}): TrainResult {
  // An option given as undefined means "the default", not "none" (a spread would copy the undefined).
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as TrainOptions;
  const o = { ...TRAIN_DEFAULTS, ...given };
  const started = performance.now();
  const trainTotal = parts.trainRows.reduce((a, b) => a + b, 0);
  if (trainTotal === 0) throw new Error('no training rows');
  if (parts.stopOn.rows.length === 0) throw new Error('no rows to stop early on');
  const dims = netDims(parts.shape, options.dims, o.attributeLayers);
  const net = new EstimatorNet(dims, parts.shape.modelFeatures);
  const targetMean = parts.targetMean;
  net.init(new SeededRandom(o.seed, STREAM.init), targetMean, o.residualInit);
  const shuffleRng = new SeededRandom(o.seed, STREAM.shuffle);
  const dropoutRng = new SeededRandom(o.seed, STREAM.dropout);
  const adam = new AdamW(net.memory, net.flat.length, o.beta1, o.beta2, o.weightDecay);
  const partOrder = Int32Array.from(parts.trainRows, (_n, i) => i);
  const batches = parts.trainRows.reduce((a, n) => a + Math.ceil(n / o.batchSize), 0);
  const totalSteps = batches * o.maxEpochs;
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
  const predictMae = ({ data, rows }: RowsOf): number => meanAbsoluteError(net.predict(data, rows), data.target, rows);

  for (let epoch = 1; epoch <= o.maxEpochs; epoch++) {
    const t0 = performance.now();
    shuffleRng.shuffle(partOrder);
    let sq = 0;
    let bi = 0;
    for (const p of partOrder) {
      const { data, order } = parts.part(p);
      shuffleRng.shuffle(order);
      for (let start = 0; start < order.length; start += o.batchSize) {
        const count = Math.min(o.batchSize, order.length - start);
        const { mse } = net.lossAndGrad(data, order, start, count, o.dropout > 0 ? dropoutRng : null, o.dropout, o.residualL2);
        sq += mse * count;
        lr = cosineLr(step, totalSteps, o.lr, o.minLr);
        adam.step(net.flat, net.grad, lr, clipScale(net.memory, net.grad, o.clipNorm));
        step++;
        bi++;
        if (options.onBatch && bi % reportEvery === 0) options.onBatch({ epoch, fraction: bi / batches });
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    trainSeconds += seconds;
    const valMae = predictMae(parts.stopOn);
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
      trainLoss: sq / trainTotal,
      valMae,
      lr,
      bestEpoch,
      bestValMae: bestMae,
      seconds,
      rowsPerSecond: trainTotal / seconds,
    };
    history.push(progress);
    options.onEpoch?.(progress);
    if (bad >= o.patience) {
      stopped = 'early';
      break;
    }
  }
  net.flat.set(best);

  const { data: valData, rows: validation } = parts.validation;
  const valPred = net.predict(valData, validation);
  const valTargets = Float64Array.from(validation, (r) => valData.target[r] as number);
  let baseline = 0;
  for (const r of validation) baseline += Math.abs((valData.target[r] as number) - targetMean);
  // The training MAE part by part, summed in the rows' order (one part: meanAbsoluteError over the training rows).
  let trainAbs = 0;
  for (let p = 0; p < parts.trainRows.length; p++) {
    const { data, train } = parts.part(p);
    const pred = net.predict(data, train);
    for (let i = 0; i < train.length; i++) trainAbs += Math.abs((pred[i] as number) - (data.target[train[i] as number] as number));
  }
  const metrics: TrainMetrics = {
    valMae: meanAbsoluteError(valPred, valData.target, validation),
    valSpearman: spearman(valPred, valTargets),
    baselineMae: validation.length ? baseline / validation.length : NaN,
    trainMae: trainAbs / trainTotal,
    trainRows: trainTotal,
    validationRows: validation.length,
    epochs: history.length,
    bestEpoch,
    stopped,
    rowsPerSecond: (trainTotal * history.length) / trainSeconds,
    seconds: (performance.now() - started) / 1000,
    history,
  };
  return { weights: net.toWeights(parts.shape.models), metrics };
}
