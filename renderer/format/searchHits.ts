/**
 * Case-insensitive occurrences of a search term in log text, for the `<mark class="search-hit">` highlights.
 * Capped: a term like "a" in a 10 MB observation would otherwise make millions of elements.
 */

export const MAX_HITS = 500;

/** [start, end) of each occurrence, non-overlapping, at most `max`. A blank term finds nothing. */
export function findHits(text: string, term: string | null | undefined, max = MAX_HITS): [number, number][] {
  const needle = term?.trim().toLowerCase();
  if (!needle) return [];
  const hay = text.toLowerCase();
  // toLowerCase can change lengths (e.g. 'İ' → 'i̇'); offsets are then unreliable, so search the original instead.
  const exact = hay.length !== text.length;
  const source = exact ? text : hay;
  const what = exact ? (term ?? '').trim() : needle;
  const out: [number, number][] = [];
  for (let i = source.indexOf(what); i !== -1 && out.length < max; i = source.indexOf(what, i + what.length)) {
    out.push([i, i + what.length]);
  }
  return out;
}

export function hasHit(text: string, term: string | null | undefined): boolean {
  return findHits(text, term, 1).length > 0;
}

/** The text cut into plain and hit pieces, in order. */
export function splitHits(text: string, term: string | null | undefined): { text: string; hit: boolean }[] {
  const hits = findHits(text, term);
  if (hits.length === 0) return [{ text, hit: false }];
  const out: { text: string; hit: boolean }[] = [];
  let at = 0;
  for (const [s, e] of hits) {
    if (s > at) out.push({ text: text.slice(at, s), hit: false });
    out.push({ text: text.slice(s, e), hit: true });
    at = e;
  }
  if (at < text.length) out.push({ text: text.slice(at), hit: false });
  return out;
}
