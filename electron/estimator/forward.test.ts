import { describe, expect, it } from 'vitest';
import { checkWeights, createForward, modelEmbeddings, scoreBatch } from './forward.ts';
import { randomHistories, randomWeights } from './forwardFixtures.ts';
import { HEAD_HIDDEN, LAYER_NORM_EPS, MODEL_EMBED_DIM } from './weights.ts';
import type { Dense, EstimatorWeights } from './weights.ts';

/** weights.ts's formulas written out literally (concatenate [z_x ; z_a], float64), for a few rows. */
function literal(w: EstimatorWeights, x: Float32Array, batch: number): number[] {
  const dense = (v: number[], d: Dense, relu: boolean): number[] =>
    Array.from({ length: d.outDim }, (_, j) => {
      let s = d.b[j]!;
      for (let i = 0; i < d.inDim; i++) s += v[i]! * d.w[i * d.outDim + j]!;
      return relu ? Math.max(0, s) : s;
    });
  const out: number[] = [];
  for (let r = 0; r < batch; r++) {
    const zx = Array.from(x.subarray(r * w.historyDim, (r + 1) * w.historyDim));
    w.models.forEach((_, a) => {
      const h1 = dense(Array.from(w.modelFeatures.subarray(a * 8, a * 8 + 8)), w.meta, true);
      const h = w.meta2 ? dense(h1, w.meta2, false) : h1;
      const p = dense([...h, ...w.residual.subarray(a * 16, a * 16 + 16)], w.proj, false);
      const mean = p.reduce((s, v) => s + v, 0) / p.length;
      const variance = p.reduce((s, v) => s + (v - mean) ** 2, 0) / p.length;
      const za = p.map((v, j) => ((v - mean) / Math.sqrt(variance + LAYER_NORM_EPS)) * w.lnGamma[j]! + w.lnBeta[j]!);
      const g1 = dense([...zx, ...za], w.head1, true);
      const h2 = dense(g1, w.head2, true);
      out.push(dense(h2, w.out, false)[0]!);
    });
  }
  return out;
}

describe('forward pass', () => {
  const w = randomWeights(7, 1028, 6);

  it.each([
    ['one attribute layer', w],
    ['two attribute layers (the reference model encoder)', randomWeights(7, 1028, 6, 2)],
  ])('matches the literal [z_x ; z_a] MLP of weights.ts (split head 1, sparse skips): %s', (_, weights) => {
    const x = randomHistories(8, 3, 1028);
    const got = scoreBatch(weights, x, 3);
    const want = literal(weights, x, 3);
    expect(got).toHaveLength(3 * 6);
    for (let i = 0; i < want.length; i++) expect(Math.abs(got[i]! - want[i]!)).toBeLessThan(1e-6);
  });

  it('the second attribute layer changes z_a, and a mis-shaped one is refused', () => {
    const two = randomWeights(7, 1028, 6, 2);
    const one = modelEmbeddings(w);
    const differs = Array.from(modelEmbeddings(two)).some((v, i) => Math.abs(v - one[i]!) > 1e-3);
    expect(differs).toBe(true);
    expect(() => checkWeights({ ...two, meta2: { ...two.meta2!, outDim: 16 } })).toThrow(/meta2 is 32→16/);
  });

  it('model embeddings are layer-normalised: zero mean and unit variance when gamma is 1 and beta 0', () => {
    const plain = { ...w, lnGamma: new Float32Array(MODEL_EMBED_DIM).fill(1), lnBeta: new Float32Array(MODEL_EMBED_DIM) };
    const z = modelEmbeddings(plain);
    expect(z).toHaveLength(6 * MODEL_EMBED_DIM);
    for (let a = 0; a < 6; a++) {
      const row = Array.from(z.subarray(a * 64, a * 64 + 64));
      const mean = row.reduce((s, v) => s + v, 0) / 64;
      const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / 64;
      expect(Math.abs(mean)).toBeLessThan(1e-6);
      expect(Math.abs(variance - 1)).toBeLessThan(1e-3);
    }
  });

  it('reuses its buffers: one forward object scores batches of any size, row results independent of the batch', () => {
    const f = createForward(w);
    const x = randomHistories(9, 5, 1028);
    const all = f.score(x, 5);
    const out = new Float32Array(6);
    for (let r = 0; r < 5; r++) {
      expect(f.score(x.subarray(r * 1028, (r + 1) * 1028), 1, out)).toBe(out);
      expect(Array.from(out)).toEqual(Array.from(all.subarray(r * 6, r * 6 + 6)));
    }
    expect(f.score(x, 0)).toHaveLength(0);
  });

  it('rejects short inputs and weights whose shapes disagree', () => {
    expect(() => scoreBatch(w, new Float32Array(1027), 1)).toThrow(/expected 1 × 1028/);
    expect(() => checkWeights({ ...w, head1: { ...w.head1, inDim: 1000 } })).toThrow(/head1 is 1000→256/);
    expect(() => checkWeights({ ...w, residual: new Float32Array(5) })).toThrow(/residual has 5 values/);
    expect(() => checkWeights({ ...w, models: [] })).toThrow(/no candidate models/);
    expect(HEAD_HIDDEN).toEqual([256, 256]);
  });
});
