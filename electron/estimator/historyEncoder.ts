/**
 * The pluggable history encoder (DESIGN §6): what turns a serialised history h_t (historyText.ts) and its
 * structured inputs into the estimator's z_x. Training, scoring and the model card all go through this
 * interface, so an estimator is always scored with the encoder it was trained with (compare `describe()`).
 *
 *   hash-1024        the built-in encoder (hashEncoder.ts): 1024 hashed n-gram features.
 *   onnx-text:DIR    a local sentence-embedding ONNX model and its tokenizer (onnxTextEncoder.ts): H features,
 *                    the pooled, L2-normalised embedding of `history.text`.
 *
 * Either way a row is [text features ; STRUCTURED_FEATURES], textDim + 4 values, the structured part
 * computed by historyText.ts's `structuredFeatures` — the layout the dataset (CSR text + structured) and the
 * trainer already use.
 */
import { resolve } from 'node:path';
import { HASH_DIM, HASH_ENCODER, encodeHashHistory, encodeHashText } from './hashEncoder.ts';
import { DEFAULT_HISTORY_TOKENS, STRUCTURED_DIM, structuredFeatures, type SerialisedHistory, type StructuredInput } from './historyText.ts';
import type { Provider, ProviderAttempt, ProviderChoice } from './ortScoring.ts';
import { STRUCTURED_FEATURES } from './weights.ts';

export const ONNX_TEXT_ENCODER = 'onnx-text';

/** What an encoder reads of a history: the text (onnx-text) or its pieces (hash-1024). */
export type EncodableHistory = Pick<SerialisedHistory, 'text' | 'segments' | 'recent' | 'previousModel'>;

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

/** The encoder's part of the model card. */
export interface EncoderCard {
  name: typeof HASH_ENCODER | typeof ONNX_TEXT_ENCODER;
  /** The spec as given to openHistoryEncoder, with DIR made absolute. */
  spec: string;
  textDim: number;
  /** textDim + the structured features. */
  dim: number;
  structured: readonly string[];
  /** The serialisation budget (approximate tokens) callers use when they set none. */
  historyTokens: number;
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

export interface EncoderStats {
  texts: number;
  /** Texts longer than the model's max length, cut by the tokenizer's truncation (onnx-text only). */
  truncated: number;
  /** Tokens fed to the model, special tokens included (onnx-text only). */
  tokens: number;
}

export interface HistoryEncoder {
  readonly name: EncoderCard['name'];
  readonly spec: string;
  readonly textDim: number;
  readonly dim: number;
  /**
   * The history budget (approximate tokens, historyText.ts) callers should serialise with when the user set
   * none: 8192 for hash-1024; for onnx-text the model's max length less its special tokens, capped at 8192, so
   * the window the model reads is the window the serialiser chose (oldest turns dropped first).
   */
  readonly historyTokens: number;
  /** The ONNX Runtime execution provider in use; null for hash-1024. */
  readonly provider: Provider | null;
  readonly stats: EncoderStats;
  /** Text features only: [n × textDim], row-major. */
  encodeText(histories: readonly EncodableHistory[]): Promise<Float32Array>;
  /** Full rows [n × dim]: text features, then the structured features. */
  encode(batch: readonly HistoryInput[]): Promise<Float32Array>;
  describe(): Promise<EncoderCard>;
  close(): Promise<void>;
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
  /** onnx-text: execution provider, 'auto' (default) tries cuda → webgpu → cpu as the scorer does. */
  ep?: ProviderChoice;
  /** onnx-text: CPU intra-op threads; default os.availableParallelism(). */
  threads?: number;
  /** onnx-text: histories per ORT run (default 16). */
  batchSize?: number;
  /** onnx-text: at most this many padded tokens per ORT run (default 16384), so long histories run in smaller batches. */
  maxBatchTokens?: number;
}

/** Opens `hash-1024` or `onnx-text:DIR`; throws EncoderError for a bad spec or folder. */
export async function openHistoryEncoder(spec: string, options: OpenEncoderOptions = {}): Promise<HistoryEncoder> {
  const parsed = parseEncoderSpec(spec);
  if (parsed.kind === HASH_ENCODER) return hashHistoryEncoder();
  // Imported here, not at the top: onnxTextEncoder.ts imports this module's helpers (no import cycle at load).
  const { openOnnxTextEncoder } = await import('./onnxTextEncoder.ts');
  return openOnnxTextEncoder(parsed.dir, options);
}

/** Appends the structured features to text rows: [n × textDim] → [n × (textDim + STRUCTURED_DIM)]. */
export function withStructured(text: Float32Array, textDim: number, batch: readonly HistoryInput[]): Float32Array {
  const dim = textDim + STRUCTURED_DIM;
  const out = new Float32Array(batch.length * dim);
  batch.forEach((row, r) => {
    out.set(text.subarray(r * textDim, (r + 1) * textDim), r * dim);
    structuredFeatures(row.structured, out, r * dim + textDim);
  });
  return out;
}

/** hash-1024 behind the interface: rows are exactly encodeHashHistory's. */
export function hashHistoryEncoder(): HistoryEncoder {
  const stats: EncoderStats = { texts: 0, truncated: 0, tokens: 0 };
  const dim = HASH_DIM + STRUCTURED_DIM;
  return {
    name: HASH_ENCODER,
    spec: HASH_ENCODER,
    textDim: HASH_DIM,
    dim,
    historyTokens: DEFAULT_HISTORY_TOKENS,
    provider: null,
    stats,
    async encodeText(histories) {
      const out = new Float32Array(histories.length * HASH_DIM);
      histories.forEach((h, r) => encodeHashText(h.segments, out, r * HASH_DIM, h.recent));
      stats.texts += histories.length;
      return out;
    },
    async encode(batch) {
      const out = new Float32Array(batch.length * dim);
      batch.forEach((row, r) => encodeHashHistory(row.history, row.structured, out, r * dim));
      stats.texts += batch.length;
      return out;
    },
    async describe() {
      return {
        name: HASH_ENCODER,
        spec: HASH_ENCODER,
        textDim: HASH_DIM,
        dim,
        structured: STRUCTURED_FEATURES,
        historyTokens: DEFAULT_HISTORY_TOKENS,
        files: [],
      };
    },
    async close() {},
  };
}
