/**
 * The two tokenizer models sentence-embedding checkpoints use (the `model` of a `tokenizer.json`):
 *
 *   WordPiece  (BERT, MiniLM, BGE, E5 …) greedy longest match from the start of each word, continuation pieces
 *              prefixed `##`; a word with any unmatched part, or longer than max_input_chars_per_word
 *              characters, becomes the unknown token as a whole (as the library does).
 *   BPE        (GPT-2, RoBERTa, Qwen …) the word's characters, then repeatedly the adjacent pair with the lowest
 *              merge rank is merged (leftmost first among equal ranks) until no ranked pair is left — the
 *              library's priority-queue algorithm, O(n log n) per word. Options: unk_token + fuse_unk,
 *              byte_fallback (<0xXX> tokens), continuing_subword_prefix, end_of_word_suffix, ignore_merges.
 *
 * Unigram (SentencePiece: T5, XLM-R, multilingual-e5) is not implemented and is refused by name.
 */
import { z } from 'zod';
import { TokenizerError } from './tokenizerText.ts';

export interface TokenizerModel {
  readonly type: 'WordPiece' | 'BPE';
  /** Appends the ids of one pre-tokenized word. */
  tokenize(word: string, out: number[]): void;
  /** The id of a vocabulary entry, if present. */
  id(token: string): number | undefined;
  readonly vocabSize: number;
}

const vocabSchema = z.record(z.string(), z.number().int().nonnegative());

function vocabMap(vocab: Record<string, number>): Map<string, number> {
  return new Map(Object.entries(vocab));
}

// ---------------------------------------------------------------- WordPiece

const wordPieceSchema = z.looseObject({
  vocab: vocabSchema,
  unk_token: z.string().default('[UNK]'),
  continuing_subword_prefix: z.string().default('##'),
  max_input_chars_per_word: z.number().int().positive().default(100),
});

export function wordPieceModel(spec: unknown, what: string): TokenizerModel {
  const r = wordPieceSchema.safeParse(spec);
  if (!r.success) throw new TokenizerError(`${what}: ${r.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  const o = r.data;
  const vocab = vocabMap(o.vocab);
  const unk = vocab.get(o.unk_token);
  if (unk === undefined) throw new TokenizerError(`${what}: unk_token ${JSON.stringify(o.unk_token)} is not in the vocabulary`);
  return {
    type: 'WordPiece',
    vocabSize: vocab.size,
    id: (t) => vocab.get(t),
    tokenize(word, out) {
      const chars = Array.from(word);
      if (chars.length > o.max_input_chars_per_word) {
        out.push(unk);
        return;
      }
      const pieces: number[] = [];
      let start = 0;
      while (start < chars.length) {
        let end = chars.length;
        let found: number | undefined;
        while (start < end) {
          const sub = chars.slice(start, end).join('');
          found = vocab.get(start > 0 ? o.continuing_subword_prefix + sub : sub);
          if (found !== undefined) break;
          end--;
        }
        if (found === undefined) {
          out.push(unk);
          return;
        }
        pieces.push(found);
        start = end;
      }
      for (const p of pieces) out.push(p);
    },
  };
}

// ---------------------------------------------------------------- BPE

const bpeSchema = z.looseObject({
  vocab: vocabSchema,
  // "a b" (tokenizers < 0.20) or ["a", "b"] (newer files).
  merges: z.array(z.union([z.string(), z.tuple([z.string(), z.string()])])),
  unk_token: z.string().nullable().default(null),
  continuing_subword_prefix: z.string().nullable().default(null),
  end_of_word_suffix: z.string().nullable().default(null),
  fuse_unk: z.boolean().default(false),
  byte_fallback: z.boolean().default(false),
  ignore_merges: z.boolean().default(false),
  dropout: z.number().nullable().default(null),
});

/** A min-heap of pending merges ordered by (rank, position), as the library's BinaryHeap<Merge>. */
class MergeHeap {
  private rank: number[] = [];
  private pos: number[] = [];
  get size(): number {
    return this.rank.length;
  }
  private less(i: number, j: number): boolean {
    const a = this.rank[i] as number;
    const b = this.rank[j] as number;
    return a < b || (a === b && (this.pos[i] as number) < (this.pos[j] as number));
  }
  private swap(i: number, j: number): void {
    [this.rank[i], this.rank[j]] = [this.rank[j] as number, this.rank[i] as number];
    [this.pos[i], this.pos[j]] = [this.pos[j] as number, this.pos[i] as number];
  }
  push(rank: number, pos: number): void {
    this.rank.push(rank);
    this.pos.push(pos);
    let i = this.rank.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }
  /** Pops the smallest; returns its position (its rank is re-checked by the caller). */
  pop(): { rank: number; pos: number } {
    const top = { rank: this.rank[0] as number, pos: this.pos[0] as number };
    const lastRank = this.rank.pop() as number;
    const lastPos = this.pos.pop() as number;
    if (this.rank.length) {
      this.rank[0] = lastRank;
      this.pos[0] = lastPos;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.rank.length && this.less(l, m)) m = l;
        if (r < this.rank.length && this.less(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }
}

const CACHE_LIMIT = 20_000;

export function bpeModel(spec: unknown, what: string): TokenizerModel {
  const r = bpeSchema.safeParse(spec);
  if (!r.success) throw new TokenizerError(`${what}: ${r.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  const o = r.data;
  if (o.dropout !== null && o.dropout > 0) throw new TokenizerError(`${what}: BPE dropout ${o.dropout} is for training; an encoder must be deterministic`);
  const vocab = vocabMap(o.vocab);
  // (left id, right id) → rank and merged id; keyed by left·2^21 + right (ids < 2^21 ≈ 2 M, checked).
  const merges = new Map<number, { rank: number; id: number }>();
  const key = (a: number, b: number): number => a * 2097152 + b;
  o.merges.forEach((m, rank) => {
    let pair: [string, string];
    if (typeof m === 'string') {
      const parts = m.split(' ');
      if (parts.length !== 2) throw new TokenizerError(`${what}: merges[${rank}] ${JSON.stringify(m)} is not "left right"`);
      pair = parts as [string, string];
    } else pair = m;
    const a = vocab.get(pair[0]);
    const b = vocab.get(pair[1]);
    const id = vocab.get(pair[0] + pair[1]);
    if (a === undefined || b === undefined || id === undefined) {
      throw new TokenizerError(`${what}: merges[${rank}] ${JSON.stringify(pair)} uses a token missing from the vocabulary`);
    }
    if (a >= 2097152 || b >= 2097152) throw new TokenizerError(`${what}: vocabulary ids above 2^21 are not supported`);
    if (!merges.has(key(a, b))) merges.set(key(a, b), { rank, id });
  });
  const unk = o.unk_token === null ? undefined : vocab.get(o.unk_token);
  if (o.unk_token !== null && unk === undefined) throw new TokenizerError(`${what}: unk_token ${JSON.stringify(o.unk_token)} is not in the vocabulary`);
  const cache = new Map<string, number[]>();
  const utf8 = new TextEncoder();

  /** The initial symbols of a word: one per character, or its bytes / unk when the character is unknown. */
  const symbols = (word: string): number[] => {
    const chars = Array.from(word);
    const ids: number[] = [];
    let lastWasUnk = false;
    chars.forEach((ch, i) => {
      let s = ch;
      if (i > 0 && o.continuing_subword_prefix) s = o.continuing_subword_prefix + s;
      if (i === chars.length - 1 && o.end_of_word_suffix) s += o.end_of_word_suffix;
      const id = vocab.get(s);
      if (id !== undefined) {
        ids.push(id);
        lastWasUnk = false;
        return;
      }
      if (o.byte_fallback) {
        const bytes = Array.from(utf8.encode(ch), (b) => vocab.get(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`));
        if (bytes.every((b) => b !== undefined)) {
          ids.push(...(bytes as number[]));
          lastWasUnk = false;
          return;
        }
      }
      if (unk === undefined) return; // the library drops characters it cannot represent when there is no unk
      if (!(o.fuse_unk && lastWasUnk)) ids.push(unk);
      lastWasUnk = true;
    });
    return ids;
  };

  const merge = (ids: number[]): number[] => {
    const n = ids.length;
    if (n < 2) return ids;
    const sym = Int32Array.from(ids);
    const prev = new Int32Array(n);
    const next = new Int32Array(n);
    const alive = new Uint8Array(n).fill(1);
    for (let i = 0; i < n; i++) {
      prev[i] = i - 1;
      next[i] = i + 1 < n ? i + 1 : -1;
    }
    const heap = new MergeHeap();
    for (let i = 0; i + 1 < n; i++) {
      const m = merges.get(key(sym[i] as number, sym[i + 1] as number));
      if (m) heap.push(m.rank, i);
    }
    while (heap.size) {
      const top = heap.pop();
      const i = top.pos;
      const j = next[i] as number;
      if (!alive[i] || j < 0) continue;
      const m = merges.get(key(sym[i] as number, sym[j] as number));
      if (!m || m.rank !== top.rank) continue; // stale: a neighbour merged since this was queued
      sym[i] = m.id;
      alive[j] = 0;
      const after = next[j] as number;
      next[i] = after;
      if (after >= 0) prev[after] = i;
      const before = prev[i] as number;
      if (before >= 0) {
        const mb = merges.get(key(sym[before] as number, sym[i] as number));
        if (mb) heap.push(mb.rank, before);
      }
      if (after >= 0) {
        const ma = merges.get(key(sym[i] as number, sym[after] as number));
        if (ma) heap.push(ma.rank, i);
      }
    }
    const out: number[] = [];
    for (let i = 0; i >= 0; i = next[i] as number) out.push(sym[i] as number);
    return out;
  };

  return {
    type: 'BPE',
    vocabSize: vocab.size,
    id: (t) => vocab.get(t),
    tokenize(word, out) {
      let ids = cache.get(word);
      if (!ids) {
        const whole = o.ignore_merges ? vocab.get(word) : undefined;
        ids = whole !== undefined ? [whole] : merge(symbols(word));
        if (cache.size >= CACHE_LIMIT) cache.clear();
        cache.set(word, ids);
      }
      for (const id of ids) out.push(id);
    },
  };
}

export function buildModel(spec: unknown, what = 'model'): TokenizerModel {
  const type = (spec as { type?: unknown } | null)?.type;
  // Files from old tokenizers versions omit the model type; a `merges` list means BPE.
  const t = typeof type === 'string' ? type : spec && typeof spec === 'object' && 'merges' in spec ? 'BPE' : undefined;
  if (t === 'WordPiece') return wordPieceModel(spec, what);
  if (t === 'BPE') return bpeModel(spec, what);
  throw new TokenizerError(`${what} type ${JSON.stringify(t ?? null)} is not supported (supported: WordPiece, BPE)`);
}
