/**
 * What a full-text search looks for, in one place for the server's FTS5 query and the inspector's highlight:
 * the words of what was typed (letters, digits, underscores), each matched case-insensitively as the start
 * of a word, all of them required. Punctuation and FTS operators typed by the user are not syntax.
 */

/** More words than this add nothing a person would type and make the FTS query slow. */
export const MAX_SEARCH_WORDS = 20;

export function searchWords(text: string): string[] {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words.slice(0, MAX_SEARCH_WORDS);
}

/**
 * Where the words of a search start a word in `text`, as [start, end) ranges over the matched prefix,
 * in order and not overlapping. FTS5 also folds diacritics (`cafe` finds `café`); this does not, so the
 * inspector may mark a little less than the search found, never something it did not.
 */
export function searchMatches(text: string, words: readonly string[]): { start: number; end: number }[] {
  if (words.length === 0 || text === '') return [];
  // Longest first, so `test` and `testing` both typed mark the whole `testing`.
  const alternatives = [...new Set(words)].sort((a, b) => b.length - a.length).map((w) => w.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'));
  // `_` ends a word, as in FTS5's unicode61 tokenizer: `some_error` holds the word `error`.
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})`, 'giu');
  const out: { start: number; end: number }[] = [];
  for (const m of text.matchAll(pattern)) out.push({ start: m.index, end: m.index + m[0].length });
  return out;
}
