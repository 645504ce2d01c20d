/**
 * A Hugging Face `tokenizer.json` (the `tokenizers` library's serialisation) loaded from a local folder, for the
 * `onnx-text:DIR` history encoder. Nothing is downloaded; the folder holds what `save_pretrained` /
 * `optimum-cli export onnx` write.
 *
 * Pipeline, as the library's `encode(text, add_special_tokens=True)`:
 *   1. added tokens (`added_tokens`, e.g. [CLS], <|endoftext|>) are cut out of the raw text first — leftmost,
 *      longest first, honouring lstrip / rstrip / single_word; those marked `normalized` are looked for in
 *      the normalized text instead;
 *   2. normalizer, pre-tokenizer and model (tokenizerText.ts, tokenizerModels.ts) on the text between them;
 *   3. truncation to `maxLength` minus the special tokens the post-processor adds, on the side the file says
 *      (right by default: the end of the text is cut);
 *   4. post-processor: BertProcessing, RobertaProcessing, TemplateProcessing (single-sequence template),
 *      ByteLevel (ids unchanged), Sequence of these, or none.
 *
 * maxLength, first found: sentence_bert_config.json `max_seq_length` (what sentence-transformers, and so the
 * embedding's authors, use), tokenizer.json `truncation.max_length`, tokenizer_config.json `model_max_length`
 * (ignored above 10^6, the library's "no limit" sentinel is 10^30), else 512.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { buildModel, type TokenizerModel } from './tokenizerModels.ts';
import { TokenizerError, buildNormalizer, buildPreTokenizer, type Normalizer, type PreTokenizerInfo } from './tokenizerText.ts';

export { TokenizerError } from './tokenizerText.ts';

export const TOKENIZER_FILE = 'tokenizer.json';
export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';
export const SENTENCE_BERT_CONFIG_FILE = 'sentence_bert_config.json';
export const DEFAULT_MAX_LENGTH = 512;
const NO_LIMIT = 1_000_000;

export interface Encoding {
  ids: number[];
  typeIds: number[];
  /** Whether truncation cut tokens (the text did not fit in maxLength). */
  truncated: boolean;
}

export interface Tokenizer {
  readonly modelType: TokenizerModel['type'];
  readonly maxLength: number;
  /** Where maxLength came from, for the model card. */
  readonly maxLengthSource: string;
  readonly truncationSide: 'right' | 'left';
  /** Ids the post-processor adds around a sequence (counted inside maxLength). */
  readonly specialTokens: number;
  /** The id padded positions get (attention_mask 0 hides them). */
  readonly padId: number;
  encode(text: string): Encoding;
  /** The id of a token (vocabulary or added), if any. */
  tokenId(token: string): number | undefined;
}

const addedTokenSchema = z.looseObject({
  id: z.number().int().nonnegative(),
  content: z.string().min(1),
  single_word: z.boolean().default(false),
  lstrip: z.boolean().default(false),
  rstrip: z.boolean().default(false),
  normalized: z.boolean().default(false),
  special: z.boolean().default(false),
});
type AddedToken = z.infer<typeof addedTokenSchema>;

const fileSchema = z.looseObject({
  added_tokens: z.array(addedTokenSchema).default([]),
  normalizer: z.unknown().optional(),
  pre_tokenizer: z.unknown().optional(),
  model: z.unknown(),
  post_processor: z.unknown().optional(),
  truncation: z
    .looseObject({ max_length: z.number().int().positive(), direction: z.enum(['Right', 'Left']).default('Right') })
    .nullable()
    .optional(),
  padding: z.looseObject({ pad_id: z.number().int().nonnegative().optional() }).nullable().optional(),
});

// ---------------------------------------------------------------- added tokens

interface Piece {
  text: string;
  /** Set when the piece is an added token. */
  id?: number;
}

const isSpace = (ch: string | undefined): boolean => ch !== undefined && /\s/u.test(ch);
const isWord = (ch: string | undefined): boolean => ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);

/** Cuts the added tokens out of `text` (leftmost, then longest), as the library's AddedVocabulary. */
function splitAdded(text: string, tokens: readonly AddedToken[], re: RegExp | null): Piece[] {
  if (!re || !text) return text ? [{ text }] : [];
  const byContent = new Map(tokens.map((t) => [t.content, t]));
  const out: Piece[] = [];
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const tok = byContent.get(m[0]) as AddedToken;
    let start = m.index;
    let end = start + m[0].length;
    if (tok.single_word && (isWord(text[start - 1]) || isWord(text[end]))) {
      re.lastIndex = start + 1;
      continue;
    }
    if (tok.lstrip) while (start > last && isSpace(text[start - 1])) start--;
    if (tok.rstrip) while (end < text.length && isSpace(text[end])) end++;
    if (start > last) out.push({ text: text.slice(last, start) });
    out.push({ text: text.slice(start, end), id: tok.id });
    last = end;
    re.lastIndex = end;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

function alternation(tokens: readonly AddedToken[]): RegExp | null {
  if (!tokens.length) return null;
  const sorted = [...tokens].sort((a, b) => b.content.length - a.content.length);
  return new RegExp(sorted.map((t) => t.content.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gu');
}

// ---------------------------------------------------------------- post-processors

interface PostProcessor {
  /** Ids added around a single sequence. */
  added: number;
  apply(ids: number[]): { ids: number[]; typeIds: number[] };
}

const specialPairSchema = z.tuple([z.string(), z.number().int().nonnegative()]);
const templatePieceSchema = z.union([
  z.object({ SpecialToken: z.object({ id: z.string(), type_id: z.number().int().nonnegative().default(0) }) }),
  z.object({ Sequence: z.object({ id: z.enum(['A', 'B']), type_id: z.number().int().nonnegative().default(0) }) }),
]);
const templateSchema = z.looseObject({
  single: z.array(templatePieceSchema),
  special_tokens: z.record(z.string(), z.looseObject({ ids: z.array(z.number().int().nonnegative()) })).default({}),
});

function parseWith<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new TokenizerError(`${what}: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}`);
  return r.data;
}

function around(before: number[], after: number[]): PostProcessor {
  return {
    added: before.length + after.length,
    apply: (ids) => {
      const all = [...before, ...ids, ...after];
      return { ids: all, typeIds: all.map(() => 0) };
    },
  };
}

function buildPostProcessor(spec: unknown, what: string): PostProcessor | null {
  if (spec === null || spec === undefined) return null;
  const type = (spec as { type?: unknown }).type;
  switch (type) {
    case 'BertProcessing':
    case 'RobertaProcessing': {
      const o = parseWith(z.looseObject({ cls: specialPairSchema, sep: specialPairSchema }), spec, what);
      return around([o.cls[1]], [o.sep[1]]);
    }
    case 'ByteLevel':
      return null;
    case 'TemplateProcessing': {
      const o = parseWith(templateSchema, spec, what);
      if (!o.single.some((p) => 'Sequence' in p)) throw new TokenizerError(`${what}: the single template has no sequence ($A)`);
      let added = 0;
      for (const p of o.single) {
        if (!('SpecialToken' in p)) continue;
        const s = o.special_tokens[p.SpecialToken.id];
        if (!s) throw new TokenizerError(`${what}: special token ${JSON.stringify(p.SpecialToken.id)} of the template is not in special_tokens`);
        added += s.ids.length;
      }
      return {
        added,
        apply: (ids) => {
          const outIds: number[] = [];
          const typeIds: number[] = [];
          for (const p of o.single) {
            const [piece, typeId] = 'Sequence' in p ? [ids, p.Sequence.type_id] : [o.special_tokens[p.SpecialToken.id]?.ids ?? [], p.SpecialToken.type_id];
            for (const id of piece) {
              outIds.push(id);
              typeIds.push(typeId);
            }
          }
          return { ids: outIds, typeIds };
        },
      };
    }
    case 'Sequence': {
      const o = parseWith(z.looseObject({ processors: z.array(z.unknown()) }), spec, what);
      const steps = o.processors.map((p, i) => buildPostProcessor(p, `${what}.processors[${i}]`)).filter((p): p is PostProcessor => p !== null);
      if (steps.length > 1) throw new TokenizerError(`${what}: more than one post-processor that adds tokens is not supported`);
      return steps[0] ?? null;
    }
    default:
      throw new TokenizerError(
        `${what} type ${JSON.stringify(type ?? null)} is not supported (supported: BertProcessing, RobertaProcessing, TemplateProcessing, ByteLevel, Sequence)`,
      );
  }
}

// ---------------------------------------------------------------- loading

function readJson(path: string, label: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new TokenizerError(`${label}: cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new TokenizerError(`${label}: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

const configSchema = z.looseObject({ model_max_length: z.number().optional() });
const stConfigSchema = z.looseObject({ max_seq_length: z.number().int().positive().optional() });

/** Loads DIR/tokenizer.json (+ tokenizer_config.json and sentence_bert_config.json when present). */
export function loadTokenizer(dir: string): Tokenizer {
  const path = join(dir, TOKENIZER_FILE);
  if (!existsSync(path)) throw new TokenizerError(`${path}: missing (the folder must hold the model's tokenizer.json)`);
  const file = parseWith(fileSchema, readJson(path, path), path);
  const where = (part: string): string => `${path}: ${part}`;
  const model = buildModel(file.model, where('model'));
  const normalizer: Normalizer | null = buildNormalizer(file.normalizer, where('normalizer'));
  const pre: PreTokenizerInfo | null = buildPreTokenizer(file.pre_tokenizer, where('pre_tokenizer'));
  const post = buildPostProcessor(file.post_processor, where('post_processor'));

  let maxLength = DEFAULT_MAX_LENGTH;
  let maxLengthSource = 'default';
  const stPath = join(dir, SENTENCE_BERT_CONFIG_FILE);
  const configPath = join(dir, TOKENIZER_CONFIG_FILE);
  const st = existsSync(stPath) ? parseWith(stConfigSchema, readJson(stPath, stPath), stPath) : {};
  const config = existsSync(configPath) ? parseWith(configSchema, readJson(configPath, configPath), configPath) : {};
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
  const added = post?.added ?? 0;
  if (maxLength <= added) throw new TokenizerError(`${path}: max length ${maxLength} (${maxLengthSource}) leaves no room for text`);
  const truncationSide = file.truncation?.direction === 'Left' ? 'left' : 'right';

  const raw = file.added_tokens.filter((t) => !t.normalized);
  const normalizedTokens = file.added_tokens.filter((t) => t.normalized);
  const rawRe = alternation(raw);
  const normRe = alternation(normalizedTokens);
  const addedIds = new Map(file.added_tokens.map((t) => [t.content, t.id]));
  const padId = file.padding?.pad_id ?? 0;
  const limit = maxLength - added;

  return {
    modelType: model.type,
    maxLength,
    maxLengthSource,
    truncationSide,
    specialTokens: added,
    padId,
    tokenId: (t) => addedIds.get(t) ?? model.id(t),
    encode(text) {
      const ids: number[] = [];
      // Past the limit nothing more is kept when cutting on the right: stop early (histories run to 32k chars).
      const enough = (): boolean => truncationSide === 'right' && ids.length > limit;
      outer: for (const piece of splitAdded(text, raw, rawRe)) {
        if (piece.id !== undefined) {
          ids.push(piece.id);
          if (enough()) break;
          continue;
        }
        const normalized = normalizer ? normalizer(piece.text) : piece.text;
        for (const sub of splitAdded(normalized, normalizedTokens, normRe)) {
          if (sub.id !== undefined) {
            ids.push(sub.id);
            if (enough()) break outer;
            continue;
          }
          const words = pre ? pre.run([sub.text]) : [sub.text];
          for (const w of words) {
            if (w) model.tokenize(w, ids);
            if (enough()) break outer;
          }
        }
      }
      const truncated = ids.length > limit;
      const kept = !truncated ? ids : truncationSide === 'right' ? ids.slice(0, limit) : ids.slice(ids.length - limit);
      if (!post) return { ids: kept, typeIds: kept.map(() => 0), truncated };
      return { ...post.apply(kept), truncated };
    },
  };
}
