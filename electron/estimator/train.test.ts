import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { splitRows, type TrainingRows } from './dataset.ts';
import { createForward } from './forward.ts';
import { MTROUTER_TRAIN_CONFIG } from './mtrouterTraining.ts';
import { exportOnnx } from './onnxExport.ts';
import { EstimatorNet, cosineLr, meanAbsoluteError, netDims, spearman, trainEstimator } from './train.ts';
import { SeededRandom } from './seededRandom.ts';
import { MODEL_FEATURES } from './weights.ts';

/** A small synthetic problem: sparse "text", 4 structured features, 3 models, targets depending on all of them. */
function synthetic(rows: number, textDim: number, seed: number): TrainingRows {
  const rng = new SeededRandom(seed);
  const S = 4;
  const K = 3;
  const indptr = new Int32Array(rows + 1);
  const indices: number[] = [];
  const values: number[] = [];
  const structured = new Float32Array(rows * S);
  const model = new Int32Array(rows);
  const target = new Float32Array(rows);
  const validation = new Uint8Array(rows);
  for (let r = 0; r < rows; r++) {
    let signal = 0;
    const picked = new Set<number>();
    for (let k = 0; k < 3; k++) picked.add(rng.int(textDim));
    for (const j of [...picked].sort((a, b) => a - b)) {
      const v = rng.normal() * 0.5;
      indices.push(j);
      values.push(v);
      if (j % 2 === 0) signal += v;
    }
    indptr[r + 1] = indices.length;
    for (let s = 0; s < S; s++) structured[r * S + s] = rng.next();
    model[r] = rng.int(K);
    target[r] = 0.3 * signal + 0.2 * (model[r] as number) * (structured[r * S] as number) - 0.1 * (structured[r * S + 1] as number);
    validation[r] = r % 10 === 0 ? 1 : 0;
  }
  const modelFeatures = new Float32Array(K * MODEL_FEATURES.length);
  for (let i = 0; i < modelFeatures.length; i++) modelFeatures[i] = rng.normal();
  return {
    rows,
    historyDim: textDim + S,
    textDim,
    textIndptr: indptr,
    textIndices: Uint16Array.from(indices),
    textValues: Float32Array.from(values),
    structured,
    model,
    target,
    validation,
    models: ['a', 'b', 'c'],
    modelFeatures,
  };
}

/** The rows' histories as dense [rows × historyDim] float32, the scorer's input. */
function denseHistories(data: TrainingRows, rows: Int32Array): Float32Array {
  const D = data.historyDim;
  const S = D - data.textDim;
  const x = new Float32Array(rows.length * D);
  rows.forEach((r, i) => {
    for (let k = data.textIndptr[r]!; k < data.textIndptr[r + 1]!; k++) x[i * D + data.textIndices[k]!] = data.textValues[k]!;
    for (let s = 0; s < S; s++) x[i * D + data.textDim + s] = data.structured[r * S + s]!;
  });
  return x;
}

const TINY = { metaHidden: 5, residual: 3, embed: 6, hidden1: 7, hidden2: 5 };

describe('EstimatorNet gradients', () => {
  it.each([1, 2] as const)('match finite differences for every tensor (%i-layer attribute MLP)', (attributeLayers) => {
    const data = synthetic(12, 6, 1);
    const net = new EstimatorNet(netDims(data, TINY, attributeLayers), data.modelFeatures);
    net.init(new SeededRandom(3), 0.1);
    // Bigger residuals and LN gains than at initialisation, so every path carries gradient.
    for (let i = 0; i < net.p.residual.length; i++) net.p.residual[i] = (net.p.residual[i] as number) * 5;
    for (let i = 0; i < net.p.lnGamma.length; i++) net.p.lnGamma[i] = 0.5 + i / 10;
    const rows = Int32Array.from({ length: 12 }, (_, i) => i);
    const loss = (): number => {
      net.grad.fill(0);
      return net.lossAndGrad(data, rows, 0, rows.length, null, 0, 0.01).loss;
    };
    loss();
    const analytic = net.grad.slice();
    let checked = 0;
    let worst = 0;
    for (const [name, view] of Object.entries(net.p)) {
      const offset = view.byteOffset / 4;
      for (let k = 0; k < view.length; k += Math.max(1, Math.floor(view.length / 12))) {
        const i = offset + k;
        const orig = net.flat[i] as number;
        const h = 1e-4; // small enough not to cross a ReLU kink; parameters are float32, so the step actually taken is used
        net.flat[i] = orig + h;
        const up = net.flat[i] as number;
        const lp = loss();
        net.flat[i] = orig - h;
        const down = net.flat[i] as number;
        const lm = loss();
        net.flat[i] = orig;
        const numeric = (lp - lm) / (up - down);
        const a = analytic[i] as number;
        const err = Math.abs(numeric - a) / Math.max(1e-3, Math.abs(numeric) + Math.abs(a));
        worst = Math.max(worst, err);
        expect(err, `${name}[${k}]: analytic ${a}, numeric ${numeric}`).toBeLessThan(1e-5);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(attributeLayers === 2 ? 100 : 80);
    expect(worst).toBeLessThan(1e-5); // float64 throughout: measured ~3e-8
  });

  it('scores with dropout off in predict and on in training', () => {
    const data = synthetic(20, 8, 2);
    const net = new EstimatorNet(netDims(data, TINY), data.modelFeatures);
    net.init(new SeededRandom(1), 0);
    const rows = Int32Array.from({ length: 20 }, (_, i) => i);
    expect(Array.from(net.predict(data, rows, 7))).toEqual(Array.from(net.predict(data, rows, 64)));
    net.grad.fill(0);
    const plain = net.lossAndGrad(data, rows, 0, 20, null, 0, 0).mse;
    const dropped = net.lossAndGrad(data, rows, 0, 20, new SeededRandom(5), 0.5, 0).mse;
    expect(dropped).not.toBe(plain);
  });
});

describe('trainEstimator', () => {
  const data = synthetic(1500, 40, 9);

  it('learns a synthetic target, and the same seed gives bit-identical weights', () => {
    const epochs: number[] = [];
    const a = trainEstimator(data, { seed: 11, maxEpochs: 6, dims: { hidden1: 32, hidden2: 32 }, onEpoch: (p) => epochs.push(p.epoch) });
    expect(epochs).toEqual(a.metrics.history.map((h) => h.epoch));
    expect(a.metrics.valMae).toBeLessThan(0.8 * a.metrics.baselineMae);
    expect(a.metrics.valSpearman).toBeGreaterThan(0.5);
    const b = trainEstimator(data, { seed: 11, maxEpochs: 6, dims: { hidden1: 32, hidden2: 32 } });
    const bytes = (r: typeof a): number[] =>
      [r.weights.meta.w, r.weights.residual, r.weights.proj.w, r.weights.head1.w, r.weights.head2.w, r.weights.out.w, r.weights.out.b].flatMap(
        (x) => Array.from(new Uint8Array(x.buffer, x.byteOffset, x.byteLength)),
      );
    expect(bytes(b)).toEqual(bytes(a));
    expect(b.metrics.history.map((h) => h.trainLoss)).toEqual(a.metrics.history.map((h) => h.trainLoss));
    const c = trainEstimator(data, { seed: 12, maxEpochs: 6, dims: { hidden1: 32, hidden2: 32 } });
    expect(bytes(c)).not.toEqual(bytes(a));
  });

  // Loss and validation MAE per epoch as the trainer computed them before its kernels were rewritten (issue 14
  // item 8, commit 419328b: one batch row at a time in plain JavaScript). The rewrite keeps every float64
  // operation and its order, so these are reproduced exactly; 1e-12 leaves room only for a platform's Math.cos.
  const PINNED = {
    small: {
      trainLoss: [0.039930159474710625, 0.037173435197372436, 0.03509924828100817, 0.03297996159062206, 0.03142521611850839, 0.03039893580571676],
      valMae: [0.15069416986006967, 0.14451947024973702, 0.13737446261355427, 0.13464380712362503, 0.1333024123693876, 0.13138546810657947],
    },
    full: {
      trainLoss: [0.047838718154984555, 0.04401563946069272, 0.042380135099876745],
      valMae: [0.1550324050522931, 0.1616556907047181, 0.16099969583918708],
    },
  };
  const closeTo = (got: number[], want: number[]): void => {
    expect(got).toHaveLength(want.length);
    got.forEach((g, i) => expect(Math.abs(g - want[i]!) / want[i]!, `epoch ${i + 1}: ${g} vs ${want[i]}`).toBeLessThan(1e-12));
  };

  it('reproduces the loss history of the trainer before its rewrite (32-unit head, and the full 256 × 256 network)', () => {
    const small = trainEstimator(data, { seed: 11, maxEpochs: 6, dims: { hidden1: 32, hidden2: 32 } });
    closeTo(small.metrics.history.map((h) => h.trainLoss), PINNED.small.trainLoss);
    closeTo(small.metrics.history.map((h) => h.valMae), PINNED.small.valMae);
    const full = trainEstimator(synthetic(700, 300, 5), { seed: 3, maxEpochs: 3 });
    closeTo(full.metrics.history.map((h) => h.trainLoss), PINNED.full.trainLoss);
    closeTo(full.metrics.history.map((h) => h.valMae), PINNED.full.valMae);
  });

  it('stops early when validation MAE stops improving, keeping the best epoch', () => {
    const tiny = synthetic(200, 40, 4);
    const r = trainEstimator(tiny, { seed: 1, maxEpochs: 80, lr: 3e-3, patience: 2, dims: { hidden1: 64, hidden2: 64 } });
    expect(r.metrics.stopped).toBe('early');
    expect(r.metrics.epochs).toBe(r.metrics.bestEpoch + 2);
    const best = Math.min(...r.metrics.history.map((h) => h.valMae));
    expect(r.metrics.valMae).toBeCloseTo(best, 5);
  });

  it('an option passed as undefined takes its default (patience 3), as callers forwarding optional flags do', () => {
    const tiny = synthetic(200, 40, 4);
    const r = trainEstimator(tiny, { seed: 1, maxEpochs: 80, lr: 3e-3, patience: undefined, dims: { hidden1: 64, hidden2: 64 } });
    expect(r.metrics.stopped).toBe('early');
    expect(r.metrics.epochs).toBe(r.metrics.bestEpoch + 3);
  });
});

describe('the reference model encoder (MTROUTER_TRAIN_CONFIG)', () => {
  it('starts its residual embeddings at zero and trains them away from it, with the second attribute layer', () => {
    const data = synthetic(300, 40, 3);
    const net = new EstimatorNet(netDims(data, TINY, 2), data.modelFeatures);
    net.init(new SeededRandom(1), 0, 'zero');
    expect(Array.from(net.p.residual).every((v) => v === 0)).toBe(true);
    expect(net.p.meta2W.length).toBe(TINY.metaHidden ** 2);

    const r = trainEstimator(data, { ...MTROUTER_TRAIN_CONFIG, seed: 2, maxEpochs: 2, dims: { hidden1: 16, hidden2: 16 } });
    expect(r.weights.meta2?.inDim).toBe(32);
    expect(Array.from(r.weights.residual).some((v) => v !== 0)).toBe(true);
    const plain = trainEstimator(data, { seed: 2, maxEpochs: 2, dims: { hidden1: 16, hidden2: 16 } });
    expect(plain.weights.meta2).toBeUndefined();
  });

  it('a trained network scores the same in the trainer, forward.ts and its ONNX export through ONNX Runtime', async () => {
    const data = synthetic(400, 1024, 8);
    const { validation } = splitRows(data);
    const r = trainEstimator(data, { ...MTROUTER_TRAIN_CONFIG, seed: 4, maxEpochs: 1 });
    const x = denseHistories(data, validation);
    const ts = createForward(r.weights).score(x, validation.length);
    const logged = (scores: Float32Array): Float64Array => Float64Array.from(validation, (row, i) => scores[i * 3 + (data.model[row] as number)]!);
    // The trainer's validation MAE is from its float64 network; forward.ts reads the exported float32 weights.
    expect(Math.abs(meanAbsoluteError(logged(ts), data.target, validation) - r.metrics.valMae)).toBeLessThan(1e-6);
    for (const modelEncoderInGraph of [false, true]) {
      const session = await ort.InferenceSession.create(exportOnnx(r.weights, { modelEncoderInGraph }), { executionProviders: ['cpu'] });
      const out = await session.run({ history: new ort.Tensor('float32', x, [validation.length, data.historyDim]) });
      await session.release();
      const onnx = out.s_hat!.data as Float32Array;
      let worst = 0;
      for (let i = 0; i < ts.length; i++) worst = Math.max(worst, Math.abs(onnx[i]! - ts[i]!));
      expect(worst).toBeLessThan(1e-5);
    }
  });
});

describe('schedule and metrics', () => {
  it('anneals the learning rate from lr to minLr on a cosine', () => {
    expect(cosineLr(0, 100, 1e-3, 1e-5)).toBeCloseTo(1e-3, 12);
    expect(cosineLr(50, 100, 1e-3, 1e-5)).toBeCloseTo((1e-3 + 1e-5) / 2, 12);
    expect(cosineLr(100, 100, 1e-3, 1e-5)).toBeCloseTo(1e-5, 12);
  });

  it('computes Spearman ρ with ties', () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    expect(spearman([1, 2, 2, 3], [1, 2, 3, 4])).toBeCloseTo(0.9486832980505138, 12);
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeNaN();
  });
});
