import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_WORDS, searchMatches, searchWords } from './searchWords.ts';

describe('search words', () => {
  it('takes the words of what was typed, not its punctuation or operators', () => {
    expect(searchWords('  NameError: "x" OR (y*)')).toEqual(['NameError', 'x', 'OR', 'y']);
    expect(searchWords('…')).toEqual([]);
    expect(searchWords(Array.from({ length: 30 }, (_, i) => `w${i}`).join(' '))).toHaveLength(MAX_SEARCH_WORDS);
  });

  it('matches words as prefixes of words, in any case, never inside a word', () => {
    const text = 'NameError in renamed; nameerror again';
    const found = searchMatches(text, ['nameerr']).map((r) => text.slice(r.start, r.end));
    expect(found).toEqual(['NameErr', 'nameerr']);
    expect(searchMatches('testing test', ['test', 'testing']).map((r) => r.end - r.start)).toEqual([7, 4]);
    expect(searchMatches('Überprüfung', ['über'])).toEqual([{ start: 0, end: 4 }]);
    expect(searchMatches('anything', [])).toEqual([]);
    // As FTS5 tokenises: an underscore separates words.
    expect(searchMatches('some_error', ['error'])).toEqual([{ start: 5, end: 10 }]);
  });
});
