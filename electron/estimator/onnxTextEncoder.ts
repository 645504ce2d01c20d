/**
 * `onnx-text:DIR`: a local sentence-embedding ONNX model and its Hugging Face tokenizer as the history text
 * encoder (DESIGN §6; historyEncoder.ts puts the input profile around it). Nothing is downloaded; see docs/onnx-text-encoder.md for exporting a model into DIR.
 *
 * DIR holds model.onnx (or onnx/model.onnx, with its external-data file beside it when it has one) and
 * tokenizer.json, optionally tokenizer_config.json, sentence_bert_config.json and a sentence-transformers
 * pooling config (modules.json → its Pooling folder, or 1_Pooling/config.json).
 *
 * The graph, read from ONNX Runtime's session metadata:
 *   inputs   input_ids and attention_mask (int64 or int32) required; token_type_ids (from the tokenizer's
 *            template, 0 by default) and position_ids (0 … T−1) fed when present; any other input is refused.
 *   output   `sentence_embedding` [B, H] (a sentence-transformers export: pooled by the graph) if present, else
 *            `last_hidden_state` / `token_embeddings` [B, T, H], else the only rank-3 output, else the only
 *            rank-2 one. Token outputs are pooled here as the pooling config says (mean by default; cls,
 *            lasttoken and max too), over attention_mask only.
 *   Every embedding is then L2-normalised (eps 1e-12, as torch's F.normalize).
 *
 * Batching: a call's histories are tokenised, ordered by length and run in groups of at most `batchSize`
 * rows and `maxBatchTokens` padded tokens, each padded (right) to its longest row. Padding is invisible to the
 * result (the mask hides it; position ids of real tokens do not move), which the tests check.
 *
 * Providers: 'auto' tries AUTO_ORDER (cuda → webgpu → cpu, ortScoring.ts) and keeps the first that creates
 * a session and runs a one-text probe; a later run failing on a GPU provider reopens on cpu and retries.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import * as ort from 'onnxruntime-node';
import { z } from 'zod';
import { DEFAULT_HISTORY_TOKENS, type EncodableHistory, type TokenCounter } from './historyText.ts';
import {
  EncoderError,
  ONNX_TEXT_ENCODER,
  type EncoderFile,
  type EncoderStats,
  type OpenEncoderOptions,
  type TextEncoder,
  type TextEncoderCard,
} from './historyEncoder.ts';
import { AUTO_ORDER, type Provider, type ProviderAttempt } from './ortScoring.ts';
import {
  SENTENCE_BERT_CONFIG_FILE,
  TOKENIZER_CONFIG_FILE,
  TOKENIZER_FILE,
  TokenizerError,
  loadTokenizer,
  type Encoding,
  type Tokenizer,
} from './tokenizer.ts';

export const MODEL_FILES = ['model.onnx', join('onnx', 'model.onnx')];
const TOKEN_OUTPUTS = ['last_hidden_state', 'token_embeddings'];
const POOLED_OUTPUT = 'sentence_embedding';
const KNOWN_INPUTS = ['input_ids', 'attention_mask', 'token_type_ids', 'position_ids'];
export const DEFAULT_ENCODER_BATCH = 16;
export const DEFAULT_MAX_BATCH_TOKENS = 16_384;

export type Pooling = 'mean' | 'cls' | 'lasttoken' | 'max';

// ---------------------------------------------------------------- folder

/** The model file in `dir`, or an EncoderError naming what is missing. */
export function findModelFile(dir: string): string {
  if (!existsSync(dir)) throw new EncoderError(`onnx-text: ${dir}: no such folder`);
  if (!statSync(dir).isDirectory()) throw new EncoderError(`onnx-text: ${dir}: not a folder`);
  const found = MODEL_FILES.map((f) => join(dir, f)).find((p) => existsSync(p));
  if (!found) throw new EncoderError(`onnx-text: ${dir}: no model.onnx (looked for ${MODEL_FILES.map((f) => join(dir, f)).join(', ')})`);
  return found;
}

const poolingConfigSchema = z.looseObject({
  pooling_mode_cls_token: z.boolean().default(false),
  pooling_mode_mean_tokens: z.boolean().default(false),
  pooling_mode_max_tokens: z.boolean().default(false),
  pooling_mode_mean_sqrt_len_tokens: z.boolean().default(false),
  pooling_mode_weightedmean_tokens: z.boolean().default(false),
  pooling_mode_lasttoken: z.boolean().default(false),
});
const modulesSchema = z.array(z.looseObject({ path: z.string(), type: z.string() }));

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new EncoderError(`${path}: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

/** The sentence-transformers pooling config of `dir`, if it has one: [path, pooling]. */
export function readPooling(dir: string): { path: string | null; pooling: Pooling } {
  let path: string | null = null;
  const modulesPath = join(dir, 'modules.json');
  if (existsSync(modulesPath)) {
    const parsed = modulesSchema.safeParse(readJson(modulesPath));
    if (!parsed.success) throw new EncoderError(`${modulesPath}: not a sentence-transformers modules list`);
    const pooling = parsed.data.find((m) => m.type.endsWith('.Pooling') || m.type === 'Pooling');
    if (pooling) path = join(dir, pooling.path, 'config.json');
  }
  if (!path && existsSync(join(dir, '1_Pooling', 'config.json'))) path = join(dir, '1_Pooling', 'config.json');
  if (!path || !existsSync(path)) return { path: null, pooling: 'mean' };
  const parsed = poolingConfigSchema.safeParse(readJson(path));
  if (!parsed.success) throw new EncoderError(`${path}: not a sentence-transformers pooling config`);
  const c = parsed.data;
  const modes: [boolean, Pooling | string][] = [
    [c.pooling_mode_mean_tokens, 'mean'],
    [c.pooling_mode_cls_token, 'cls'],
    [c.pooling_mode_lasttoken, 'lasttoken'],
    [c.pooling_mode_max_tokens, 'max'],
    [c.pooling_mode_mean_sqrt_len_tokens, 'mean_sqrt_len_tokens'],
    [c.pooling_mode_weightedmean_tokens, 'weightedmean_tokens'],
  ];
  const on = modes.filter(([v]) => v).map(([, m]) => m);
  if (on.length !== 1 || !['mean', 'cls', 'lasttoken', 'max'].includes(on[0] as string)) {
    throw new EncoderError(`${path}: pooling ${on.length ? on.join(' + ') : 'none'} is not supported (one of mean, cls, lasttoken, max)`);
  }
  return { path, pooling: on[0] as Pooling };
}

// ---------------------------------------------------------------- graph

interface GraphPlan {
  inputs: string[];
  idType: 'int64' | 'int32';
  output: string;
  /** 3 for token embeddings (pooled here), 2 for a pooled output. */
  rank: 2 | 3;
}

function shapeText(m: ort.InferenceSession.ValueMetadata): string {
  return m.isTensor ? `${m.type} [${m.shape.join(', ')}]` : 'not a tensor';
}

/** Checks the session's inputs and picks its embedding output; throws `MODEL: why`. */
export function planGraph(session: Pick<ort.InferenceSession, 'inputMetadata' | 'outputMetadata'>, modelPath: string): GraphPlan {
  const bad = (why: string): never => {
    throw new EncoderError(`${modelPath}: ${why}`);
  };
  const inputs = session.inputMetadata;
  const names = inputs.map((m) => m.name);
  for (const need of ['input_ids', 'attention_mask']) {
    if (!names.includes(need)) bad(`the model has no ${need} input (inputs: ${names.join(', ') || 'none'}); export a feature-extraction / sentence-embedding model`);
  }
  const unknown = names.filter((n) => !KNOWN_INPUTS.includes(n));
  if (unknown.length) bad(`unsupported model inputs ${unknown.join(', ')} (supported: ${KNOWN_INPUTS.join(', ')}); export without past key values`);
  let idType: 'int64' | 'int32' | undefined;
  for (const m of inputs) {
    if (!m.isTensor || (m.type !== 'int64' && m.type !== 'int32')) bad(`input ${m.name} is ${shapeText(m)}, expected int64 or int32 [batch, sequence]`);
    if (m.isTensor && m.shape.length !== 2) bad(`input ${m.name} has shape [${m.isTensor ? m.shape.join(', ') : ''}], expected [batch, sequence]`);
    if (m.isTensor && m.type !== (idType ??= m.type as 'int64' | 'int32')) bad('inputs mix int64 and int32');
  }

  const outputs = session.outputMetadata;
  const rankOf = (m: ort.InferenceSession.ValueMetadata): number | undefined => (m.isTensor && m.shape.length ? m.shape.length : undefined);
  const floatOut = (m: ort.InferenceSession.ValueMetadata): boolean => m.isTensor && (m.type === 'float32' || m.type === 'float16');
  const byName = (n: string): ort.InferenceSession.ValueMetadata | undefined => outputs.find((m) => m.name === n);
  let chosen = byName(POOLED_OUTPUT) ?? TOKEN_OUTPUTS.map(byName).find((m) => m !== undefined);
  if (!chosen) {
    const r3 = outputs.filter((m) => floatOut(m) && rankOf(m) === 3);
    const r2 = outputs.filter((m) => floatOut(m) && rankOf(m) === 2);
    chosen = r3.length === 1 ? r3[0] : r3.length === 0 && r2.length === 1 ? r2[0] : undefined;
  }
  const list = outputs.map((m) => `${m.name}: ${shapeText(m)}`).join('; ') || 'none';
  if (!chosen) {
    return bad(
      `no embedding output: expected ${POOLED_OUTPUT} [batch, hidden] or ${TOKEN_OUTPUTS.join(' / ')} [batch, sequence, hidden], or a single float output of rank 2 or 3 (outputs: ${list})`,
    );
  }
  if (!floatOut(chosen)) bad(`output ${chosen.name} is ${shapeText(chosen)}, expected float32 or float16`);
  const rank = rankOf(chosen) ?? (chosen.name === POOLED_OUTPUT ? 2 : 3);
  if (rank !== 2 && rank !== 3) bad(`output ${chosen.name} has rank ${rank}, expected 2 ([batch, hidden]) or 3 ([batch, sequence, hidden]) (outputs: ${list})`);
  return { inputs: names, idType: idType ?? 'int64', output: chosen.name, rank: rank as 2 | 3 };
}

// ---------------------------------------------------------------- numbers

/** IEEE half → float (ORT hands float16 outputs over as their 16-bit patterns). */
function halfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

function floatData(t: ort.Tensor, name: string, modelPath: string): Float32Array {
  if (t.type === 'float32') return t.data as Float32Array;
  if (t.type === 'float16') {
    const src = t.data as ArrayLike<number>;
    // Node 20 has no Float16Array: the data are Uint16 bit patterns.
    if (src instanceof Uint16Array) return Float32Array.from(src, halfToFloat);
    return Float32Array.from(src);
  }
  throw new EncoderError(`${modelPath}: output ${name} is ${t.type}, expected float32 or float16`);
}

/**
 * Pools one row of token embeddings (`h` = [T × H] at `base`) over its `len` real tokens, then L2-normalises
 * into out[offset …]. Accumulates in float64.
 */
export function poolRow(h: Float32Array, base: number, len: number, H: number, pooling: Pooling, out: Float32Array, offset: number): void {
  const acc = new Float64Array(H);
  if (len === 0) {
    out.fill(0, offset, offset + H); // no token at all (a tokenizer without special tokens, empty text)
    return;
  }
  if (pooling === 'cls' || pooling === 'lasttoken') {
    const at = base + (pooling === 'cls' ? 0 : len - 1) * H;
    for (let j = 0; j < H; j++) acc[j] = h[at + j] as number;
  } else if (pooling === 'max') {
    acc.fill(-Infinity);
    for (let t = 0; t < len; t++) for (let j = 0; j < H; j++) acc[j] = Math.max(acc[j] as number, h[base + t * H + j] as number);
  } else {
    for (let t = 0; t < len; t++) for (let j = 0; j < H; j++) acc[j] = (acc[j] as number) + (h[base + t * H + j] as number);
    const n = Math.max(len, 1e-9);
    for (let j = 0; j < H; j++) acc[j] = (acc[j] as number) / n;
  }
  normaliseInto(acc, out, offset);
}

export function normaliseInto(v: Float64Array, out: Float32Array, offset: number): void {
  let sq = 0;
  for (let j = 0; j < v.length; j++) sq += (v[j] as number) ** 2;
  const scale = 1 / Math.max(Math.sqrt(sq), 1e-12);
  for (let j = 0; j < v.length; j++) out[offset + j] = (v[j] as number) * scale;
}

// ---------------------------------------------------------------- hashing

async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The files the encoder's output depends on: the model (and its external data), tokenizer and configs. */
function dependencyFiles(dir: string, modelPath: string, poolingPath: string | null): string[] {
  const modelDir = dirname(modelPath);
  const stem = basename(modelPath);
  const external = readdirSync(modelDir)
    .filter((f) => f !== stem && (f.startsWith(`${stem}_data`) || f.startsWith(`${stem}.data`)))
    .sort()
    .map((f) => join(modelDir, f));
  const optional = [TOKENIZER_CONFIG_FILE, SENTENCE_BERT_CONFIG_FILE, 'modules.json'].map((f) => join(dir, f)).filter((p) => existsSync(p));
  return [modelPath, ...external, join(dir, TOKENIZER_FILE), ...optional, ...(poolingPath ? [poolingPath] : [])];
}

// ---------------------------------------------------------------- token counts

/** Distinct texts whose counts are remembered: a history layout counts each earlier turn again at every turn. */
const COUNT_MEMO = 4096;

/** The tokenizer as a layout's TokenCounter (mtrouterHistory.ts), counts memoised per text. */
export function tokenCounter(tokenizer: Tokenizer): TokenCounter {
  const memo = new Map<string, number>();
  return {
    kind: `tokenizer.json (${tokenizer.modelType})`,
    count(text) {
      let n = memo.get(text);
      if (n === undefined) {
        n = tokenizer.countTokens(text);
        if (memo.size >= COUNT_MEMO) memo.clear();
        memo.set(text, n);
      }
      return n;
    },
    head: (text, n) => tokenizer.headTokens(text, n),
  };
}

// ---------------------------------------------------------------- encoder

interface OpenSession {
  session: ort.InferenceSession;
  provider: Provider;
}

function message(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text.replace(/^\/onnxruntime_src\/[^\n]*? was false\. /, '').split('\n')[0]!.trim();
}

export async function openOnnxTextEncoder(dir: string, options: OpenEncoderOptions = {}): Promise<TextEncoder> {
  const modelPath = findModelFile(dir);
  let tokenizer: Tokenizer;
  try {
    tokenizer = loadTokenizer(dir);
  } catch (e) {
    if (e instanceof TokenizerError) throw new EncoderError(e.message);
    throw e;
  }
  const { path: poolingPath, pooling: configPooling } = readPooling(dir);
  const batchSize = options.batchSize ?? DEFAULT_ENCODER_BATCH;
  const maxBatchTokens = options.maxBatchTokens ?? DEFAULT_MAX_BATCH_TOKENS;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new EncoderError(`batch size ${batchSize} is not a positive integer`);
  ort.env.logLevel = 'fatal';

  const choice = options.ep ?? 'auto';
  const order: readonly Provider[] = choice === 'auto' ? AUTO_ORDER : [choice];
  const attempts: ProviderAttempt[] = [];
  const sessionOptions = (provider: Provider): ort.InferenceSession.SessionOptions => ({
    executionProviders: [provider],
    intraOpNumThreads: options.threads ?? availableParallelism(),
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    logSeverityLevel: 4,
  });

  let plan: GraphPlan | undefined;
  let hidden = 0;
  const stats: EncoderStats = { texts: 0, truncated: 0, tokens: 0 };

  /** One ORT run over `rows` of `encs`, padded to the longest: the pooled, normalised rows [rows × H] and H. */
  const runGroup = async (session: ort.InferenceSession, encs: readonly Encoding[], rows: readonly number[]): Promise<{ vectors: Float32Array; H: number }> => {
    const p = plan as GraphPlan;
    const B = rows.length;
    const T = Math.max(1, ...rows.map((r) => (encs[r] as Encoding).ids.length));
    const tensor = (value: (enc: Encoding, t: number) => number, pad: (t: number) => number): ort.Tensor => {
      const data = p.idType === 'int64' ? new BigInt64Array(B * T) : new Int32Array(B * T);
      rows.forEach((r, b) => {
        const enc = encs[r] as Encoding;
        for (let t = 0; t < T; t++) {
          const v = t < enc.ids.length ? value(enc, t) : pad(t);
          if (data instanceof BigInt64Array) data[b * T + t] = BigInt(v);
          else data[b * T + t] = v;
        }
      });
      return new ort.Tensor(p.idType, data, [B, T]);
    };
    const feeds: Record<string, ort.Tensor> = {};
    for (const name of p.inputs) {
      if (name === 'input_ids') feeds[name] = tensor((enc, t) => enc.ids[t] as number, () => tokenizer.padId);
      else if (name === 'attention_mask') feeds[name] = tensor(() => 1, () => 0);
      else if (name === 'token_type_ids') feeds[name] = tensor((enc, t) => enc.typeIds[t] as number, () => 0);
      else feeds[name] = tensor((_enc, t) => t, (t) => t); // position_ids: right padding keeps real tokens at 0 … len−1
    }
    const result = await session.run(feeds, [p.output]);
    const out = result[p.output] as ort.Tensor | undefined;
    if (!out) throw new EncoderError(`${modelPath}: the run returned no ${p.output}`);
    const dims = out.dims;
    const data = floatData(out, p.output, modelPath);
    const H = dims[dims.length - 1] as number;
    if (dims.length !== p.rank || dims[0] !== B || (p.rank === 3 && dims[1] !== T) || !(H > 0)) {
      throw new EncoderError(`${modelPath}: output ${p.output} has shape [${dims.join(', ')}], expected [${B}, ${p.rank === 3 ? `${T}, ` : ''}hidden]`);
    }
    if (!data.every(Number.isFinite)) throw new Error(`output ${p.output} has non-finite values`);
    const vectors = new Float32Array(B * H);
    rows.forEach((r, b) => {
      if (p.rank === 3) poolRow(data, b * T * H, (encs[r] as Encoding).ids.length, H, configPooling, vectors, b * H);
      else normaliseInto(Float64Array.from(data.subarray(b * H, (b + 1) * H)), vectors, b * H);
    });
    return { vectors, H };
  };

  /** A session on `provider` that passed the graph checks and a probe run, or undefined (attempt recorded). */
  const tryOpen = async (provider: Provider): Promise<OpenSession | undefined> => {
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(modelPath, sessionOptions(provider));
    } catch (e) {
      attempts.push({ provider, ok: false, stage: 'session', error: message(e) });
      return undefined;
    }
    try {
      plan ??= planGraph(session, modelPath);
    } catch (e) {
      await session.release().catch(() => undefined);
      throw e; // the model, not the provider, is wrong
    }
    try {
      const { H } = await runGroup(session, [tokenizer.encode('probe')], [0]);
      if (hidden && H !== hidden) throw new EncoderError(`${modelPath}: output ${plan.output} has ${H} features on ${provider}, ${hidden} before`);
      hidden = H;
      attempts.push({ provider, ok: true });
      return { session, provider };
    } catch (e) {
      await session.release().catch(() => undefined);
      if (e instanceof EncoderError) throw e;
      attempts.push({ provider, ok: false, stage: 'probe', error: message(e) });
      return undefined;
    }
  };

  let opened: OpenSession | undefined;
  for (const p of order) {
    opened = await tryOpen(p);
    if (opened) break;
  }
  if (!opened) {
    const why = attempts.map((a) => `${a.provider}: ${a.error ?? 'failed'}`).join('; ');
    if (attempts.every((a) => a.stage === 'session') && order.includes('cpu')) {
      throw new EncoderError(`${modelPath}: ONNX Runtime cannot load it (${why})`);
    }
    throw new EncoderError(
      choice === 'auto' ? `${modelPath}: no ONNX Runtime execution provider could run it (${why})` : `${modelPath}: the ${choice} execution provider is not available here (${why})`,
    );
  }
  let current: OpenSession = opened;
  const textDim = hidden;
  const historyTokens = Math.min(DEFAULT_HISTORY_TOKENS, tokenizer.maxLength - tokenizer.specialTokens);
  const spec = `${ONNX_TEXT_ENCODER}:${dir}`;
  let closed = false;
  let card: Promise<TextEncoderCard> | undefined;

  const encodeText = async (histories: readonly EncodableHistory[]): Promise<Float32Array> => {
    if (closed) throw new EncoderError('the history encoder is closed');
    const n = histories.length;
    const out = new Float32Array(n * textDim);
    if (n === 0) return out;
    const encs = histories.map((h) => tokenizer.encode(h.text));
    for (const e of encs) {
      stats.texts++;
      stats.tokens += e.ids.length;
      if (e.truncated) stats.truncated++;
    }
    // Shortest first, so each group pads little; padding does not change a row (see the header).
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (encs[a] as Encoding).ids.length - (encs[b] as Encoding).ids.length || a - b);
    let start = 0;
    while (start < n) {
      let end = start + 1;
      while (end < n && end - start < batchSize && (end - start + 1) * (encs[order[end] as number] as Encoding).ids.length <= maxBatchTokens) end++;
      const rows = order.slice(start, end);
      const place = ({ vectors, H }: { vectors: Float32Array; H: number }): void => {
        if (H !== textDim) throw new EncoderError(`${modelPath}: output ${(plan as GraphPlan).output} has ${H} features, the probe had ${textDim}`);
        rows.forEach((r, b) => out.set(vectors.subarray(b * H, (b + 1) * H), r * H));
      };
      try {
        place(await runGroup(current.session, encs, rows));
      } catch (e) {
        if (e instanceof EncoderError || choice !== 'auto' || current.provider === 'cpu') throw e;
        // A GPU provider that passed the probe failed on real data: move to cpu and retry this group.
        attempts.push({ provider: current.provider, ok: false, stage: 'run', error: message(e) });
        await current.session.release().catch(() => undefined);
        const cpu = await tryOpen('cpu');
        if (!cpu) throw new EncoderError(`${modelPath}: ${current.provider} failed at run (${message(e)}) and cpu could not open`);
        current = cpu;
        place(await runGroup(current.session, encs, rows));
      }
      start = end;
    }
    return out;
  };

  return {
    name: ONNX_TEXT_ENCODER,
    spec,
    textDim,
    historyTokens,
    tokens: tokenCounter(tokenizer),
    get provider() {
      return current.provider;
    },
    stats,
    encodeText,
    describe() {
      card ??= (async (): Promise<TextEncoderCard> => {
        const files: EncoderFile[] = [];
        for (const path of dependencyFiles(dir, modelPath, poolingPath)) {
          files.push({ path: relative(dir, path), bytes: statSync(path).size, sha256: await fileSha256(path) });
        }
        const p = plan as GraphPlan;
        return {
          name: ONNX_TEXT_ENCODER,
          spec,
          textDim,
          historyTokens,
          tokenCount: `tokenizer.json (${tokenizer.modelType})`,
          files,
          onnx: {
            dir,
            model: relative(dir, modelPath),
            inputs: p.inputs,
            output: p.output,
            pooling: p.rank === 2 ? 'model' : configPooling,
            tokenizer: {
              type: tokenizer.modelType,
              maxLength: tokenizer.maxLength,
              maxLengthSource: tokenizer.maxLengthSource,
              truncationSide: tokenizer.truncationSide,
              specialTokens: tokenizer.specialTokens,
            },
            provider: current.provider,
            attempts: [...attempts],
          },
        };
      })();
      return card;
    },
    async close() {
      if (closed) return;
      closed = true;
      await current.session.release();
    },
  };
}
