/**
 * Test support: a tiny sentence-embedding model written as a real ONNX file (onnxProto.ts, opset 17) plus a
 * BERT-style tokenizer.json, in a folder laid out as `onnx-text:DIR` expects — and the same model's output
 * computed in plain TypeScript, to check the encoder against.
 *
 * The graph (H = 8, V = the vocabulary):
 *   x_t  = E[input_ids_t] + TE[token_type_ids_t] (+ PE[position_ids_t])
 *   ctx  = Σ_t m_t x_t / Σ_t m_t                      (m = attention_mask: the only cross-token term, so a
 *                                                       wrong mask or leaked padding changes every output)
 *   last_hidden_state_t = x_t + ctx                    [B, T, H]
 * or, with `output: 'pooled'`, sentence_embedding = 3 · ctx [B, H] (not normalised: the encoder must do it).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AttributeType, DataType, encodeModel, type ModelMsg, type NodeMsg, type TensorMsg, type ValueInfoMsg } from './onnxProto.ts';
import { SeededRandom } from './seededRandom.ts';

export const TINY_HIDDEN = 8;
/** TensorProto.DataType FLOAT16. */
const FLOAT16 = 10;

/** The tokenizer's vocabulary: ids are the positions. Covers the labels serialiseHistory writes. */
export const TINY_WORDS = [
  '[PAD]', '[UNK]', '[CLS]', '[SEP]', 'task', ':', '#', 'turn', 'action', 'observation', 'end', '(', ')', '.', ',',
  '0', '1', '2', '3', 'open', 'the', 'door', 'go', 'to', 'kitchen', 'you', 'see', 'a', 'thermometer', 'boil', 'water',
  'no', 'known', '##s', '##ing',
] as const;
export const TINY_ID: Readonly<Record<string, number>> = Object.fromEntries(TINY_WORDS.map((w, i) => [w, i]));

export interface TinyModelOptions {
  output?: 'tokens' | 'pooled';
  tokenTypeIds?: boolean;
  positionIds?: boolean;
  /** tokenizer.json truncation.max_length (also the size of the position table); default none (512). */
  maxLength?: number;
  /** Writes 1_Pooling/config.json with this mode. */
  pooling?: 'mean' | 'cls' | 'lasttoken' | 'max';
  seed?: number;
  /** Token output in float16 (a half-precision export). */
  float16?: boolean;
}

export interface TinyModel {
  dir: string;
  E: Float32Array;
  TE: Float32Array;
  PE: Float32Array;
  options: TinyModelOptions;
}

const special = (id: number, content: string) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });

export function tinyTokenizerJson(maxLength?: number): Record<string, unknown> {
  return {
    version: '1.0',
    truncation: maxLength ? { max_length: maxLength, strategy: 'LongestFirst', stride: 0, direction: 'Right' } : null,
    padding: null,
    added_tokens: [special(0, '[PAD]'), special(1, '[UNK]'), special(2, '[CLS]'), special(3, '[SEP]')],
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
    },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: TINY_ID },
  };
}

const floats = (name: string, dims: number[], data: Float32Array): TensorMsg => ({
  name,
  dims,
  data_type: DataType.FLOAT,
  raw_data: new Uint8Array(Float32Array.from(data).buffer),
});
const int64s = (name: string, data: number[]): TensorMsg => ({ name, dims: [data.length], data_type: DataType.INT64, int64_data: data });
export const info = (name: string, elem: number, dim: ({ dim_param: string } | { dim_value: number })[]): ValueInfoMsg => ({
  name,
  type: { tensor_type: { elem_type: elem, shape: { dim } } },
});

/** An ONNX model from nodes, initializers and value infos (opset 17, IR 8). */
export function onnxBytes(node: NodeMsg[], initializer: TensorMsg[], input: ValueInfoMsg[], output: ValueInfoMsg[]): Uint8Array {
  const model: ModelMsg = {
    ir_version: 8,
    opset_import: [{ domain: '', version: 17 }],
    producer_name: 'routelens-test',
    producer_version: '1',
    graph: { name: 'tiny_text_encoder', node, initializer, input, output },
    metadata_props: [],
  };
  return encodeModel(model);
}

export function tinyModelBytes(E: Float32Array, TE: Float32Array, PE: Float32Array, o: TinyModelOptions): Uint8Array {
  const H = TINY_HIDDEN;
  const V = TINY_WORDS.length;
  const node: NodeMsg[] = [];
  const add = (op: string, input: string[], output: string, attribute?: NodeMsg['attribute']): void => {
    node.push({ name: output, op_type: op, input, output: [output], ...(attribute ? { attribute } : {}) });
  };
  const initializer: TensorMsg[] = [floats('E', [V, H], E), int64s('axis2', [2]), int64s('axis1', [1])];
  const bt = [{ dim_param: 'batch' }, { dim_param: 'sequence' }];
  const input = [info('input_ids', DataType.INT64, bt), info('attention_mask', DataType.INT64, bt)];
  add('Gather', ['E', 'input_ids'], 'x_tok');
  let x = 'x_tok';
  if (o.tokenTypeIds) {
    initializer.push(floats('TE', [2, H], TE));
    input.push(info('token_type_ids', DataType.INT64, bt));
    add('Gather', ['TE', 'token_type_ids'], 'x_type');
    add('Add', [x, 'x_type'], 'x_tt');
    x = 'x_tt';
  }
  if (o.positionIds) {
    initializer.push(floats('PE', [PE.length / H, H], PE));
    input.push(info('position_ids', DataType.INT64, bt));
    add('Gather', ['PE', 'position_ids'], 'x_pos');
    add('Add', [x, 'x_pos'], 'x_all');
    x = 'x_all';
  }
  add('Cast', ['attention_mask'], 'm', [{ name: 'to', type: AttributeType.INT, i: DataType.FLOAT }]);
  add('Unsqueeze', ['m', 'axis2'], 'm3');
  add('Mul', [x, 'm3'], 'xm');
  const output: ValueInfoMsg[] = [];
  if (o.output === 'pooled') {
    add('ReduceSum', ['xm', 'axis1'], 'sum', [{ name: 'keepdims', type: AttributeType.INT, i: 0 }]);
    add('ReduceSum', ['m3', 'axis1'], 'count', [{ name: 'keepdims', type: AttributeType.INT, i: 0 }]);
    add('Div', ['sum', 'count'], 'ctx');
    initializer.push(floats('three', [1], Float32Array.of(3)));
    add('Mul', ['ctx', 'three'], 'sentence_embedding');
    output.push(info('sentence_embedding', DataType.FLOAT, [{ dim_param: 'batch' }, { dim_value: H }]));
  } else {
    add('ReduceSum', ['xm', 'axis1'], 'sum', [{ name: 'keepdims', type: AttributeType.INT, i: 1 }]);
    add('ReduceSum', ['m3', 'axis1'], 'count', [{ name: 'keepdims', type: AttributeType.INT, i: 1 }]);
    add('Div', ['sum', 'count'], 'ctx');
    if (o.float16) {
      add('Add', [x, 'ctx'], 'hidden32');
      add('Cast', ['hidden32'], 'last_hidden_state', [{ name: 'to', type: AttributeType.INT, i: FLOAT16 }]);
    } else add('Add', [x, 'ctx'], 'last_hidden_state');
    output.push(info('last_hidden_state', o.float16 ? FLOAT16 : DataType.FLOAT, [...bt, { dim_value: H }]));
  }
  return onnxBytes(node, initializer, input, output);
}

/** Writes model.onnx, tokenizer.json (and 1_Pooling/config.json) into `dir`. */
export function writeTinyModel(dir: string, options: TinyModelOptions = {}): TinyModel {
  const rng = new SeededRandom(options.seed ?? 5);
  const H = TINY_HIDDEN;
  const rand = (n: number): Float32Array => Float32Array.from({ length: n }, () => rng.normal());
  const E = rand(TINY_WORDS.length * H);
  const TE = rand(2 * H);
  const PE = rand((options.maxLength ?? 512) * H);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.onnx'), tinyModelBytes(E, TE, PE, options));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tinyTokenizerJson(options.maxLength)));
  if (options.pooling) {
    mkdirSync(join(dir, '1_Pooling'), { recursive: true });
    const mode = (m: string): boolean => options.pooling === m;
    writeFileSync(
      join(dir, '1_Pooling', 'config.json'),
      JSON.stringify({
        word_embedding_dimension: H,
        pooling_mode_cls_token: mode('cls'),
        pooling_mode_mean_tokens: mode('mean'),
        pooling_mode_max_tokens: mode('max'),
        pooling_mode_mean_sqrt_len_tokens: false,
        pooling_mode_lasttoken: mode('lasttoken'),
      }),
    );
  }
  return { dir, E, TE, PE, options };
}

/** The embedding the encoder must return for token ids `ids` (type ids all 0), computed in float64. */
export function expectedEmbedding(m: TinyModel, ids: readonly number[]): Float64Array {
  const H = TINY_HIDDEN;
  const T = ids.length;
  const x = ids.map((id, t) => {
    const v = new Float64Array(H);
    for (let j = 0; j < H; j++) {
      v[j] = (m.E[id * H + j] as number) + (m.options.tokenTypeIds ? (m.TE[j] as number) : 0) + (m.options.positionIds ? (m.PE[t * H + j] as number) : 0);
    }
    return v;
  });
  const ctx = new Float64Array(H);
  for (const v of x) for (let j = 0; j < H; j++) ctx[j] = (ctx[j] as number) + (v[j] as number) / T;
  let out: Float64Array;
  if (m.options.output === 'pooled') out = ctx.map((c) => 3 * c);
  else {
    const h = x.map((v) => v.map((a, j) => a + (ctx[j] as number)));
    const pooling = m.options.pooling ?? 'mean';
    if (pooling === 'cls') out = h[0] as Float64Array;
    else if (pooling === 'lasttoken') out = h[T - 1] as Float64Array;
    else if (pooling === 'max') out = new Float64Array(H).map((_, j) => Math.max(...h.map((v) => v[j] as number)));
    else out = new Float64Array(H).map((_, j) => h.reduce((s, v) => s + (v[j] as number), 0) / T);
  }
  const norm = Math.sqrt(out.reduce((s, a) => s + a * a, 0));
  return out.map((a) => a / norm);
}
