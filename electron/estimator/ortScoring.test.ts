import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { createForward, modelEmbeddings } from './forward.ts';
import { randomHistories, randomWeights } from './forwardFixtures.ts';
import { exportOnnx, writeOnnx } from './onnxExport.ts';
import { encodeModel } from './onnxProto.ts';
import { openScorer, scoreAll } from './ortScoring.ts';
import { ScorerError } from './scorerError.ts';
import type { Scorer, ScoreProgress, SessionLike } from './ortScoring.ts';

const D = 1028;
const K = 6;
const w = randomWeights(21, D, K);
const EP_NAMES = { cpu: 'CPUExecutionProvider', webgpu: 'WebGpuExecutionProvider', cuda: 'CUDAExecutionProvider' };

function maxDiff(a: Float32Array, b: Float32Array): number {
  expect(b).toHaveLength(a.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!) / Math.max(1, Math.abs(a[i]!)));
  return worst;
}

describe('ORT scoring', () => {
  let dir: string;
  let path: string;
  let bytes: Uint8Array;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'routelens-scoring-'));
    path = join(dir, 'estimator.onnx');
    writeOnnx(w, path);
    bytes = exportOnnx(w);
  });

  it("'auto' tries cuda → webgpu → cpu, lands on one that runs, and every MatMul ran on that provider", async () => {
    const scorer = await openScorer(path, { ep: 'auto', profilePrefix: join(dir, 'auto') });
    const tried = scorer.attempts.map((a) => a.provider);
    expect(isAutoPrefix(tried)).toBe(true);
    expect(scorer.attempts.at(-1)).toEqual({ provider: scorer.provider, ok: true });
    for (const failed of scorer.attempts.slice(0, -1)) expect(failed.error).toMatch(/\S/);
    console.log(`auto → ${scorer.provider}; ${scorer.attempts.map((a) => `${a.provider}: ${a.ok ? 'ok' : a.error}`).join('; ')}`);
    expect(scorer.models).toEqual(w.models);
    expect(scorer.historyDim).toBe(D);
    expect(maxDiff(modelEmbeddings(w), scorer.modelEmbeddings)).toBeLessThan(1e-5);

    const x = randomHistories(22, 64, D);
    expect(maxDiff(createForward(w).score(x, 64), await scorer.score(x, 64))).toBeLessThan(1e-5);
    const placement = scorer.endProfiling();
    const matmuls = [...placement].filter(([node]) => node.endsWith('_mm'));
    expect(matmuls.length).toBeGreaterThanOrEqual(3);
    for (const [, ep] of matmuls) expect(ep).toBe(EP_NAMES[scorer.provider]);
    await scorer.close();
    await expect(scorer.score(x, 1)).rejects.toThrow(/closed/);
  });

  it("explicit 'cuda' either runs on cuda or fails with a clear error; it never falls back", async () => {
    let opened: Scorer | undefined;
    let error: unknown;
    try {
      opened = await openScorer(bytes, { ep: 'cuda' });
    } catch (e) {
      error = e;
    }
    if (opened) {
      expect(opened.provider).toBe('cuda');
      await opened.close();
    } else {
      expect(error).toBeInstanceOf(ScorerError);
      expect(String(error)).toMatch(/^ScorerError: the cuda execution provider is not available here \(cuda: .+\)$/);
    }
  });

  it("explicit 'cpu' runs on cpu", async () => {
    const scorer = await openScorer(bytes, { ep: 'cpu', threads: 1 });
    expect(scorer.provider).toBe('cpu');
    expect(scorer.attempts).toEqual([{ provider: 'cpu', ok: true }]);
    await scorer.close();
  });

  it('falls back to cpu when a GPU provider opens but fails at its probe or at the first real run', async () => {
    // Stand-in GPU sessions: really CPU sessions whose run throws (always, or only past one row).
    const flaky = (failFrom: number) => async (b: Uint8Array, o: ort.InferenceSession.SessionOptions): Promise<SessionLike> => {
      const provider = o.executionProviders?.[0];
      if (provider === 'cuda') throw new Error('no CUDA here');
      const real = await ort.InferenceSession.create(b, { ...o, executionProviders: ['cpu'] });
      if (provider !== 'webgpu') return real;
      return {
        run: ((feeds: ort.InferenceSession.FeedsType, fetches?: ort.InferenceSession.FetchesType) => {
          const rows = feeds.history?.dims[0] ?? 0;
          if (rows >= failFrom) return Promise.reject(new Error('device lost'));
          return fetches ? real.run(feeds, fetches) : real.run(feeds);
        }) as SessionLike['run'],
        release: () => real.release(),
        endProfiling: () => real.endProfiling(),
      };
    };
    const atProbe = await openScorer(bytes, { createSession: flaky(1) });
    expect(atProbe.provider).toBe('cpu');
    expect(atProbe.attempts).toEqual([
      { provider: 'cuda', ok: false, stage: 'session', error: 'no CUDA here' },
      { provider: 'webgpu', ok: false, stage: 'probe', error: 'device lost' },
      { provider: 'cpu', ok: true },
    ]);
    await atProbe.close();

    const atRun = await openScorer(bytes, { createSession: flaky(2) });
    expect(atRun.provider).toBe('webgpu');
    const x = randomHistories(23, 8, D);
    const scores = await atRun.score(x, 8);
    expect(atRun.provider).toBe('cpu');
    expect(atRun.attempts.slice(1)).toEqual([
      { provider: 'webgpu', ok: true },
      { provider: 'webgpu', ok: false, stage: 'run', error: 'device lost' },
      { provider: 'cpu', ok: true },
    ]);
    expect(maxDiff(createForward(w).score(x, 8), scores)).toBeLessThan(1e-5);
    await atRun.close();

    // An explicit provider does not fall back.
    const pinned = await openScorer(bytes, { ep: 'webgpu', createSession: flaky(2) });
    await expect(pinned.score(x, 8)).rejects.toThrow(/device lost/);
    await pinned.close();
  });

  it('scoreAll re-batches uneven chunks from an async iterable or a callback, in order, with progress', async () => {
    const scorer = await openScorer(bytes, { ep: 'cpu' });
    const rows = 700;
    const x = randomHistories(24, rows, D);
    const want = await scorer.score(x, rows);
    const sizes = [7, 100, 1, 0, 300, 292];
    async function* chunks(): AsyncIterable<Float32Array> {
      let at = 0;
      for (const n of sizes) {
        yield x.subarray(at * D, (at + n) * D);
        at += n;
      }
    }
    for (const source of ['iterable', 'callback'] as const) {
      const got = new Float32Array(rows * K);
      const progress: ScoreProgress[] = [];
      let given = 0;
      const next = (max: number): Float32Array | undefined => {
        if (given === rows) return undefined;
        const n = Math.min(max, rows - given);
        given += n;
        return x.subarray((given - n) * D, given * D);
      };
      const done = await scoreAll(scorer, source === 'iterable' ? chunks() : next, {
        batchSize: 128,
        onScores: (s, first) => got.set(s, first * K),
        onProgress: (p) => progress.push(p),
      });
      expect(done.rows).toBe(rows);
      expect(done.provider).toBe('cpu');
      expect(done.rowsPerSec).toBeGreaterThan(0);
      expect(progress.map((p) => p.rows)).toEqual([128, 256, 384, 512, 640, 700]);
      expect(maxDiff(want, got)).toBeLessThan(1e-6);
    }
    await expect(scoreAll(scorer, [new Float32Array(D + 1)])).rejects.toThrow(/not whole rows of 1028/);
    await scorer.close();
  });

  it('a corrupted, truncated, foreign or missing file gives a clear error', async () => {
    const write = (name: string, data: Uint8Array): string => {
      const p = join(dir, name);
      writeFileSync(p, data);
      return p;
    };
    const flipped = bytes.slice();
    flipped[Math.floor(flipped.length / 2)]! ^= 0x40; // inside head1_history_w's raw_data
    await expect(openScorer(write('flipped.onnx', flipped))).rejects.toThrow(/flipped\.onnx is not a RouteLens estimator: the graph does not match its checksum/);
    await expect(openScorer(write('cut.onnx', bytes.subarray(0, 5000)))).rejects.toThrow(/cut\.onnx is not an ONNX model \(/);
    await expect(openScorer(write('text.onnx', new TextEncoder().encode('{"not": "onnx"}\n')))).rejects.toThrow(/text\.onnx is not an ONNX model/);
    const foreign = encodeModel({
      ir_version: 8,
      opset_import: [{ domain: '', version: 17 }],
      producer_name: 'pytorch',
      producer_version: '2.5',
      graph: { name: 'g', node: [], initializer: [], input: [], output: [] },
      metadata_props: [],
    });
    await expect(openScorer(write('foreign.onnx', foreign))).rejects.toThrow(/foreign\.onnx is not a RouteLens estimator: metadata has no routelens\.format/);
    await expect(openScorer(join(dir, 'missing.onnx'))).rejects.toThrow(/cannot read estimator ONNX file .*missing\.onnx: ENOENT/);
  });
});

/** The providers tried under 'auto' are a prefix of cuda, webgpu, cpu. */
function isAutoPrefix(tried: string[]): boolean {
  return tried.length > 0 && tried.every((p, i) => p === ['cuda', 'webgpu', 'cpu'][i]);
}
