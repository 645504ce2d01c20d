import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../testing/tmp.ts';
import { HASH_DIM, encodeHashHistory } from './hashEncoder.ts';
import { EncoderError, openHistoryEncoder, parseEncoderSpec, type HistoryEncoder, type HistoryInput } from './historyEncoder.ts';
import { STRUCTURED_DIM, serialiseHistory, structuredFeatures, type StructuredInput } from './historyText.ts';
import { DataType, type NodeMsg } from './onnxProto.ts';
import { SeededRandom } from './seededRandom.ts';
import {
  TINY_HIDDEN,
  TINY_ID,
  TINY_WORDS,
  expectedEmbedding,
  info,
  onnxBytes,
  tinyTokenizerJson,
  writeTinyModel,
  type TinyModel,
  type TinyModelOptions,
} from './tinyTextModel.testSupport.ts';
import { loadTokenizer } from './tokenizer.ts';

const tempDir = useTempDir();
const H = TINY_HIDDEN;

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
  return worst;
}

const asHistory = (text: string): HistoryInput['history'] => ({ text, segments: [text], recent: [], previousModel: null });
const ids = (words: string): number[] => words.split(' ').map((w) => TINY_ID[w] as number);

async function open(options: TinyModelOptions = {}): Promise<{ enc: HistoryEncoder; model: TinyModel }> {
  const model = writeTinyModel(tempDir(), options);
  return { enc: await openHistoryEncoder(`onnx-text:${model.dir}`, { ep: 'cpu' }), model };
}

describe('onnx-text encoder on a tiny generated model', () => {
  it('encodes a serialised history to the hand-computed mean-pooled, L2-normalised vector, then the structured features', async () => {
    const { enc, model } = await open({ tokenTypeIds: true });
    expect(enc.name).toBe('onnx-text');
    expect(enc.textDim).toBe(H);
    expect(enc.dim).toBe(H + STRUCTURED_DIM);
    expect(enc.provider).toBe('cpu');
    const history = serialiseHistory('Open the door.', [{ action: 'go to kitchen', observation: 'You see a thermometer.' }]);
    expect(history.text).toBe('Task: Open the door.\n\n## Turn 0\nAction: go to kitchen\nObservation: You see a thermometer.\n\n');
    const expectedIds = ids('[CLS] task : open the door . # # turn 0 action : go to kitchen observation : you see a thermometer . [SEP]');
    expect(loadTokenizer(model.dir).encode(history.text).ids).toEqual(expectedIds);

    const structured: StructuredInput = { t: 1, expectedSteps: 10, previousSeverity: 2, previousSwitched: true };
    const row = await enc.encode([{ history, structured }]);
    expect(row).toHaveLength(H + STRUCTURED_DIM);
    expect(maxDiff(row.subarray(0, H), expectedEmbedding(model, expectedIds))).toBeLessThan(1e-5);
    const s = new Float32Array(STRUCTURED_DIM);
    structuredFeatures(structured, s, 0);
    expect(Array.from(row.subarray(H))).toEqual(Array.from(s));
    expect(enc.stats).toEqual({ texts: 1, truncated: 0, tokens: expectedIds.length });
    await enc.close();
    await expect(enc.encodeText([history])).rejects.toThrow(/closed/);
  });

  it('gives every row the same vector alone or in a padded batch of any order and size', async () => {
    const { enc, model } = await open({ tokenTypeIds: true, positionIds: true });
    const rng = new SeededRandom(3);
    const words = TINY_WORDS.slice(4);
    const texts = Array.from({ length: 37 }, () => Array.from({ length: 1 + rng.int(40) }, () => words[rng.int(words.length)]).join(' '));
    texts.push('', 'the'); // the empty text is [CLS] [SEP]
    const batch = await enc.encodeText(texts.map(asHistory));
    for (let i = 0; i < texts.length; i++) {
      const alone = await enc.encodeText([asHistory(texts[i] as string)]);
      expect(maxDiff(batch.subarray(i * H, (i + 1) * H), alone)).toBeLessThan(1e-6);
      const wanted = expectedEmbedding(model, loadTokenizer(model.dir).encode(texts[i] as string).ids);
      expect(maxDiff(alone, wanted)).toBeLessThan(1e-5);
    }
    // The same text, twice in one batch and in another call, gives the same vector.
    const twice = await enc.encodeText([asHistory(texts[5] as string), asHistory(texts[9] as string), asHistory(texts[5] as string)]);
    expect(Array.from(twice.subarray(0, H))).toEqual(Array.from(twice.subarray(2 * H, 3 * H)));
    expect(maxDiff(twice.subarray(0, H), batch.subarray(5 * H, 6 * H))).toBeLessThan(1e-6);
    await enc.close();

    // Small groups (2 rows, ≤ 24 padded tokens per run) give the same rows too.
    const small = await openHistoryEncoder(`onnx-text:${model.dir}`, { ep: 'cpu', batchSize: 2, maxBatchTokens: 24 });
    expect(maxDiff(await small.encodeText(texts.map(asHistory)), batch)).toBeLessThan(1e-6);
    await small.close();
  });

  it("truncates to the model's max length, as the tokenizer file says", async () => {
    const { enc, model } = await open({ maxLength: 6 });
    expect(enc.historyTokens).toBe(4); // 6 less [CLS] and [SEP]
    const long = await enc.encodeText([asHistory('open the door go to kitchen')]);
    expect(enc.stats.truncated).toBe(1);
    expect(maxDiff(long, expectedEmbedding(model, ids('[CLS] open the door go [SEP]')))).toBeLessThan(1e-5);
    expect(maxDiff(long, await enc.encodeText([asHistory('open the door go')])))
      .toBeLessThan(1e-6);
    await enc.close();
  });

  it('uses a pooled sentence_embedding output as it is, and the pooling of a sentence-transformers config', async () => {
    for (const options of [{ output: 'pooled' }, { pooling: 'cls' }, { pooling: 'lasttoken', positionIds: true }, { pooling: 'max' }] as TinyModelOptions[]) {
      const { enc, model } = await open(options);
      const text = 'you see a thermometer, boil water';
      const got = await enc.encodeText([asHistory(text), asHistory('no')]);
      expect(maxDiff(got.subarray(0, H), expectedEmbedding(model, loadTokenizer(model.dir).encode(text).ids))).toBeLessThan(1e-5);
      const card = await enc.describe();
      expect(card.onnx?.pooling).toBe(options.output === 'pooled' ? 'model' : options.pooling);
      expect(card.onnx?.output).toBe(options.output === 'pooled' ? 'sentence_embedding' : 'last_hidden_state');
      await enc.close();
    }
  });

  it('reads a float16 output', async () => {
    const { enc, model } = await open({ float16: true });
    const text = 'open the door. you see a kitchen';
    // Half precision keeps ~3 significant digits of each hidden value.
    expect(maxDiff(await enc.encodeText([asHistory(text)]), expectedEmbedding(model, loadTokenizer(model.dir).encode(text).ids))).toBeLessThan(2e-3);
    await enc.close();
  });

  it('describes itself for the model card: files with their sha256, tokenizer, pooling, provider', async () => {
    const { enc, model } = await open({ tokenTypeIds: true, pooling: 'mean' });
    const card = await enc.describe();
    const sha = (f: string): string => createHash('sha256').update(readFileSync(join(model.dir, f))).digest('hex');
    expect(card.files.map((f) => f.path)).toEqual(['model.onnx', 'tokenizer.json', join('1_Pooling', 'config.json')]);
    for (const f of card.files) expect(f.sha256).toBe(sha(f.path));
    expect(card).toMatchObject({
      name: 'onnx-text',
      spec: `onnx-text:${model.dir}`,
      textDim: H,
      dim: H + STRUCTURED_DIM,
      historyTokens: 510,
      onnx: {
        model: 'model.onnx',
        inputs: ['input_ids', 'attention_mask', 'token_type_ids'],
        output: 'last_hidden_state',
        pooling: 'mean',
        tokenizer: { type: 'WordPiece', maxLength: 512, maxLengthSource: 'default', truncationSide: 'right', specialTokens: 2 },
        provider: 'cpu',
      },
    });
    await enc.close();
  });

  it("'auto' lands on a provider that runs and gives the cpu vectors", async () => {
    const model = writeTinyModel(tempDir(), { tokenTypeIds: true });
    const auto = await openHistoryEncoder(`onnx-text:${model.dir}`);
    const card = await auto.describe();
    expect(card.onnx?.attempts.at(-1)).toEqual({ provider: auto.provider, ok: true });
    console.log(`onnx-text auto → ${auto.provider}; ${card.onnx?.attempts.map((a) => `${a.provider}: ${a.ok ? 'ok' : a.error}`).join('; ')}`);
    const text = 'open the door. you see a kitchen';
    expect(maxDiff(await auto.encodeText([asHistory(text)]), expectedEmbedding(model, loadTokenizer(model.dir).encode(text).ids))).toBeLessThan(1e-5);
    await auto.close();
  });
});

describe('hash-1024 behind the same interface', () => {
  it('gives exactly encodeHashHistory rows', async () => {
    const enc = await openHistoryEncoder('hash-1024');
    expect(enc.dim).toBe(HASH_DIM + STRUCTURED_DIM);
    const history = serialiseHistory('Boil water', [
      { action: 'open door', observation: 'The door is open.' },
      { action: 'go to kitchen', observation: 'You see a stove.' },
    ]);
    const structured: StructuredInput = { t: 2, expectedSteps: 8, previousSeverity: 0, previousSwitched: false };
    const direct = new Float32Array(HASH_DIM + STRUCTURED_DIM);
    encodeHashHistory(history, structured, direct);
    expect(Array.from(await enc.encode([{ history, structured }]))).toEqual(Array.from(direct));
    expect(Array.from(await enc.encodeText([history]))).toEqual(Array.from(direct.subarray(0, HASH_DIM)));
    expect((await enc.describe()).files).toEqual([]);
  });
});

describe('clear errors', () => {
  it('for specs', () => {
    expect(() => parseEncoderSpec('bert')).toThrow('unknown history encoder "bert" (expected hash-1024 or onnx-text:DIR)');
    expect(() => parseEncoderSpec('onnx-text:')).toThrow(/names no folder/);
    expect(() => parseEncoderSpec('onnx-text')).toThrow(/names no folder/);
    expect(parseEncoderSpec('onnx-text:rel/dir')).toEqual({ kind: 'onnx-text', dir: join(process.cwd(), 'rel/dir') });
  });

  it('for a missing folder, model or tokenizer', async () => {
    const dir = tempDir();
    await expect(openHistoryEncoder(`onnx-text:${join(dir, 'nope')}`)).rejects.toThrow(`onnx-text: ${join(dir, 'nope')}: no such folder`);
    await expect(openHistoryEncoder(`onnx-text:${dir}`)).rejects.toThrow(`onnx-text: ${dir}: no model.onnx (looked for ${join(dir, 'model.onnx')}, ${join(dir, 'onnx', 'model.onnx')})`);
    const model = writeTinyModel(tempDir());
    writeFileSync(join(model.dir, 'tokenizer.json'), '');
    await expect(openHistoryEncoder(`onnx-text:${model.dir}`)).rejects.toThrow(`${join(model.dir, 'tokenizer.json')}: not JSON`);
    const other = tempDir();
    mkdirSync(join(other, 'onnx'));
    writeFileSync(join(other, 'onnx', 'model.onnx'), readFileSync(join(model.dir, 'model.onnx')));
    await expect(openHistoryEncoder(`onnx-text:${other}`)).rejects.toThrow(`${join(other, 'tokenizer.json')}: missing`);
    writeFileSync(join(other, 'tokenizer.json'), JSON.stringify({ ...tinyTokenizerJson(), model: { type: 'Mystery' } }));
    await expect(openHistoryEncoder(`onnx-text:${other}`)).rejects.toThrow(/tokenizer\.json: Unknown TokenizerModel type: Mystery/);
    await expect(openHistoryEncoder(`onnx-text:${other}`)).rejects.toThrow(EncoderError);
  });

  it('for a model file ONNX Runtime cannot load, and for models without the inputs or output it needs', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tinyTokenizerJson()));
    const modelPath = join(dir, 'model.onnx');
    const attempt = (): Promise<HistoryEncoder> => openHistoryEncoder(`onnx-text:${dir}`, { ep: 'cpu' });

    writeFileSync(modelPath, 'not a model');
    await expect(attempt()).rejects.toThrow(`${modelPath}: ONNX Runtime cannot load it (cpu: `);

    const bt = [{ dim_param: 'batch' }, { dim_param: 'sequence' }];
    const E = { name: 'E', dims: [TINY_WORDS.length, H], data_type: DataType.FLOAT, raw_data: new Uint8Array(TINY_WORDS.length * H * 4) };
    const gather: NodeMsg = { name: 'g', op_type: 'Gather', input: ['E', 'input_ids'], output: ['out'] };
    const out3 = info('out', DataType.FLOAT, [...bt, { dim_value: H }]);
    writeFileSync(modelPath, onnxBytes([gather], [E], [info('input_ids', DataType.INT64, bt)], [out3]));
    await expect(attempt()).rejects.toThrow(`${modelPath}: the model has no attention_mask input (inputs: input_ids)`);

    const withMask = [info('input_ids', DataType.INT64, bt), info('attention_mask', DataType.INT64, bt)];
    writeFileSync(modelPath, onnxBytes([gather], [E], [...withMask, info('past_key_values.0.key', DataType.FLOAT, bt)], [out3]));
    await expect(attempt()).rejects.toThrow(`${modelPath}: unsupported model inputs past_key_values.0.key`);

    const gatherMask: NodeMsg = { name: 'g', op_type: 'Gather', input: ['E', 'attention_mask'], output: ['out'] };
    writeFileSync(modelPath, onnxBytes([gatherMask], [E], [info('input_ids', DataType.FLOAT, bt), withMask[1]!], [out3]));
    await expect(attempt()).rejects.toThrow(`${modelPath}: input input_ids is float32 [batch, sequence], expected int64 or int32`);

    const twice: NodeMsg = { name: 'i', op_type: 'Identity', input: ['out'], output: ['out_b'] };
    writeFileSync(modelPath, onnxBytes([gather, twice], [E], withMask, [out3, info('out_b', DataType.FLOAT, [...bt, { dim_value: H }])]));
    await expect(attempt()).rejects.toThrow(`${modelPath}: no embedding output: expected sentence_embedding [batch, hidden] or last_hidden_state / token_embeddings`);

    // A single unnamed rank-3 output is taken as token embeddings and pooled (all-zero table → zero vector stays finite).
    writeFileSync(modelPath, onnxBytes([gather], [E], withMask, [out3]));
    const enc = await attempt();
    expect((await enc.describe()).onnx?.output).toBe('out');
    expect(Array.from(await enc.encodeText([asHistory('open')]))).toEqual(new Array(H).fill(0));
    await enc.close();
  });

  it('for a pooling config it cannot follow', async () => {
    const model = writeTinyModel(tempDir());
    mkdirSync(join(model.dir, '1_Pooling'));
    writeFileSync(join(model.dir, '1_Pooling', 'config.json'), JSON.stringify({ pooling_mode_mean_tokens: true, pooling_mode_max_tokens: true }));
    await expect(openHistoryEncoder(`onnx-text:${model.dir}`, { ep: 'cpu' })).rejects.toThrow(
      `${join(model.dir, '1_Pooling', 'config.json')}: pooling mean + max is not supported`,
    );
  });
});
