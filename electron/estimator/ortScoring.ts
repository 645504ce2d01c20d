/**
 * Scoring with ONNX Runtime (DESIGN §6): open an exported estimator (onnxExport.ts) on the best execution
 * provider that really works, and score streams of history rows in fixed-size batches.
 *
 * Provider choice. `ep: 'auto'` tries cuda → webgpu → cpu. A provider counts as working only after a session
 * was created on it *and* a one-row probe run returned outputs of the right shape (Dawn's WebGPU can create a
 * session and still fail at run). Every attempt and its error are kept in `scorer.attempts`, and
 * `scorer.provider` names the one in use, for the UI and CLI. If a later run fails on cuda/webgpu under
 * 'auto', the scorer reopens on cpu, records why, and retries that batch; an explicit `ep` never falls back.
 * ORT may still place single nodes that a GPU provider lacks on the CPU; `profilePrefix` + `endProfiling()`
 * report where every node ran (the tests use it).
 *
 * CPU threads: intraOpNumThreads = os.availableParallelism(); one inter-op thread and sequential execution,
 * as the graph is a single chain of nodes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { z } from 'zod';
import {
  ESTIMATOR_ONNX_FORMAT,
  INPUT_HISTORY,
  META_KEYS,
  OUTPUT_MODEL_EMBEDDINGS,
  OUTPUT_S_HAT,
  sha256,
} from './onnxExport.ts';
import { decodeModel, graphBytes } from './onnxProto.ts';
import { MODEL_EMBED_DIM } from './weights.ts';
import { ScorerError } from './scorerError.ts';

export type Provider = 'cuda' | 'webgpu' | 'cpu';
export type ProviderChoice = 'auto' | Provider;
export const AUTO_ORDER: readonly Provider[] = ['cuda', 'webgpu', 'cpu'];

export interface ProviderAttempt {
  provider: Provider;
  ok: boolean;
  /** Where it failed: creating the session, the probe run at open, or a scoring run (then fell back). */
  stage?: 'session' | 'probe' | 'run';
  error?: string;
}

export interface ScorerOptions {
  ep?: ProviderChoice;
  /** CPU intra-op threads; default os.availableParallelism(). */
  threads?: number;
  /** Enable ORT profiling, writing `<prefix>_<date>.json`; read it back with `scorer.endProfiling()`. */
  profilePrefix?: string;
  /** Replaces ort.InferenceSession.create (tests inject providers that fail). */
  createSession?: (bytes: Uint8Array, options: ort.InferenceSession.SessionOptions) => Promise<SessionLike>;
}

/** The part of ort.InferenceSession the scorer uses. */
export type SessionLike = Pick<ort.InferenceSession, 'run' | 'release' | 'endProfiling'>;

export interface Scorer {
  /** The provider the session runs on now (it can change from a GPU provider to cpu under 'auto'). */
  readonly provider: Provider;
  readonly attempts: readonly ProviderAttempt[];
  readonly models: readonly string[];
  readonly historyDim: number;
  /** z_a, [K × 64], read from the graph's `model_embeddings` output at open. */
  readonly modelEmbeddings: Float32Array;
  /** ŝ for the first `batch` rows of `history` ([batch × historyDim]): [batch × K], row-major. */
  score(history: Float32Array, batch: number): Promise<Float32Array>;
  /** Ends profiling (needs `profilePrefix`) and returns the provider each graph node ran on. */
  endProfiling(): Map<string, string>;
  close(): Promise<void>;
}


const modelsSchema = z.array(z.string()).min(1);

export async function openScorer(source: string | Uint8Array, options: ScorerOptions = {}): Promise<Scorer> {
  const label = typeof source === 'string' ? source : 'estimator ONNX bytes';
  const bytes = typeof source === 'string' ? readSource(source) : source;
  const { models, historyDim } = readHeader(bytes, label);
  ort.env.logLevel = 'fatal';

  const choice = options.ep ?? 'auto';
  const order = choice === 'auto' ? AUTO_ORDER : [choice];
  const attempts: ProviderAttempt[] = [];
  const sessionOptions = (provider: Provider): ort.InferenceSession.SessionOptions => ({
    executionProviders: [provider],
    intraOpNumThreads: options.threads ?? availableParallelism(),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 4,
    ...(options.profilePrefix ? { enableProfiling: true, profileFilePrefix: options.profilePrefix } : {}),
  });

  /** A session on `provider` plus z_a from a one-row probe run, or the attempt's failure. */
  const create = options.createSession ?? ((b, o) => ort.InferenceSession.create(b, o));
  const tryOpen = async (provider: Provider): Promise<{ session: SessionLike; z: Float32Array } | undefined> => {
    let session: SessionLike;
    try {
      session = await create(bytes, sessionOptions(provider));
    } catch (e) {
      attempts.push({ provider, ok: false, stage: 'session', error: message(e) });
      return undefined;
    }
    try {
      const out = await session.run({ [INPUT_HISTORY]: new ort.Tensor('float32', new Float32Array(historyDim), [1, historyDim]) });
      const s = floatOutput(out, OUTPUT_S_HAT, 1 * models.length);
      const z = floatOutput(out, OUTPUT_MODEL_EMBEDDINGS, models.length * MODEL_EMBED_DIM);
      if (!s.every(Number.isFinite)) throw new Error('probe run returned non-finite scores');
      attempts.push({ provider, ok: true });
      return { session, z: z.slice() };
    } catch (e) {
      attempts.push({ provider, ok: false, stage: 'probe', error: message(e) });
      await session.release().catch(() => undefined);
      return undefined;
    }
  };

  let opened: { session: SessionLike; z: Float32Array } | undefined;
  let openedOn: Provider | undefined;
  for (const p of order) {
    opened = await tryOpen(p);
    if (opened) {
      openedOn = p;
      break;
    }
  }
  if (!opened || !openedOn) {
    const why = attempts.map((a) => `${a.provider}: ${a.error ?? 'failed'}`).join('; ');
    throw new ScorerError(
      choice === 'auto'
        ? `no ONNX Runtime execution provider could run ${label} (${why})`
        : `the ${choice} execution provider is not available here (${why})`,
    );
  }
  let session = opened.session;
  let provider: Provider = openedOn;
  const modelEmbeddings = opened.z;
  const K = models.length;
  let closed = false;

  const run = async (history: Float32Array, batch: number): Promise<Float32Array> => {
    const input = new ort.Tensor('float32', history.length === batch * historyDim ? history : history.subarray(0, batch * historyDim), [batch, historyDim]);
    const out = await session.run({ [INPUT_HISTORY]: input }, [OUTPUT_S_HAT]);
    return floatOutput(out, OUTPUT_S_HAT, batch * K);
  };

  return {
    get provider() {
      return provider;
    },
    attempts,
    models,
    historyDim,
    modelEmbeddings,
    async score(history, batch) {
      if (closed) throw new ScorerError('scorer is closed');
      if (!Number.isInteger(batch) || batch < 0) throw new ScorerError(`batch ${batch} is not a non-negative integer`);
      if (history.length < batch * historyDim) {
        throw new ScorerError(`history has ${history.length} values, expected ${batch} × ${historyDim} = ${batch * historyDim}`);
      }
      if (batch === 0) return new Float32Array(0);
      try {
        return await run(history, batch);
      } catch (e) {
        if (choice !== 'auto' || provider === 'cpu') throw e;
        // A GPU provider that passed the probe failed on real data: move to cpu and retry this batch.
        attempts.push({ provider, ok: false, stage: 'run', error: message(e) });
        await session.release().catch(() => undefined);
        const cpu = await tryOpen('cpu');
        if (!cpu) throw new ScorerError(`${provider} failed at run (${message(e)}) and cpu could not open`);
        session = cpu.session;
        provider = 'cpu';
        return run(history, batch);
      }
    },
    endProfiling() {
      if (!options.profilePrefix) throw new ScorerError('endProfiling needs openScorer(..., { profilePrefix })');
      session.endProfiling();
      return readProfile(options.profilePrefix);
    },
    async close() {
      if (closed) return;
      closed = true;
      await session.release();
    },
  };
}

export interface ScoreProgress {
  rows: number;
  seconds: number;
  rowsPerSec: number;
  provider: Provider;
}

/** Rows to score: chunks of whole rows ([n × historyDim], any n ≥ 0), or a callback returning the next chunk
 * of at most `maxRows` rows and `undefined` at the end. */
export type RowSource =
  | AsyncIterable<Float32Array>
  | Iterable<Float32Array>
  | ((maxRows: number) => Float32Array | undefined | Promise<Float32Array | undefined>);

export interface ScoreAllOptions {
  /** Rows per ORT run. On 2 CPU threads 1024–8192 measured within noise of each other; 4096 keeps one
   * batch at 17 MB of input and 25 MB per [batch, K, 256] activation. */
  batchSize?: number;
  /** Receives each batch's scores ([n × K]) and the index of its first row, in order. */
  onScores?: (scores: Float32Array, firstRow: number) => void | Promise<void>;
  onProgress?: (p: ScoreProgress) => void;
}

export const DEFAULT_BATCH_ROWS = 4096;

/**
 * Scores every row of `rows` in batches of `batchSize`, reporting rows/s after each batch. Chunks that are
 * exactly one batch go to ORT as they are; others are gathered into one reused batch buffer.
 */
export async function scoreAll(scorer: Scorer, rows: RowSource, options: ScoreAllOptions = {}): Promise<ScoreProgress> {
  const D = scorer.historyDim;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_ROWS;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new ScorerError(`batchSize ${batchSize} is not a positive integer`);
  const buffer = new Float32Array(batchSize * D);
  let filled = 0; // rows in buffer
  let done = 0; // rows scored
  const start = performance.now();
  const progress = (): ScoreProgress => {
    const seconds = (performance.now() - start) / 1000;
    return { rows: done, seconds, rowsPerSec: seconds > 0 ? done / seconds : 0, provider: scorer.provider };
  };
  const flush = async (data: Float32Array, n: number): Promise<void> => {
    const scores = await scorer.score(data, n);
    if (options.onScores) await options.onScores(scores, done);
    done += n;
    options.onProgress?.(progress());
  };

  for await (const chunk of chunks(rows, batchSize)) {
    if (chunk.length % D !== 0) throw new ScorerError(`a chunk of ${chunk.length} values is not whole rows of ${D}`);
    const n = chunk.length / D;
    if (filled === 0 && n === batchSize) {
      await flush(chunk, n);
      continue;
    }
    let offset = 0;
    while (offset < n) {
      const take = Math.min(n - offset, batchSize - filled);
      buffer.set(chunk.subarray(offset * D, (offset + take) * D), filled * D);
      filled += take;
      offset += take;
      if (filled === batchSize) {
        await flush(buffer, filled);
        filled = 0;
      }
    }
  }
  if (filled > 0) await flush(buffer, filled);
  return progress();
}

async function* chunks(rows: RowSource, maxRows: number): AsyncIterable<Float32Array> {
  if (typeof rows === 'function') {
    for (;;) {
      const next = await rows(maxRows);
      if (next === undefined) return;
      yield next;
    }
  }
  yield* rows;
}

function readSource(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new ScorerError(`cannot read estimator ONNX file ${path}: ${message(e)}`);
  }
}

/** Checks that `bytes` is an ONNX model exported by onnxExport.ts and returns what the scorer needs from it. */
export function readHeader(bytes: Uint8Array, label: string): { models: string[]; historyDim: number } {
  let decoded: ReturnType<typeof decodeModel>;
  try {
    decoded = decodeModel(bytes);
  } catch (e) {
    throw new ScorerError(`${label} is not an ONNX model (${message(e)})`);
  }
  const bad = (why: string): never => {
    throw new ScorerError(`${label} is not a RouteLens estimator: ${why}`);
  };
  const format = decoded.metadata.get(META_KEYS.format);
  if (format === undefined) bad(`metadata has no ${META_KEYS.format}`);
  if (format !== ESTIMATOR_ONNX_FORMAT) bad(`format ${JSON.stringify(format)}, this build reads ${ESTIMATOR_ONNX_FORMAT}`);
  let models: string[] = [];
  try {
    models = modelsSchema.parse(JSON.parse(decoded.metadata.get(META_KEYS.models) ?? ''));
  } catch {
    bad(`${META_KEYS.models} is not a JSON array of model names`);
  }
  const historyDim = Number(decoded.metadata.get(META_KEYS.historyDim));
  if (!Number.isInteger(historyDim) || historyDim < 1) bad(`${META_KEYS.historyDim} is not a positive integer`);
  if (!decoded.inputs.includes(INPUT_HISTORY)) bad(`no input named ${INPUT_HISTORY}`);
  for (const o of [OUTPUT_S_HAT, OUTPUT_MODEL_EMBEDDINGS]) if (!decoded.outputs.includes(o)) bad(`no output named ${o}`);
  const expected = decoded.metadata.get(META_KEYS.graphSha256);
  const graph = graphBytes(bytes);
  if (!expected || !graph) bad(`metadata has no ${META_KEYS.graphSha256}`);
  else if (sha256(graph) !== expected) bad('the graph does not match its checksum (the file is corrupted)');
  return { models, historyDim };
}

function floatOutput(out: ort.InferenceSession.ReturnType, name: string, length: number): Float32Array {
  const t = out[name];
  if (!t || !(t.data instanceof Float32Array)) throw new ScorerError(`output ${name} is missing or not float32`);
  if (t.data.length !== length) throw new ScorerError(`output ${name} has ${t.data.length} values, expected ${length}`);
  return t.data;
}

const profileSchema = z.array(
  z.looseObject({ cat: z.string().optional(), name: z.string(), args: z.looseObject({ provider: z.string().optional() }).optional() }),
);

/** Node name → execution provider, from the newest ORT profile written under `prefix`. */
function readProfile(prefix: string): Map<string, string> {
  const dir = dirname(resolve(prefix));
  const stem = basename(prefix);
  const files = readdirSync(dir)
    .filter((f) => f.startsWith(`${stem}_`) && f.endsWith('.json'))
    .sort();
  const newest = files.at(-1);
  if (!newest) throw new ScorerError(`no ORT profile ${prefix}_*.json was written`);
  const events = profileSchema.parse(JSON.parse(readFileSync(join(dir, newest), 'utf8')));
  const placement = new Map<string, string>();
  for (const e of events) {
    const provider = e.args?.provider;
    if (e.cat === 'Node' && provider) placement.set(e.name.replace(/_kernel_time$|_fence_(before|after)$/, ''), provider);
  }
  return placement;
}

function message(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  // ORT prefixes errors with the C++ source location; the user needs the reason.
  return text.replace(/^\/onnxruntime_src\/[^\n]*? was false\. /, '').split('\n')[0]!.trim();
}
