/**
 * A Hugging Face `tokenizer.json` loaded from a local folder, for the `onnx-text:DIR` history encoder and for
 * the token counts of the mtrouter history layout (mtrouterHistory.ts). Nothing is downloaded; the folder holds
 * what `save_pretrained` / `optimum-cli export onnx` write.
 *
 * The pipeline itself (added tokens, normalizer, pre-tokenizer, model, post-processor, decoder) is the kept
 * library `@huggingface/tokenizers` (pure JavaScript, no native code, no network). It has no truncation, so this
 * module adds what the Rust library's `encode(text, add_special_tokens=True)` does with a `truncation` setting:
 * the text's tokens are cut to `maxLength` minus the special tokens the post-processor adds, on the side the
 * file says (right by default: the end of the text is cut), and the post-processor's special tokens go around
 * what is kept.
 *
 * maxLength, first found: sentence_bert_config.json `max_seq_length` (what sentence-transformers, and so the
 * embedding's authors, use), tokenizer.json `truncation.max_length`, tokenizer_config.json `model_max_length`
 * (ignored above 10^6, the library's "no limit" sentinel is 10^30), else 512.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer as LibraryTokenizer } from '@huggingface/tokenizers';
import { z } from 'zod';

export class TokenizerError extends Error {
  override name = 'TokenizerError';
}

export const TOKENIZER_FILE = 'tokenizer.json';
export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';
export const SENTENCE_BERT_CONFIG_FILE = 'sentence_bert_config.json';
export const DEFAULT_MAX_LENGTH = 512;
const NO_LIMIT = 1_000_000;
/** The library reads these parts by name; a file may leave them out, which means none. */
const PIPELINE_PARTS = ['normalizer', 'pre_tokenizer', 'post_processor', 'decoder'] as const;

export interface Encoding {
  ids: number[];
  typeIds: number[];
  /** Whether truncation cut tokens (the text did not fit in maxLength). */
  truncated: boolean;
}

export interface Tokenizer {
  /** The tokenizer.json model type (WordPiece, BPE, Unigram). */
  readonly modelType: string;
  readonly maxLength: number;
  /** Where maxLength came from, for the model card. */
  readonly maxLengthSource: string;
  readonly truncationSide: 'right' | 'left';
  /** Ids the post-processor adds around a sequence (counted inside maxLength). */
  readonly specialTokens: number;
  /** The id padded positions get (attention_mask 0 hides them). */
  readonly padId: number;
  /** The model's input for `text`: special tokens added, cut to maxLength. */
  encode(text: string): Encoding;
  /** Tokens of `text` without special tokens or truncation (`len(tokenizer.encode(text, add_special_tokens=False))`). */
  countTokens(text: string): number;
  /** The text of the first `n` tokens of `text` (no special tokens), decoded back. */
  headTokens(text: string, n: number): string;
  /** The id of a token (vocabulary or added), if any. */
  tokenId(token: string): number | undefined;
}

const fileSchema = z.looseObject({
  added_tokens: z.array(z.looseObject({ id: z.number().int().nonnegative(), content: z.string() })).default([]),
  model: z.looseObject({ type: z.string().optional() }),
  truncation: z
    .looseObject({ max_length: z.number().int().positive(), direction: z.enum(['Right', 'Left']).default('Right') })
    .nullable()
    .optional(),
  padding: z.looseObject({ pad_id: z.number().int().nonnegative().optional() }).nullable().optional(),
});
const configSchema = z.looseObject({ model_max_length: z.number().optional() });
const stConfigSchema = z.looseObject({ max_seq_length: z.number().int().positive().optional() });

function parseWith<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new TokenizerError(`${what}: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}`);
  return r.data;
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new TokenizerError(`${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new TokenizerError(`${path}: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Where the post-processor puts its special tokens around one sequence, found by running it on a one-token
 * placeholder: the library's post-processors only arrange tokens, so the placeholder marks the text's place.
 */
interface SpecialLayout {
  before: number[];
  after: number[];
  /** Token type ids of `before`, the text, and `after`. */
  beforeTypes: number[];
  sequenceType: number;
  afterTypes: number[];
}

function specialLayout(lib: LibraryTokenizer, path: string): SpecialLayout {
  const post = lib.post_processor;
  if (!post) return { before: [], after: [], beforeTypes: [], sequenceType: 0, afterTypes: [] };
  const mark = '\u0000routelens-sequence\u0000';
  let out: { tokens: string[]; token_type_ids?: number[] };
  try {
    out = post([mark], null, true);
  } catch (e) {
    throw new TokenizerError(`${path}: post_processor: ${message(e)}`);
  }
  const at = out.tokens.indexOf(mark);
  if (at < 0) throw new TokenizerError(`${path}: post_processor: the single-sequence template has no sequence ($A)`);
  const idOf = (t: string): number => {
    const id = lib.token_to_id(t);
    if (id === undefined) throw new TokenizerError(`${path}: post_processor: special token ${JSON.stringify(t)} is not in the vocabulary`);
    return id;
  };
  const types = out.token_type_ids ?? out.tokens.map(() => 0);
  return {
    before: out.tokens.slice(0, at).map(idOf),
    after: out.tokens.slice(at + 1).map(idOf),
    beforeTypes: types.slice(0, at),
    sequenceType: types[at] ?? 0,
    afterTypes: types.slice(at + 1),
  };
}

/** Loads DIR/tokenizer.json (+ tokenizer_config.json and sentence_bert_config.json when present). */
export function loadTokenizer(dir: string): Tokenizer {
  const path = join(dir, TOKENIZER_FILE);
  if (!existsSync(path)) throw new TokenizerError(`${path}: missing (the folder must hold the model's tokenizer.json)`);
  const raw = readJson(path);
  const file = parseWith(fileSchema, raw, path);
  const configPath = join(dir, TOKENIZER_CONFIG_FILE);
  const stPath = join(dir, SENTENCE_BERT_CONFIG_FILE);
  const configJson = existsSync(configPath) ? readJson(configPath) : {};
  const config = parseWith(configSchema, configJson, configPath);
  const st = existsSync(stPath) ? parseWith(stConfigSchema, readJson(stPath), stPath) : {};

  let lib: LibraryTokenizer;
  try {
    const complete: Record<string, unknown> = { ...(raw as Record<string, unknown>), added_tokens: file.added_tokens };
    for (const part of PIPELINE_PARTS) complete[part] ??= null;
    lib = new LibraryTokenizer(complete, config);
  } catch (e) {
    throw new TokenizerError(`${path}: ${message(e)}`);
  }
  const layout = specialLayout(lib, path);
  const added = layout.before.length + layout.after.length;

  let maxLength = DEFAULT_MAX_LENGTH;
  let maxLengthSource = 'default';
  if (st.max_seq_length !== undefined) {
    maxLength = st.max_seq_length;
    maxLengthSource = `${SENTENCE_BERT_CONFIG_FILE} max_seq_length`;
  } else if (file.truncation) {
    maxLength = file.truncation.max_length;
    maxLengthSource = `${TOKENIZER_FILE} truncation.max_length`;
  } else if (config.model_max_length !== undefined && config.model_max_length <= NO_LIMIT) {
    maxLength = Math.floor(config.model_max_length);
    maxLengthSource = `${TOKENIZER_CONFIG_FILE} model_max_length`;
  }
  if (maxLength <= added) throw new TokenizerError(`${path}: max length ${maxLength} (${maxLengthSource}) leaves no room for text`);
  const truncationSide = file.truncation?.direction === 'Left' ? 'left' : 'right';
  const limit = maxLength - added;
  const textIds = (text: string): number[] => (text ? lib.encode(text, { add_special_tokens: false }).ids : []);

  return {
    modelType: file.model.type ?? 'unknown',
    maxLength,
    maxLengthSource,
    truncationSide,
    specialTokens: added,
    padId: file.padding?.pad_id ?? 0,
    tokenId: (t) => lib.token_to_id(t),
    countTokens: (text) => textIds(text).length,
    headTokens(text, n) {
      const ids = textIds(text);
      if (ids.length <= n) return text;
      return n > 0 ? lib.decode(ids.slice(0, n)) : '';
    },
    encode(text) {
      const all = textIds(text);
      const truncated = all.length > limit;
      const kept = !truncated ? all : truncationSide === 'right' ? all.slice(0, limit) : all.slice(all.length - limit);
      return {
        ids: [...layout.before, ...kept, ...layout.after],
        typeIds: [...layout.beforeTypes, ...kept.map(() => layout.sequenceType), ...layout.afterTypes],
        truncated,
      };
    },
  };
}
