/**
 * Replay-scoring benchmark (DESIGN §11): `rows` histories × K candidate models through our path (openScorer +
 * scoreAll, rows arriving in 1,000-row chunks that scoreAll re-batches) against a bare ORT loop
 * (InferenceSession.run on views of the same buffer) with the same graph, provider, threads and batch size.
 * The two alternate every 8 batches so that a change in machine load (other jobs on a shared box) hits both.
 */
import { availableParallelism } from 'node:os';
import * as ort from 'onnxruntime-node';
import { randomHistories, randomWeights } from '../electron/estimator/forwardFixtures.ts';
import { exportOnnx } from '../electron/estimator/onnxExport.ts';
import { DEFAULT_BATCH_ROWS, openScorer, scoreAll } from '../electron/estimator/ortScoring.ts';
import type { Provider, ProviderChoice } from '../electron/estimator/ortScoring.ts';

export interface ScoringBenchOptions {
  rows?: number;
  historyDim?: number;
  models?: number;
  batchSize?: number;
  /** Rows per chunk handed to scoreAll (a replay reads turns in pages, not in ORT batches). */
  chunkRows?: number;
  ep?: ProviderChoice;
}

export interface ScoringBenchResult {
  rows: number;
  seconds: number;
  rowsPerSec: number;
  bareRowsPerSec: number;
  /** rowsPerSec / bareRowsPerSec: 1 means our path costs nothing over bare ORT. */
  ratio: number;
  provider: Provider;
  threads: number;
  batchSize: number;
}

export async function benchScoring(options: ScoringBenchOptions = {}): Promise<ScoringBenchResult> {
  const rows = options.rows ?? 500_000;
  const D = options.historyDim ?? 1028;
  const K = options.models ?? 6;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_ROWS;
  const chunkRows = options.chunkRows ?? 1000;
  const threads = availableParallelism();
  const bytes = exportOnnx(randomWeights(1, D, K));
  // A pool of distinct rows, cycled (500k × 1028 floats would be 2 GB).
  const poolRows = 2 * batchSize;
  const pool = randomHistories(2, poolRows, D);

  const scorer = await openScorer(bytes, { ep: options.ep ?? 'auto', threads });
  const bare = await ort.InferenceSession.create(bytes, {
    executionProviders: [scorer.provider],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });

  const ours = async (n: number): Promise<number> => {
    let given = 0;
    let at = 0;
    const next = (): Float32Array | undefined => {
      if (given >= n) return undefined;
      const take = Math.min(chunkRows, n - given, poolRows - at);
      const chunk = pool.subarray(at * D, (at + take) * D);
      given += take;
      at = (at + take) % poolRows;
      return chunk;
    };
    let checksum = 0;
    const t0 = performance.now();
    await scoreAll(scorer, next, { batchSize, onScores: (s) => void (checksum += s[0]!) });
    const seconds = (performance.now() - t0) / 1000;
    if (!Number.isFinite(checksum)) throw new Error('non-finite scores');
    return seconds;
  };
  const bareLoop = async (n: number): Promise<number> => {
    const t0 = performance.now();
    for (let done = 0, at = 0; done < n; ) {
      const take = Math.min(batchSize, n - done, poolRows - at);
      const x = new ort.Tensor('float32', pool.subarray(at * D, (at + take) * D), [take, D]);
      await bare.run({ history: x }, ['s_hat']);
      done += take;
      at = (at + take) % poolRows;
    }
    return (performance.now() - t0) / 1000;
  };

  await ours(batchSize); // warm both sessions (arena growth, first-run kernels)
  await bareLoop(batchSize);
  let oursSeconds = 0;
  let bareSeconds = 0;
  for (let done = 0; done < rows; ) {
    const n = Math.min(8 * batchSize, rows - done);
    oursSeconds += await ours(n);
    bareSeconds += await bareLoop(n);
    done += n;
  }
  const provider = scorer.provider;
  await scorer.close();
  await bare.release();
  const rowsPerSec = rows / oursSeconds;
  const bareRowsPerSec = rows / bareSeconds;
  return { rows, seconds: oursSeconds, rowsPerSec, bareRowsPerSec, ratio: rowsPerSec / bareRowsPerSec, provider, threads, batchSize };
}
