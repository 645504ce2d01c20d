import { describe, expect, it } from 'vitest';
import {
  HASH_DIM,
  HASH_HISTORY_DIM,
  addSegment,
  countsToFeatures,
  countsToSparse,
  encodeHashHistory,
  encodeHashText,
} from './hashEncoder.ts';
import { serialiseHistory } from './historyText.ts';
import { STRUCTURED_FEATURES } from './weights.ts';

const norm = (v: Float32Array, from = 0, to = v.length): number => {
  let s = 0;
  for (let i = from; i < to; i++) s += (v[i] as number) ** 2;
  return Math.sqrt(s);
};
const encode = (text: string): Float32Array => {
  const out = new Float32Array(HASH_DIM);
  encodeHashText([text], out, 0);
  return out;
};
const counts = (text: string): Int32Array => {
  const c = new Int32Array(HASH_DIM);
  addSegment(text, c);
  return c;
};
const nonZero = (c: Int32Array): number[] => Array.from(c.keys()).filter((j) => c[j] !== 0);

describe('hash-1024', () => {
  it('is deterministic, lower-cases, and has unit L2 norm', () => {
    const text = 'THOUGHT: I need the thermometer.\n```text\npick up thermometer\n```\nYou move the thermometer to the inventory.';
    const a = encode(text);
    expect(Array.from(encode(text))).toEqual(Array.from(a));
    expect(Array.from(encode(text.toUpperCase()))).toEqual(Array.from(a));
    expect(norm(a)).toBeCloseTo(1, 5);
    expect(Array.from(encode(''))).toEqual(new Array(HASH_DIM).fill(0));
    // Pinned values: the encoder is part of a trained estimator's contract and must never drift.
    const c = counts('pick up thermometer');
    expect(nonZero(c).map((j) => [j, c[j]])).toEqual([[274, -1], [399, -1], [540, -1], [754, 1], [988, 1]]);
  });

  it('counts unigrams and bigrams (order matters only through bigrams)', () => {
    const ab = counts('alpha beta');
    expect(nonZero(ab)).toHaveLength(3); // alpha, beta, "alpha beta" (no collision among these three)
    expect(nonZero(ab).every((j) => Math.abs(ab[j] as number) === 1)).toBe(true);
    const ba = counts('beta alpha');
    const uni = new Int32Array(HASH_DIM);
    addSegment('alpha', uni);
    addSegment('beta', uni);
    // Subtracting the unigrams leaves exactly one bigram bucket, and it differs between the two orders.
    const bigramOf = (c: Int32Array): number[] => nonZero(c.map((v, j) => v - (uni[j] as number)));
    expect(bigramOf(ab)).toHaveLength(1);
    expect(bigramOf(ba)).toHaveLength(1);
    expect(bigramOf(ab)).not.toEqual(bigramOf(ba));
    // Punctuation separates tokens; repeats count as term frequency.
    const twice = counts('alpha, beta; alpha beta');
    expect(nonZero(twice).map((j) => Math.abs(twice[j] as number)).sort()).toEqual([1, 2, 2, 2].sort());
    // A segment removed with sign −1 leaves nothing behind.
    addSegment('alpha beta', twice, -1);
    addSegment('alpha beta', twice, -1);
    expect(nonZero(twice)).toHaveLength(1); // the cross bigram "beta alpha"
  });

  it('applies log(1 + tf) before normalising, and the sparse form equals the dense one', () => {
    const c = counts('word word word other');
    const dense = new Float32Array(HASH_DIM);
    countsToFeatures(c, dense, 0);
    const mags = nonZero(c).map((j) => Math.abs(dense[j] as number)).sort((x, y) => x - y);
    // tf 3 vs tf 1: log 4 / log 2 = 2.
    expect((mags[mags.length - 1] as number) / (mags[0] as number)).toBeCloseTo(2, 5);
    const idx = new Uint16Array(HASH_DIM);
    const val = new Float32Array(HASH_DIM);
    const nnz = countsToSparse(c, idx, val, 0);
    expect(nnz).toBe(nonZero(c).length);
    for (let k = 0; k < nnz; k++) expect(val[k]).toBe(dense[idx[k] as number]);
  });

  it('appends the structured features after the 1024 text features', () => {
    expect(HASH_HISTORY_DIM).toBe(1024 + STRUCTURED_FEATURES.length);
    const h = serialiseHistory('Boil water', [{ action: 'go to kitchen', observation: 'You are in the kitchen.' }]);
    const out = new Float32Array(HASH_HISTORY_DIM + 2);
    encodeHashHistory(h, { t: 1, expectedSteps: 27, previousSeverity: 3, previousSwitched: false }, out, 2);
    expect(norm(out, 2, 2 + HASH_DIM)).toBeCloseTo(1, 5);
    expect(Array.from(out.subarray(2 + HASH_DIM))).toEqual([Math.fround(2 / 27), 1, 0, Math.fround(Math.log(2))]);
  });

  it('handles non-ASCII words', () => {
    const c = counts('Straße STRASSE café Café 温度计');
    expect(Array.from(counts('straße strasse CAFÉ café 温度计'))).toEqual(Array.from(c));
  });
});
