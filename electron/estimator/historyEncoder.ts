/**
 * The pluggable history encoder (DESIGN §6): what turns a serialised history h_t and its structured inputs
 * into the estimator's z_x. Training, scoring and the model card all go through this interface, so an
 * estimator is always scored with the encoder it was trained with (compare `describe()`).
 *
 *   hash-1024        the built-in encoder (hashEncoder.ts): 1024 hashed n-gram features.
 *   onnx-text:DIR    a local sentence-embedding ONNX model and its tokenizer (onnxTextEncoder.ts): H features,
 *                    the pooled, L2-normalised embedding of `history.text`.
 *
 * Two layers: a TextEncoder turns history texts into textDim features and knows how to count tokens (its
 * tokenizer, or chars/4); `withProfile` puts an input profile (inputProfile.ts) around it, which lays the
 * history out (`history`) and appends the profile's structured features, so a row is
 * [text features ; profile.structured] — for routelens textDim + 4, the layout the dataset (CSR text +
 * structured) and the trainer use; for mtrouter the text features alone.
 */
import { resolve } from 'node:path';
import { HASH_DIM, HASH_ENCODER, encodeHashText } from './hashEncoder.ts';
import { APPROX_TOKEN_COUNTER, DEFAULT_HISTORY_TOKENS, type EncodableHistory, type HistoryTurn, type StructuredInput, type TokenCounter } from './historyText.ts';
import { DEFAULT_INPUT_PROFILE, inputProfile, type InputProfile, type InputProfileName } from './inputProfile.ts';
import type { Provider, ProviderAttempt, ProviderChoice } from './ortScoring.ts';

export const ONNX_TEXT_ENCODER = 'onnx-text';

export interface HistoryInput {
  history: EncodableHistory;
  structured: StructuredInput;
}

/** One file the encoder depends on, for the model card (paths relative to the encoder's folder). */
export interface EncoderFile {
  path: string;
  bytes: number;
  sha256: string;
}

/** The text encoder's part of the model card. */
export interface TextEncoderCard {
  name: typeof HASH_ENCODER | typeof ONNX_TEXT_ENCODER;
  /** The spec as given to openHistoryEncoder, with DIR made absolute. */
  spec: string;
  textDim: number;
  /** The serialisation budget (tokens) callers use when they set none. */
  historyTokens: number;
  /** How history tokens are counted where a layout counts them: 'chars/4' or the tokenizer's model type. */
  tokenCount: string;
  files: EncoderFile[];
  /** onnx-text only. */
  onnx?: {
    dir: string;
    model: string;
    inputs: string[];
    output: string;
    /** 'mean' | 'cls' | 'lasttoken' | 'max' over the token output, or 'model' when the graph pools itself. */
    pooling: string;
    tokenizer: { type: string; maxLength: number; maxLengthSource: string; truncationSide: string; specialTokens: number };
    provider: Provider;
    attempts: ProviderAttempt[];
  };
}

/** The encoder's part of the model card: the text encoder and the input profile around it. */
export interface EncoderCard extends TextEncoderCard {
  profile: InputProfileName;
  /** textDim + the structured features. */
  dim: number;
  structured: readonly string[];
}

export interface EncoderStats {
  texts: number;
  /** Texts longer than the model's max length, cut by the tokenizer's truncation (onnx-text only). */
  truncated: number;
  /** Tokens fed to the model, special tokens included (onnx-text only). */
  tokens: number;
}

/** History texts → text features. */
export interface TextEncoder {
  readonly name: TextEncoderCard['name'];
  readonly spec: string;
  readonly textDim: number;
  /**
   * The history budget (tokens) callers should serialise with when the user set none: 8192 for hash-1024;
   * for onnx-text the model's max length less its special tokens, capped at 8192, so the window the model
   * reads is the window the serialiser chose (oldest turns dropped first).
   */
  readonly historyTokens: number;
  /** How layouts that count tokens count them with this encoder. */
  readonly tokens: TokenCounter;
  /** The ONNX Runtime execution provider in use; null for hash-1024. */
  readonly provider: Provider | null;
  readonly stats: EncoderStats;
  /** Text features only: [n × textDim], row-major. */
  encodeText(histories: readonly EncodableHistory[]): Promise<Float32Array>;
  describe(): Promise<TextEncoderCard>;
  close(): Promise<void>;
}

/** A text encoder read through an input profile: what training and scoring use. */
export interface HistoryEncoder extends TextEncoder {
  readonly profile: InputProfile;
  /** textDim + the profile's structured features. */
  readonly dim: number;
  /** h_t of turn t = earlier.length in the profile's layout, counted with this encoder's tokens. */
  history(task: string | null, earlier: readonly HistoryTurn[], maxTokens?: number): EncodableHistory;
  /** Full rows [n × dim]: text features, then the profile's structured features. */
  encode(batch: readonly HistoryInput[]): Promise<Float32Array>;
  describe(): Promise<EncoderCard>;
}

/** A spec or an encoder folder that cannot be used: a user error (CLI exit 1), with a message that says why. */
export class EncoderError extends Error {
  override name = 'EncoderError';
}

export type EncoderSpec = { kind: typeof HASH_ENCODER } | { kind: typeof ONNX_TEXT_ENCODER; dir: string };

export function parseEncoderSpec(spec: string): EncoderSpec {
  if (spec === HASH_ENCODER) return { kind: HASH_ENCODER };
  if (spec.startsWith(`${ONNX_TEXT_ENCODER}:`)) {
    const dir = spec.slice(ONNX_TEXT_ENCODER.length + 1);
    if (!dir) throw new EncoderError(`history encoder "${spec}" names no folder: use onnx-text:DIR`);
    return { kind: ONNX_TEXT_ENCODER, dir: resolve(dir) };
  }
  if (spec === ONNX_TEXT_ENCODER) throw new EncoderError(`history encoder "${spec}" names no folder: use onnx-text:DIR`);
  throw new EncoderError(`unknown history encoder "${spec}" (expected ${HASH_ENCODER} or ${ONNX_TEXT_ENCODER}:DIR)`);
}

export interface OpenEncoderOptions {
  /** The input profile around the encoder (default routelens). */
  profile?: InputProfileName;
  /** onnx-text: execution provider, 'auto' (default) tries cuda → webgpu → cpu as the scorer does. */
  ep?: ProviderChoice;
  /** onnx-text: CPU intra-op threads; default os.availableParallelism(). */
  threads?: number;
  /** onnx-text: histories per ORT run (default 16). */
  batchSize?: number;
  /** onnx-text: at most this many padded tokens per ORT run (default 16384), so long histories run in smaller batches. */
  maxBatchTokens?: number;
}

/** Opens `hash-1024` or `onnx-text:DIR` under a profile; throws EncoderError for a bad spec or folder. */
export async function openHistoryEncoder(spec: string, options: OpenEncoderOptions = {}): Promise<HistoryEncoder> {
  const parsed = parseEncoderSpec(spec);
  const profile = inputProfile(options.profile ?? DEFAULT_INPUT_PROFILE);
  if (parsed.kind === HASH_ENCODER) return withProfile(hashTextEncoder(), profile);
  // Imported here, not at the top: onnxTextEncoder.ts imports this module's helpers (no import cycle at load).
  const { openOnnxTextEncoder } = await import('./onnxTextEncoder.ts');
  return withProfile(await openOnnxTextEncoder(parsed.dir, options), profile);
}

/** Appends the profile's structured features to text rows: [n × textDim] → [n × (textDim + structured)]. */
export function withStructured(text: Float32Array, textDim: number, batch: readonly HistoryInput[], profile: InputProfile = inputProfile()): Float32Array {
  const dim = textDim + profile.structured.length;
  if (dim === textDim) return text;
  const out = new Float32Array(batch.length * dim);
  batch.forEach((row, r) => {
    out.set(text.subarray(r * textDim, (r + 1) * textDim), r * dim);
    profile.writeStructured(row.structured, out, r * dim + textDim);
  });
  return out;
}

/** `encoder` under `profile`: the profile lays histories out and adds its structured features to each row. */
export function withProfile(encoder: TextEncoder, profile: InputProfile): HistoryEncoder {
  const dim = encoder.textDim + profile.structured.length;
  return {
    name: encoder.name,
    spec: encoder.spec,
    textDim: encoder.textDim,
    historyTokens: encoder.historyTokens,
    tokens: encoder.tokens,
    get provider() {
      return encoder.provider;
    },
    stats: encoder.stats,
    profile,
    dim,
    history: (task, earlier, maxTokens = encoder.historyTokens) => profile.history(task, earlier, maxTokens, encoder.tokens),
    encodeText: (histories) => encoder.encodeText(histories),
    async encode(batch) {
      return withStructured(await encoder.encodeText(batch.map((b) => b.history)), encoder.textDim, batch, profile);
    },
    async describe() {
      return { ...(await encoder.describe()), profile: profile.name, dim, structured: profile.structured };
    },
    close: () => encoder.close(),
  };
}

/** hash-1024: rows are exactly encodeHashHistory's under the routelens profile. */
export function hashTextEncoder(): TextEncoder {
  const stats: EncoderStats = { texts: 0, truncated: 0, tokens: 0 };
  return {
    name: HASH_ENCODER,
    spec: HASH_ENCODER,
    textDim: HASH_DIM,
    historyTokens: DEFAULT_HISTORY_TOKENS,
    tokens: APPROX_TOKEN_COUNTER,
    provider: null,
    stats,
    async encodeText(histories) {
      const out = new Float32Array(histories.length * HASH_DIM);
      histories.forEach((h, r) => encodeHashText(h.segments, out, r * HASH_DIM, h.recent, h.previousModel));
      stats.texts += histories.length;
      return out;
    },
    async describe() {
      return { name: HASH_ENCODER, spec: HASH_ENCODER, textDim: HASH_DIM, historyTokens: DEFAULT_HISTORY_TOKENS, tokenCount: APPROX_TOKEN_COUNTER.kind, files: [] };
    },
    async close() {},
  };
}
