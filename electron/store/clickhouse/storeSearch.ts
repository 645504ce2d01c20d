/**
 * Full-text search on the ClickHouse store, with the rule of the SQLite path (shared/searchWords.ts): every word
 * typed must start a word of the turn's action or observation, case-insensitively. ClickHouse has no FTS index
 * on 18.16, so the turns' text is scanned with a regular expression per word on the shards; only the matching
 * episodes' keys come back, and for one page of them the first matching turn's text, cut to a snippet here.
 */
import type { SearchHit } from '../../../shared/api.ts';
import { searchMatches, searchWords } from '../../../shared/searchWords.ts';
import type { ClickHouseStore } from './connection.ts';
import { sqlString } from './connection.ts';
import { visibleRows } from './schema.ts';

/**
 * The SQL condition on a `turn_text` row for these words, or null when nothing searchable was typed. 18.16's
 * `match` ignores `(?i)` (its literal prefilter is case-sensitive), so both sides are lower-cased instead; the
 * words hold only letters, digits and `_` (searchWords), so none is regex syntax.
 */
export function textCondition(search: string): string | null {
  const words = searchWords(search);
  if (words.length === 0) return null;
  const text = "lowerUTF8(concat(ifNull(action, ''), '\\n', ifNull(observation, '')))";
  return words.map((w) => `match(${text}, ${wordStart(w)})`).join(' AND ');
}

/** The regex (as a SQL literal) of `word` starting a word; `_` separates words, as in FTS5's unicode61 tokenizer. */
function wordStart(word: string): string {
  return sqlString(`(?:^|[^\\p{L}\\p{N}])${word.toLowerCase()}`);
}

/** Words of context around the first hit: about a line of the results table (FTS5's snippet uses 16 tokens). */
const SNIPPET_WORDS = 16;

/** The part of `text` around its first hit, as text pieces with the hits marked, `…` where it was cut. */
export function snippetOf(text: string, words: readonly string[]): SearchHit['snippet'] {
  const hits = searchMatches(text, words);
  const first = hits[0];
  if (!first) return [];
  // Word starts around the hit: a quarter of the window before it, the rest after.
  const starts = [...text.matchAll(/\S+/g)].map((m) => m.index);
  const at = Math.max(0, starts.findLastIndex((s) => s <= first.start));
  const from = Math.max(0, at - Math.floor(SNIPPET_WORDS / 4));
  const to = Math.min(starts.length, from + SNIPPET_WORDS);
  const start = starts[from] ?? 0;
  const end = to < starts.length ? (starts[to] as number) : text.length;
  const pieces: SearchHit['snippet'] = [];
  const push = (piece: string, hit: boolean) => {
    const folded = piece.replace(/\s+/g, ' ');
    if (folded === '') return;
    const last = pieces[pieces.length - 1];
    if (last && last.hit === hit) last.text += folded;
    else pieces.push({ text: folded, hit });
  };
  if (start > 0) push('…', false);
  let cursor = start;
  for (const h of hits) {
    if (h.start < start || h.end > end) continue;
    push(text.slice(cursor, h.start), false);
    push(text.slice(h.start, h.end), true);
    cursor = h.end;
  }
  push(text.slice(cursor, end).trimEnd(), false);
  if (end < text.length) push('…', false);
  return pieces;
}

/** The keys of episodes with a turn matching `condition` (a subquery for `episode_key IN`). */
export function matchingEpisodes(store: ClickHouseStore, condition: string): string {
  return `SELECT DISTINCT episode_key FROM ${store.table('turn_text')} WHERE ${visibleRows(store)} AND ${condition}`;
}

/** Where the search matched in each of these episodes (one page of results): the first matching turn and a snippet. */
export async function searchHitsOnStore(store: ClickHouseStore, keys: readonly number[], search: string): Promise<Map<number, SearchHit>> {
  const out = new Map<number, SearchHit>();
  const condition = textCondition(search);
  if (!condition || keys.length === 0) return out;
  const words = searchWords(search);
  // Only text around the first word's first occurrence travels (a turn's output may be megabytes). Offsets are in
  // bytes: 18.16's substringUTF8 takes only constant offsets.
  const from = (column: string) => {
    const lower = `lowerUTF8(ifNull(${column}, ''))`;
    return `toUInt64(greatest(1, toInt64(position(${lower}, extract(${lower}, ${wordStart(words[0] as string)}))) - 400))`;
  };
  const around = (column: string) =>
    `argMin(substring(ifNull(${column}, ''), ${from(column)}, 1600), pos) AS ${column}_text, argMin(${from(column)}, pos) AS ${column}_from`;
  const rows = await store.query<{ k: string; first_pos: number; turns: string; action_text: string; observation_text: string; action_from: string; observation_from: string }>(
    `SELECT episode_key AS k, min(pos) AS first_pos, count() AS turns,
       ${around('action')}, ${around('observation')}
     FROM ${store.table('turn_text')} WHERE ${visibleRows(store)} AND has({keys:Array(UInt64)}, episode_key) AND ${condition}
     GROUP BY episode_key`,
    { keys },
  );
  if (rows.length === 0) return out;
  const numbers = await store.query<{ k: string; pos: number; t: number }>(
    `SELECT episode_key AS k, pos, t FROM ${store.table('turns')}
     WHERE ${visibleRows(store)} AND has({keys:Array(UInt64)}, episode_key) AND has({positions:Array(UInt32)}, pos)`,
    { keys: rows.map((r) => Number(r.k)), positions: [...new Set(rows.map((r) => Number(r.first_pos)))] },
  );
  const turnNumber = new Map(numbers.map((n) => [`${n.k}:${n.pos}`, Number(n.t)]));
  for (const r of rows) {
    // A cut inside a word (or a character) leaves that word out: its tail is not a word start.
    const cut = (text: string, offset: string) => (Number(offset) > 1 ? text.replace(/^\S*/, '') : text).replace(/\S*\uFFFD+$/, '');
    const action = snippetOf(cut(r.action_text, r.action_from), words);
    const observation = snippetOf(cut(r.observation_text, r.observation_from), words);
    const count = (p: SearchHit['snippet']) => p.filter((x) => x.hit).length;
    // The field with more of the words shows; the action (what the agent did) on a tie, as in the SQLite path.
    const inAction = count(action) >= count(observation) && count(action) > 0;
    out.set(Number(r.k), {
      t: turnNumber.get(`${r.k}:${r.first_pos}`) ?? Number(r.first_pos),
      index: Number(r.first_pos),
      turns: Number(r.turns),
      field: inAction ? 'action' : 'observation',
      snippet: inAction ? action : observation,
    });
  }
  return out;
}
