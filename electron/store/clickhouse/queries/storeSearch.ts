/**
 * Full-text search on the ClickHouse store, with the rule of the SQLite path (shared/searchWords.ts): every word
 * typed must start a word of the turn's action or observation, or of one message (`messages`: those before a turn
 * and after the last), case-insensitively. ClickHouse has no FTS index on 18.16, so the text is scanned with a
 * regular expression per word on the shards; only the matching episodes' keys come back, and for one page of them
 * the first match in the conversation (a message before turn t before turn t's own text), cut to a snippet here.
 */
import type { SearchHit } from '../../../../shared/api.ts';
import { searchMatches, searchWords } from '../../../../shared/searchWords.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { sqlString } from '../schema/connection.ts';
import { visibleRows } from '../schema/schema.ts';

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

/** The same condition on a `messages` row's text. */
export function messageCondition(search: string): string | null {
  const words = searchWords(search);
  if (words.length === 0) return null;
  return words.map((w) => `match(lowerUTF8(text), ${wordStart(w)})`).join(' AND ');
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

/** The keys of episodes with a message matching `condition` (messageCondition). */
export function episodesWithMessage(store: ClickHouseStore, condition: string): string {
  return `SELECT DISTINCT episode_key FROM ${store.table('messages')} WHERE ${visibleRows(store)} AND ${condition}`;
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
  const rows = await store.query<{ k: string; first_pos: number; turns: string; positions: (number | string)[]; action_text: string; observation_text: string; action_from: string; observation_from: string }>(
    `SELECT episode_key AS k, min(pos) AS first_pos, count() AS turns, groupUniqArray(pos) AS positions,
       ${around('action')}, ${around('observation')}
     FROM ${store.table('turn_text')} WHERE ${visibleRows(store)} AND has({keys:Array(UInt64)}, episode_key) AND ${condition}
     GROUP BY episode_key`,
    { keys },
  );
  const messages = await messageHitsOnStore(store, keys, search, from);
  if (rows.length === 0 && messages.size === 0) return out;
  const numbers = await store.query<{ k: string; pos: number; t: number }>(
    `SELECT episode_key AS k, pos, t FROM ${store.table('turns')}
     WHERE ${visibleRows(store)} AND has({keys:Array(UInt64)}, episode_key) AND has({positions:Array(UInt32)}, pos)`,
    { keys: rows.map((r) => Number(r.k)), positions: [...new Set(rows.map((r) => Number(r.first_pos)))] },
  );
  const turnNumber = new Map(numbers.map((n) => [`${n.k}:${n.pos}`, Number(n.t)]));
  for (const r of rows) {
    const m = messages.get(Number(r.k));
    // A message before turn t comes before turn t's own text; one after the last turn after every turn.
    if (m && m.t !== null && m.t <= Number(r.first_pos)) {
      m.turns = new Set([...r.positions.map(Number), ...m.ts]).size;
      continue;
    }
    const turns = m ? new Set([...r.positions.map(Number), ...m.ts]).size : Number(r.turns);
    if (m) messages.delete(Number(r.k));
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
      turns,
      field: inAction ? 'action' : 'observation',
      snippet: inAction ? action : observation,
    });
  }
  for (const [k, m] of messages) out.set(k, m.hit(words));
  return out;
}

interface StoreMessageHit {
  /** The turn the message came before; null after the last turn. */
  t: number | null;
  /** The turns (their t, -1 for after the last) with a matching message. */
  ts: number[];
  turns: number;
  hit(words: readonly string[]): SearchHit;
}

/** Each episode's first matching message (by its order in the episode), with what its hit says. */
async function messageHitsOnStore(
  store: ClickHouseStore, keys: readonly number[], search: string, from: (column: string) => string,
): Promise<Map<number, StoreMessageHit>> {
  const out = new Map<number, StoreMessageHit>();
  const condition = messageCondition(search);
  if (!condition) return out;
  // Aliases unlike the columns' names: 18.16 resolves a column to an alias of the same name (an aggregate in an aggregate).
  const rows = await store.query<{ k: string; first_seq: number; first_t: number | string; first_role: string; first_text: string; text_from: string; ts: (number | string)[] }>(
    `SELECT episode_key AS k, min(seq) AS first_seq, argMin(ifNull(t, -1), seq) AS first_t, argMin(role, seq) AS first_role,
       argMin(substring(text, ${from('text')}, 1600), seq) AS first_text, argMin(${from('text')}, seq) AS text_from, groupUniqArray(ifNull(t, -1)) AS ts
     FROM ${store.table('messages')} WHERE ${visibleRows(store)} AND has({keys:Array(UInt64)}, episode_key) AND ${condition}
     GROUP BY episode_key`,
    { keys },
  );
  if (rows.length === 0) return out;
  const hitKeys = rows.map((r) => Number(r.k));
  // Where each hit stands among the messages of its turn, and the last turn for those after it.
  const all = await store.query<{ k: string; seq: number; at: number | string }>(
    `SELECT episode_key AS k, seq, ifNull(t, -1) AS at FROM ${store.table('messages')} WHERE ${visibleRows(store)} AND has({keys:Array(UInt64)}, episode_key)`,
    { keys: hitKeys },
  );
  const last = new Map((await store.query<{ k: string; last_pos: number; last_t: number }>(
    `SELECT episode_key AS k, max(pos) AS last_pos, argMax(t, pos) AS last_t FROM ${store.table('turns')} WHERE ${visibleRows(store)} AND has({keys:Array(UInt64)}, episode_key) GROUP BY episode_key`,
    { keys: hitKeys },
  )).map((r) => [Number(r.k), { pos: Number(r.last_pos), t: Number(r.last_t) }]));
  for (const r of rows) {
    const k = Number(r.k);
    const t = Number(r.first_t) === -1 ? null : Number(r.first_t);
    const ts = r.ts.map(Number);
    const index = all.filter((x) => Number(x.k) === k && Number(x.at) === Number(r.first_t) && Number(x.seq) < Number(r.first_seq)).length;
    const cut = (Number(r.text_from) > 1 ? r.first_text.replace(/^\S*/, '') : r.first_text).replace(/\S*\uFFFD+$/, '');
    const entry: StoreMessageHit = {
      t, ts, turns: new Set(ts).size,
      hit: (words) => ({
        // Canonical turns are numbered by position, so a message's turn number is its turn's index.
        t: t ?? last.get(k)?.t ?? 0,
        index: t ?? last.get(k)?.pos ?? 0,
        turns: entry.turns,
        field: 'message',
        snippet: snippetOf(cut, words),
        message: { role: r.first_role, index, final: t === null },
      }),
    };
    out.set(k, entry);
  }
  return out;
}
