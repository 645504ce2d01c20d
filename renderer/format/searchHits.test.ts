import { describe, expect, it } from 'vitest';
import { findHits, hasHit, splitHits } from './searchHits.ts';

describe('search hits', () => {
  it('finds every case-insensitive occurrence', () => {
    expect(findHits('Error: error ERROR', 'error')).toEqual([
      [0, 5],
      [7, 12],
      [13, 18],
    ]);
  });
  it('finds nothing for a blank term', () => {
    expect(findHits('abc', '  ')).toEqual([]);
    expect(findHits('abc', undefined)).toEqual([]);
    expect(hasHit('abc', '')).toBe(false);
  });
  it('trims the term and does not overlap hits', () => {
    expect(findHits('aaaa', ' aa ')).toEqual([
      [0, 2],
      [2, 4],
    ]);
  });
  it('caps the number of hits', () => {
    expect(findHits('a'.repeat(10_000), 'a', 500)).toHaveLength(500);
  });
  it('splits text into pieces that join back to it', () => {
    const pieces = splitHits('The pot is on the stove', 'the');
    expect(pieces).toEqual([
      { text: 'The', hit: true },
      { text: ' pot is on ', hit: false },
      { text: 'the', hit: true },
      { text: ' stove', hit: false },
    ]);
    expect(pieces.map((p) => p.text).join('')).toBe('The pot is on the stove');
  });
  it('keeps offsets right when lower-casing changes lengths', () => {
    const text = 'İstanbul error';
    const [hit] = findHits(text, 'error');
    expect(hit && text.slice(hit[0], hit[1])).toBe('error');
  });
});
