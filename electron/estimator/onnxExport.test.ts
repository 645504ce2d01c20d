import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { createForward, modelEmbeddings } from './forward.ts';
import { randomHistories, randomWeights } from './forwardFixtures.ts';
import { ESTIMATOR_ONNX_FORMAT, exportOnnx, META_KEYS, writeOnnx } from './onnxExport.ts';
import { decodeModel } from './onnxProto.ts';

const D = 1028;
const K = 6;
const w = randomWeights(11, D, K);

/** Largest |a − b| / max(1, |a|): absolute below 1, relative above. */
function maxDiff(a: Float32Array, b: Float32Array): number {
  expect(b).toHaveLength(a.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!) / Math.max(1, Math.abs(a[i]!)));
  return worst;
}

async function session(bytes: Uint8Array): Promise<ort.InferenceSession> {
  ort.env.logLevel = 'fatal';
  return ort.InferenceSession.create(bytes, { executionProviders: ['cpu'], intraOpNumThreads: 2 });
}

async function run(s: ort.InferenceSession, x: Float32Array, batch: number): Promise<{ sHat: Float32Array; z: Float32Array; dims: readonly number[] }> {
  const out = await s.run({ history: new ort.Tensor('float32', x, [batch, D]) });
  const sHat = out.s_hat!;
  const z = out.model_embeddings!;
  if (!(sHat.data instanceof Float32Array) || !(z.data instanceof Float32Array)) throw new Error('outputs are not float32');
  return { sHat: sHat.data, z: z.data, dims: sHat.dims };
}

describe('ONNX export', () => {
  let bytes: Uint8Array;
  let cpu: ort.InferenceSession;
  beforeAll(async () => {
    bytes = exportOnnx(w);
    cpu = await session(bytes);
  });

  it('ONNX Runtime agrees with the TypeScript forward pass to 1e-5 on 64 histories; model_embeddings is z_a', async () => {
    const x = randomHistories(12, 64, D);
    const { sHat, z, dims } = await run(cpu, x, 64);
    expect(dims).toEqual([64, K]);
    const diff = maxDiff(createForward(w).score(x, 64), sHat);
    console.log(`max |TS − ORT| over 64 × ${K} scores: ${diff.toExponential(2)}`);
    expect(diff).toBeLessThan(1e-5);
    expect(maxDiff(modelEmbeddings(w), z)).toBeLessThan(1e-5);
  });

  it('agrees for batch size 1 and for a large batch (rows do not depend on their batch)', async () => {
    const f = createForward(w);
    const x1 = randomHistories(13, 1, D);
    expect(maxDiff(f.score(x1, 1), (await run(cpu, x1, 1)).sHat)).toBeLessThan(1e-5);

    const big = 3001;
    const x = randomHistories(14, big, D);
    const { sHat, dims } = await run(cpu, x, big);
    expect(dims).toEqual([big, K]);
    for (const r of [0, 1, 1500, 2047, 2048, big - 1]) {
      const want = f.score(x.subarray(r * D, (r + 1) * D), 1);
      expect(maxDiff(want, sHat.subarray(r * K, (r + 1) * K))).toBeLessThan(1e-5);
    }
  });

  it('with the model encoder in the graph, ORT LayerNormalization reproduces z_a and the scores', async () => {
    const s = await session(exportOnnx(w, { modelEncoderInGraph: true }));
    const x = randomHistories(15, 16, D);
    const { sHat, z } = await run(s, x, 16);
    expect(maxDiff(modelEmbeddings(w), z)).toBeLessThan(1e-5);
    expect(maxDiff(createForward(w).score(x, 16), sHat)).toBeLessThan(1e-5);
    await s.release();
  });

  it('writes opset 17 with the model names, historyDim and format tag in the metadata', () => {
    const dir = mkdtempSync(join(tmpdir(), 'routelens-onnx-'));
    const path = join(dir, 'estimator.onnx');
    writeOnnx(w, path);
    const file = new Uint8Array(readFileSync(path));
    expect(Buffer.compare(file, bytes)).toBe(0);
    const decoded = decodeModel(file);
    expect(decoded.irVersion).toBe(8);
    expect(decoded.producerName).toBe('routelens');
    expect(JSON.parse(decoded.metadata.get(META_KEYS.models)!)).toEqual(w.models);
    expect(decoded.metadata.get(META_KEYS.historyDim)).toBe(String(D));
    expect(decoded.metadata.get(META_KEYS.format)).toBe(ESTIMATOR_ONNX_FORMAT);
    expect(decoded.inputs).toEqual(['history']);
    expect(decoded.outputs).toEqual(['s_hat', 'model_embeddings']);
  });

  it('two attribute layers (the reference model encoder): ORT agrees with forward.ts, precomputed or in the graph', async () => {
    const two = randomWeights(16, D, K, 2);
    const x = randomHistories(17, 32, D);
    const want = createForward(two).score(x, 32);
    for (const modelEncoderInGraph of [false, true]) {
      const s = await session(exportOnnx(two, { modelEncoderInGraph }));
      const { sHat, z } = await run(s, x, 32);
      expect(maxDiff(want, sHat)).toBeLessThan(1e-5);
      expect(maxDiff(modelEmbeddings(two), z)).toBeLessThan(1e-5);
      await s.release();
    }
  });

  it('refuses weights whose shapes disagree', () => {
    expect(() => exportOnnx({ ...w, lnGamma: new Float32Array(3) })).toThrow(/lnGamma has 3 values/);
  });
});
