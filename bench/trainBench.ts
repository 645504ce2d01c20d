/**
 * Training benchmark (issue 14 item 8): rows/s of `trainEstimator` against a bare dense matrix product of
 * the same shapes, in the same run.
 *
 * Ours: the first `rows` training rows of the bench database's `sw-random` run (hash-1024 features of a
 * 512-token history window, as the shipped estimator is trained, plus the structured features; 6 models),
 * trained with the default network and options (batch 64, dropout, AdamW, clipping) for `epochs` epochs.
 * Rows/s is the trainer's own figure: training rows over the time of the epochs' training loops (forward,
 * backward and update; the per-epoch validation pass is not counted).
 *
 * Bare: for batches of 64 of the same rows made dense, the products a training step of this network would do
 * with dense layers, as plain float64-accumulating loops over the float32 weights, no zero skipped:
 *   forward  X·W1x [64 × D × 256], H1·W2 [64 × 256 × 256]
 *   backward G2·W2ᵀ [64 × 256 × 256], H1ᵀ·G2 [256 × 64 × 256], Xᵀ·G1 [D × 64 × 256]
 * i.e. 2·D·256 + 3·256² multiply-adds per row, and nothing else (no activation, loss, optimiser or model side).
 * The two are measured bare, ours, bare; the bare figure is the mean of its two runs.
 */
import { openDatabase } from '../electron/db/database.ts';
import { buildTrainingSet, type TrainingRows } from '../electron/estimator/dataset.ts';
import { trainEstimator } from '../electron/estimator/train.ts';
import { HEAD_HIDDEN } from '../electron/estimator/weights.ts';

export interface TrainBenchOptions {
  rows: number;
  epochs: number;
  run?: string;
}

export interface TrainBenchResult {
  run: string;
  rows: number;
  trainRows: number;
  epochs: number;
  historyDim: number;
  models: number;
  meanNonZero: number;
  batchSize: number;
  /** Training rows per second of the trainer (the mean over its epochs). */
  rowsPerSec: number;
  /** Rows per second of the bare dense products for the same rows. */
  bareRowsPerSec: number;
  bareMultiplyAddsPerRow: number;
  /** rowsPerSec / bareRowsPerSec. */
  ratio: number;
  trainSeconds: number;
  valMae: number;
  trainLoss: number[];
}

const BATCH = 64;

/** The rows as dense [batch × D] histories, batch after batch (cycled by the bare product). */
function denseBatches(data: TrainingRows, count: number): Float64Array[] {
  const D = data.historyDim;
  const S = D - data.textDim;
  const out: Float64Array[] = [];
  for (let first = 0; out.length < count && first + BATCH <= data.rows; first += BATCH) {
    const x = new Float64Array(BATCH * D);
    for (let b = 0; b < BATCH; b++) {
      const r = first + b;
      for (let k = data.textIndptr[r]!; k < data.textIndptr[r + 1]!; k++) x[b * D + data.textIndices[k]!] = data.textValues[k]!;
      for (let s = 0; s < S; s++) x[b * D + data.textDim + s] = data.structured[r * S + s]!;
    }
    out.push(x);
  }
  return out;
}

/** C[m × n] = A[m × k] · B[k × n] (i-k-j order, float64 rows of C). Each product has one signature, so V8 keeps it monomorphic. */
function matmul(C: Float64Array, A: Float64Array, B: Float32Array, m: number, k: number, n: number): void {
  C.fill(0, 0, m * n);
  for (let i = 0; i < m; i++) {
    for (let p = 0; p < k; p++) {
      const a = A[i * k + p]!;
      for (let j = 0; j < n; j++) C[i * n + j] = C[i * n + j]! + a * B[p * n + j]!;
    }
  }
}

/** C[k × n] = Aᵀ · B for A [m × k], B [m × n]. */
function matmulTransA(C: Float64Array, A: Float64Array, B: Float64Array, m: number, k: number, n: number): void {
  C.fill(0, 0, k * n);
  for (let i = 0; i < m; i++) {
    for (let p = 0; p < k; p++) {
      const a = A[i * k + p]!;
      for (let j = 0; j < n; j++) C[p * n + j] = C[p * n + j]! + a * B[i * n + j]!;
    }
  }
}

/** C[m × k] = A · Bᵀ for A [m × n], B [k × n]. */
function matmulTransB(C: Float64Array, A: Float64Array, B: Float32Array, m: number, n: number, k: number): void {
  for (let i = 0; i < m; i++) {
    for (let p = 0; p < k; p++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += A[i * n + j]! * B[p * n + j]!;
      C[i * k + p] = s;
    }
  }
}

/** Seconds for `steps` steps of the bare dense products. */
function bareProducts(xs: Float64Array[], D: number, steps: number): number {
  const [H1, H2] = HEAD_HIDDEN;
  const w1 = Float32Array.from({ length: D * H1 }, (_, i) => Math.sin(i) * 0.05);
  const w2 = Float32Array.from({ length: H1 * H2 }, (_, i) => Math.cos(i) * 0.05);
  const h1 = new Float64Array(BATCH * H1);
  const h2 = new Float64Array(BATCH * H2);
  const g1 = new Float64Array(BATCH * H1);
  const gw1 = new Float64Array(D * H1);
  const gw2 = new Float64Array(H1 * H2);
  let checksum = 0;
  const t0 = performance.now();
  for (let s = 0; s < steps; s++) {
    const x = xs[s % xs.length]!;
    matmul(h1, x, w1, BATCH, D, H1);
    matmul(h2, h1, w2, BATCH, H1, H2);
    matmulTransB(g1, h2, w2, BATCH, H2, H1); // h2 stands in for the output gradient: same shape, same cost
    matmulTransA(gw2, h1, h2, BATCH, H1, H2);
    matmulTransA(gw1, x, g1, BATCH, D, H1);
    checksum += gw1[s % gw1.length]! + gw2[s % gw2.length]!;
  }
  const seconds = (performance.now() - t0) / 1000;
  if (!Number.isFinite(checksum)) throw new Error('bare products: non-finite result');
  return seconds;
}

export function benchTrain(dbPath: string, options: TrainBenchOptions, log: (s: string) => void): TrainBenchResult {
  const run = options.run ?? 'sw-random';
  const db = openDatabase(dbPath);
  let data: TrainingRows;
  try {
    const all = buildTrainingSet(db, { runs: [run], maxHistoryTokens: 512 });
    data = { ...all, rows: Math.min(options.rows, all.rows) };
  } finally {
    db.close();
  }
  const D = data.historyDim;
  const nnz = data.textIndptr[data.rows]! / data.rows;
  log(`  ${run}: ${data.rows.toLocaleString('en-US')} rows, historyDim ${D}, ${nnz.toFixed(0)} non-zero text features per row, ${data.models.length} models`);

  const [H1, H2] = HEAD_HIDDEN;
  const macsPerRow = 2 * D * H1 + 3 * H1 * H2;
  const xs = denseBatches(data, 32);
  bareProducts(xs, D, 4); // warm-up
  // About as many rows as one epoch of ours would take at 8× the bare rate, at least 40 batches.
  const steps = Math.max(40, Math.min(400, Math.round(data.rows / BATCH / 8)));
  const bareBefore = bareProducts(xs, D, steps);
  const r = trainEstimator(data, { seed: 1, maxEpochs: options.epochs, patience: options.epochs });
  const bareAfter = bareProducts(xs, D, steps);
  const bareRowsPerSec = (2 * steps * BATCH) / (bareBefore + bareAfter);
  const m = r.metrics;
  return {
    run,
    rows: data.rows,
    trainRows: m.trainRows,
    epochs: m.epochs,
    historyDim: D,
    models: data.models.length,
    meanNonZero: nnz,
    batchSize: BATCH,
    rowsPerSec: m.rowsPerSecond,
    bareRowsPerSec,
    bareMultiplyAddsPerRow: macsPerRow,
    ratio: m.rowsPerSecond / bareRowsPerSec,
    trainSeconds: m.history.reduce((a, h) => a + h.seconds, 0),
    valMae: m.valMae,
    trainLoss: m.history.map((h) => h.trainLoss),
  };
}
