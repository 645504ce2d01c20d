/** The store's search pieces that need no server: the SQL condition per word and the snippet around a hit. */
import { describe, expect, it } from 'vitest';
import { snippetOf, textCondition } from './storeSearch.ts';

describe('store search', () => {
  it('needs every typed word to start a word, lower-cased on both sides, and quotes nothing the user typed as SQL', () => {
    expect(textCondition('  ')).toBeNull();
    expect(textCondition('-- ; )')).toBeNull();
    const sql = textCondition("NameError o'brien") as string;
    expect(sql.match(/match\(/g)).toHaveLength(3); // nameerror, o, brien: punctuation separates words
    expect(sql).toContain('nameerror');
    expect(sql).not.toContain("o'brien");
    expect(sql).toContain('lowerUTF8(');
  });

  it('cuts about sixteen words around the first hit, marks every hit in them, and says where it cut', () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
    const text = [...words.slice(0, 20), 'Traceback', ...words.slice(20), 'traceback'].join(' ');
    const pieces = snippetOf(text, ['traceback']);
    expect(pieces[0]?.text.startsWith('…w16')).toBe(true);
    expect(pieces.filter((p) => p.hit).map((p) => p.text)).toEqual(['Traceback']);
    expect(pieces[pieces.length - 1]?.text.endsWith('…')).toBe(true);
    const shown = pieces.map((p) => p.text).join('');
    expect(shown.split(/\s+/).filter((w) => w !== '…' && w !== '').length).toBeLessThanOrEqual(17);
  });

  it('marks a word after an underscore, as FTS5 tokenises it, and nothing inside a word', () => {
    expect(snippetOf('raise some_error here', ['error']).filter((p) => p.hit).map((p) => p.text)).toEqual(['error']);
    expect(snippetOf('terrors only', ['error'])).toEqual([]);
    expect(snippetOf('line one\n\n\tError: bad', ['error'])).toEqual([
      { text: 'line one ', hit: false }, { text: 'Error', hit: true }, { text: ': bad', hit: false },
    ]);
  });
});
