/**
 * The tokenizer (the kept library @huggingface/tokenizers plus our truncation, tokenizer.ts) against small
 * hand-made tokenizer.json files whose ids are worked out by hand. The BERT ids
 * [PAD]=0 [UNK]=100 [CLS]=101 [SEP]=102 [MASK]=103 "!"=999 ","=1010 "."=1012 "the"=1996 "world"=2088
 * "hello"=7592 are bert-base-uncased's; the other entries are ours.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../testing/tmp.ts';
import { TokenizerError, loadTokenizer } from './tokenizer.ts';

const tempDir = useTempDir();

function write(files: Record<string, unknown>): string {
  const dir = tempDir();
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), JSON.stringify(content));
  }
  return dir;
}

const special = (id: number, content: string) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });

export const BERT_VOCAB = {
  '[PAD]': 0,
  '[UNK]': 100,
  '[CLS]': 101,
  '[SEP]': 102,
  '[MASK]': 103,
  '!': 999,
  ',': 1010,
  '.': 1012,
  the: 1996,
  world: 2088,
  hello: 7592,
  un: 5,
  '##aff': 6,
  '##able': 7,
  ca: 8,
  '##fe': 9,
  中: 10,
  文: 11,
};

function bertTokenizer(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special(0, '[PAD]'), special(100, '[UNK]'), special(101, '[CLS]'), special(102, '[SEP]'), special(103, '[MASK]')],
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [101], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [102], tokens: ['[SEP]'] } },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: BERT_VOCAB },
    ...extra,
  };
}

describe('WordPiece (BERT-style) tokenizer.json', () => {
  it('lower-cases, strips accents, splits punctuation, matches longest pieces and adds [CLS] … [SEP]', () => {
    const tok = loadTokenizer(write({ 'tokenizer.json': bertTokenizer() }));
    expect(tok.modelType).toBe('WordPiece');
    // "hello , world ! un ##aff ##able ca ##fe the" after BertNormalizer (é → e, \t → space).
    const e = tok.encode('Hello, WORLD! Unaffable Café\tthe');
    expect(e.ids).toEqual([101, 7592, 1010, 2088, 999, 5, 6, 7, 8, 9, 1996, 102]);
    expect(e.typeIds).toEqual(new Array(12).fill(0));
    expect(e.truncated).toBe(false);
    expect(tok.maxLength).toBe(512);
    expect(tok.maxLengthSource).toBe('default');
    expect(tok.tokenId('[CLS]')).toBe(101);
  });

  it('makes a word with any unmatched part one [UNK], as a whole', () => {
    const tok = loadTokenizer(write({ 'tokenizer.json': bertTokenizer() }));
    // "unx": "un" matches, "##x" does not → the whole word is [UNK], not "un" + [UNK].
    expect(tok.encode('unx xyz hello').ids).toEqual([101, 100, 100, 7592, 102]);
    expect(tok.encode('a'.repeat(101)).ids).toEqual([101, 100, 102]);
  });

  it('cuts added tokens out before normalising; normalised look-alikes are plain text', () => {
    const tok = loadTokenizer(write({ 'tokenizer.json': bertTokenizer() }));
    expect(tok.encode('the [MASK].').ids).toEqual([101, 1996, 103, 1012, 102]);
    // "[mask]" is not the added token "[MASK]": "[", "mask", "]" are three unknown words.
    expect(tok.encode('the [mask]').ids).toEqual([101, 1996, 100, 100, 100, 102]);
  });

  it('drops control characters, pads CJK characters into words of their own', () => {
    const tok = loadTokenizer(write({ 'tokenizer.json': bertTokenizer() }));
    expect(tok.encode('hel\u0000lo\u200b 中文').ids).toEqual([101, 7592, 10, 11, 102]);
  });

  it('BertProcessing gives the same ids as the template', () => {
    const tok = loadTokenizer(write({ 'tokenizer.json': bertTokenizer({ post_processor: { type: 'BertProcessing', sep: ['[SEP]', 102], cls: ['[CLS]', 101] } }) }));
    expect(tok.encode('hello, world!').ids).toEqual([101, 7592, 1010, 2088, 999, 102]);
    expect(tok.specialTokens).toBe(2);
  });

  it('truncates to the max length, special tokens included, from the configured source', () => {
    const trunc = { truncation: { max_length: 5, strategy: 'LongestFirst', stride: 0, direction: 'Right' } };
    let tok = loadTokenizer(write({ 'tokenizer.json': bertTokenizer(trunc) }));
    expect(tok.maxLength).toBe(5);
    expect(tok.encode('hello, world! the').ids).toEqual([101, 7592, 1010, 2088, 102]);
    expect(tok.encode('hello, world! the').truncated).toBe(true);
    expect(tok.encode('hello, world').truncated).toBe(false);

    tok = loadTokenizer(write({ 'tokenizer.json': bertTokenizer(trunc), 'sentence_bert_config.json': { max_seq_length: 4, do_lower_case: false } }));
    expect(tok.maxLengthSource).toBe('sentence_bert_config.json max_seq_length');
    expect(tok.encode('hello, world! the').ids).toEqual([101, 7592, 1010, 102]);

    tok = loadTokenizer(write({ 'tokenizer.json': bertTokenizer(), 'tokenizer_config.json': { model_max_length: 6 } }));
    expect(tok.maxLengthSource).toBe('tokenizer_config.json model_max_length');
    expect(tok.encode('hello, world! the').ids).toEqual([101, 7592, 1010, 2088, 999, 102]);

    tok = loadTokenizer(write({ 'tokenizer.json': bertTokenizer(), 'tokenizer_config.json': { model_max_length: 1e30 } }));
    expect(tok.maxLength).toBe(512); // the library's "no limit" sentinel

    tok = loadTokenizer(write({ 'tokenizer.json': bertTokenizer({ truncation: { max_length: 4, direction: 'Left' } }) }));
    expect(tok.truncationSide).toBe('left');
    expect(tok.encode('hello, world! the').ids).toEqual([101, 999, 1996, 102]);
  });
});

// ---------------------------------------------------------------- byte-level BPE

const G = 'Ġ'; // the byte-level space, GPT-2's byte 0x20
const NL = 'Ċ'; // byte 0x0a

describe('byte-level BPE (GPT-2 / Qwen style) tokenizer.json', () => {
  const vocab: Record<string, number> = {};
  for (const t of ['H', 'e', 'l', 'o', G, 'w', 'r', 'd', 'Ã', '©', '!', 'lo', 'He', 'll', 'Hel', `${G}w`, 'or', `${G}wor`, 'Ã©']) vocab[t] = Object.keys(vocab).length;
  const EOT = 50;
  const gpt2 = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [{ ...special(EOT, '<|endoftext|>') }],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      vocab: { ...vocab, '<|endoftext|>': EOT },
      merges: ['l o', 'H e', 'l l', 'He l', `${G} w`, 'o r', `${G}w or`, 'Ã ©'],
    },
    ...extra,
  });
  const id = (t: string): number => vocab[t] as number;

  it('merges by rank, lowest first: "Hello world" → Hel lo Ġwor l d', () => {
    // Hello: (l,o) rank 0 first → H e l lo; (H,e) rank 1 → He l lo; (l,l) rank 2 is gone (l is next to lo now);
    // (He,l) rank 3 → Hel lo. " world" → Ġworld: (Ġ,w) 4 → Ġw o r l d; (o,r) 5 → Ġw or l d; (Ġw,or) 6 → Ġwor l d.
    const tok = loadTokenizer(write({ 'tokenizer.json': gpt2() }));
    expect(tok.modelType).toBe('BPE');
    expect(tok.encode('Hello world').ids).toEqual([id('Hel'), id('lo'), id(`${G}wor`), id('l'), id('d')]);
    expect(tok.encode('é!').ids).toEqual([id('Ã©'), id('!')]);
    expect(tok.encode('Hello<|endoftext|>').ids).toEqual([id('Hel'), id('lo'), EOT]);
  });

  it('appends <|endoftext|> through a template (Qwen3-Embedding style) and truncates on the left', () => {
    const template = {
      type: 'TemplateProcessing',
      single: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '<|endoftext|>', type_id: 0 } }],
      special_tokens: { '<|endoftext|>': { id: '<|endoftext|>', ids: [EOT], tokens: ['<|endoftext|>'] } },
    };
    let tok = loadTokenizer(write({ 'tokenizer.json': gpt2({ post_processor: { type: 'Sequence', processors: [{ type: 'ByteLevel' }, template] } }) }));
    expect(tok.encode('Hello world').ids).toEqual([id('Hel'), id('lo'), id(`${G}wor`), id('l'), id('d'), EOT]);
    tok = loadTokenizer(write({ 'tokenizer.json': gpt2({ post_processor: template, truncation: { max_length: 4, direction: 'Left' } }) }));
    expect(tok.encode('Hello world').ids).toEqual([id(`${G}wor`), id('l'), id('d'), EOT]);
  });

  it("splits with Qwen2's regex (case-insensitive contractions, single digits) and NFC", () => {
    const qvocab: Record<string, number> = {};
    for (const t of ['I', 'T', "'", 'S', G, '0', '2', '4', '!', NL, 'Ã', '©', 'IT', "'S", `!${NL}`, 'Ã©']) qvocab[t] = Object.keys(qvocab).length;
    const qwen = {
      version: '1.0',
      added_tokens: [special(100, '<|endoftext|>')],
      normalizer: { type: 'NFC' },
      pre_tokenizer: {
        type: 'Sequence',
        pretokenizers: [
          {
            type: 'Split',
            pattern: { Regex: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+" },
            behavior: 'Isolated',
            invert: false,
          },
          { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
        ],
      },
      post_processor: null,
      model: {
        type: 'BPE',
        unk_token: null,
        vocab: qvocab,
        merges: [
          ['I', 'T'],
          ["'", 'S'],
          ['!', NL],
          ['Ã', '©'],
        ],
      },
    };
    const tok = loadTokenizer(write({ 'tokenizer.json': qwen }));
    const q = (t: string): number => qvocab[t] as number;
    // Pieces: "IT" "'S" " " "2" "0" "2" "4" "!\n" — "'S" only because (?i:…) folds case.
    expect(tok.encode("IT'S 2024!\n").ids).toEqual([q('IT'), q("'S"), q(G), q('2'), q('0'), q('2'), q('4'), q(`!${NL}`)]);
    // e + combining acute → NFC é → bytes C3 A9.
    expect(tok.encode('e\u0301').ids).toEqual([q('Ã©')]);
    expect(tok.specialTokens).toBe(0);
  });
});

describe('token counts and heads (the mtrouter history layout counts with these)', () => {
  it('counts tokens without special tokens or truncation, and decodes the first n back to text', () => {
    const tok = loadTokenizer(write({ 'tokenizer.json': bertTokenizer({ truncation: { max_length: 4 } }) }));
    expect(tok.countTokens('hello, world! the')).toBe(5);
    expect(tok.countTokens('')).toBe(0);
    // WordPiece's decoder joins "##" pieces and cleans the space before punctuation.
    expect(tok.headTokens('hello, world! unaffable', 3)).toBe('hello, world');
    expect(tok.headTokens('hello, world! unaffable', 8)).toBe('hello, world! unaffable');
    expect(tok.headTokens('Unaffable cafe', 4)).toBe('unaffable ca');
    expect(tok.headTokens('hello', 0)).toBe('');
  });
});

describe('Unigram (SentencePiece) tokenizer.json, which the hand-written tokenizer refused', () => {
  it('loads and picks the most likely segmentation after Metaspace', () => {
    const tok = loadTokenizer(
      write({
        'tokenizer.json': {
          version: '1.0',
          added_tokens: [special(0, '<unk>'), special(1, '</s>')],
          normalizer: null,
          pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
          post_processor: {
            type: 'TemplateProcessing',
            single: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
            special_tokens: { '</s>': { id: '</s>', ids: [1], tokens: ['</s>'] } },
          },
          decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
          model: {
            type: 'Unigram',
            unk_id: 0,
            vocab: [['<unk>', 0], ['</s>', 0], ['▁hello', -2], ['▁world', -2], ['▁', -3], ['h', -5], ['e', -5], ['l', -5], ['o', -5], ['▁hel', -4], ['lo', -4]],
          },
        },
      }),
    );
    expect(tok.modelType).toBe('Unigram');
    // "▁hello" (−2) beats "▁hel" + "lo" (−8) and any character split.
    expect(tok.encode('hello world').ids).toEqual([2, 3, 1]);
    expect(tok.specialTokens).toBe(1);
  });
});

describe('refusals', () => {
  it('names the file and the part the library cannot build', () => {
    const t = (extra: Record<string, unknown>): (() => unknown) => () => loadTokenizer(write({ 'tokenizer.json': bertTokenizer(extra) }));
    expect(t({ post_processor: { type: 'Fancy' } })).toThrow(TokenizerError);
    expect(t({ post_processor: { type: 'Fancy' } })).toThrow(/tokenizer\.json: Unknown PostProcessor type: Fancy/);
    expect(t({ model: { type: 'Mystery' } })).toThrow(/tokenizer\.json: Unknown TokenizerModel type: Mystery/);
    const template = { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }], special_tokens: {} };
    expect(t({ post_processor: template })).toThrow(/the single-sequence template has no sequence/);
    expect(t({ truncation: { max_length: 2 } })).toThrow(/max length 2 \(tokenizer\.json truncation\.max_length\) leaves no room for text/);
  });

  it('says which file is missing or broken', () => {
    const empty = tempDir();
    expect(() => loadTokenizer(empty)).toThrow(TokenizerError);
    expect(() => loadTokenizer(empty)).toThrow(`${join(empty, 'tokenizer.json')}: missing`);
    const broken = tempDir();
    writeFileSync(join(broken, 'tokenizer.json'), '{"model": ');
    expect(() => loadTokenizer(broken)).toThrow(new RegExp(`${join(broken, 'tokenizer.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not JSON`));
  });
});
