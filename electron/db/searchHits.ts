/**
 * Where a full-text search matched inside each listed episode: its first matching turn, how many turns
 * match, and a snippet of the matching text with the hit marked, so the Episodes view can show why an
 * episode is listed and open it at that turn. Two indexes answer: turn_fts (each turn's action and observation)
 * and message_fts (the other messages: those before a turn and those after the last one); the earlier hit in the
 * conversation shows, a message before turn t coming before turn t's own text.
 */
import type { SearchHit } from '../../shared/api.ts';
import { searchWords } from '../../shared/searchWords.ts';
import type { Db } from './dbHandle.ts';

/** Turns free text into an FTS5 query: each word quoted (no operator injection) and matched as a prefix, ANDed. */
export function ftsQuery(text: string): string | null {
  const words = searchWords(text);
  if (words.length === 0) return null;
  return words.map((w) => `"${w}"*`).join(' AND ');
}

/*
 * snippet() marks hits with these two private-use characters; the text around them is the log's, so it
 * goes back as plain pieces for the window to render as text, never as markup. A log that itself holds
 * U+E000 or U+E001 can only shift which words are marked.
 */
const OPEN = '\uE000';
const CLOSE = '\uE001';
/** Tokens of context FTS5 keeps around the hit: about a line of the results table. */
const SNIPPET_TOKENS = 16;

export type SnippetPiece = SearchHit['snippet'][number];

/**
 * Characters kept of one piece of a snippet. FTS5 counts tokens, not characters: one "word" of a log can be
 * megabytes long (a base64 blob, a line of 10 MB), and the snippet around a hit would then carry all of it.
 */
export const SNIPPET_PIECE_CHARS = 160;
/** Characters kept before the first hit: fewer, so the hit itself is in view in the results table's row. */
export const SNIPPET_LEAD_CHARS = 60;

/** `text` cut to `n` characters and `…` where it was cut, keeping its start, its end or both. */
function capped(text: string, keep: 'head' | 'tail' | 'both', n: number): string {
  if (text.length <= n) return text;
  if (keep === 'head') return `${text.slice(0, n)}…`;
  if (keep === 'tail') return `…${text.slice(-n)}`;
  return `${text.slice(0, n / 2)}…${text.slice(-n / 2)}`;
}

/**
 * Splits a marked snippet into pieces, white space (line breaks, indentation) folded to single spaces and
 * each piece capped in length (the text before the first hit keeps its last SNIPPET_LEAD_CHARS, after the last
 * hit its start).
 */
export function snippetPieces(marked: string): SnippetPiece[] {
  const raw: SnippetPiece[] = [];
  let hit = false;
  let from = 0;
  const push = (to: number) => {
    if (to > from) raw.push({ text: marked.slice(from, to), hit });
  };
  for (let i = 0; i < marked.length; i++) {
    const c = marked[i];
    if (c !== OPEN && c !== CLOSE) continue;
    push(i);
    hit = c === OPEN;
    from = i + 1;
  }
  push(marked.length);
  const out: SnippetPiece[] = [];
  raw.forEach((p, i) => {
    const keep = p.hit ? 'head' : i === 0 ? 'tail' : i === raw.length - 1 ? 'head' : 'both';
    // Cut roughly before folding white space (a huge piece is never scanned whole), exactly after.
    const n = keep === 'tail' ? SNIPPET_LEAD_CHARS : SNIPPET_PIECE_CHARS;
    const text = capped(capped(p.text, keep, 4 * n).replace(/\s+/g, ' '), keep, n);
    if (text === '') return;
    const last = out[out.length - 1];
    if (last && last.hit === p.hit) last.text += text;
    else out.push({ text, hit: p.hit });
  });
  return out;
}

function hitCount(pieces: SnippetPiece[]): number {
  return pieces.filter((p) => p.hit).length;
}

/**
 * The first matching turn of each of these episodes (ids from one page of results). FTS runs once for the
 * page: asking it per turn (`rowid = ?`) re-expands the prefix terms every time, ~1 ms a row.
 */
export function searchHits(db: Db, episodeIds: readonly number[], search: string): Map<number, SearchHit> {
  const out = new Map<number, SearchHit>();
  const fts = ftsQuery(search);
  if (!fts || episodeIds.length === 0) return out;
  // SQLite takes the bare columns (turn_id) from the row where MIN(t.t) is reached.
  const first = db
    .prepare(`SELECT t.episode_id AS episode_id, MIN(t.t) AS t, t.id AS turn_id, COUNT(*) AS turns
      FROM turn_fts JOIN turns t ON t.id = turn_fts.rowid
      WHERE turn_fts MATCH ? AND t.episode_id IN (SELECT value FROM json_each(?))
      GROUP BY t.episode_id`)
    .all(fts, JSON.stringify(episodeIds)) as { episode_id: number; t: number; turn_id: number; turns: number }[];
  const byEpisode = new Map(first.map((f) => [f.episode_id, f]));
  const shown = new Map<number, MessageMatch>();
  for (const [episodeId, m] of messageHits(db, episodeIds, fts)) {
    const f = byEpisode.get(episodeId);
    if (f && (m.t === null || f.t < m.t)) {
      f.turns = m.turns;
      continue;
    }
    byEpisode.delete(episodeId);
    shown.set(episodeId, m);
  }
  for (const [episodeId, hit] of messageSearchHits(db, shown, fts)) out.set(episodeId, hit);
  if (byEpisode.size === 0) return out;
  // `+rowid` keeps the id list out of FTS5's plan (it would run the match once per id); it filters the one scan.
  const snippets = db
    .prepare(`SELECT rowid AS turn_id,
        snippet(turn_fts, 0, '${OPEN}', '${CLOSE}', '…', ${SNIPPET_TOKENS}) AS action,
        snippet(turn_fts, 1, '${OPEN}', '${CLOSE}', '…', ${SNIPPET_TOKENS}) AS observation
      FROM turn_fts WHERE turn_fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?))`)
    .all(fts, JSON.stringify(first.map((f) => f.turn_id))) as { turn_id: number; action: string | null; observation: string | null }[];
  const byTurn = new Map(snippets.map((s) => [s.turn_id, s]));
  // The inspector addresses turns by position; turn numbers from a log may start anywhere or skip.
  const position = db.prepare('SELECT COUNT(*) FROM turns WHERE episode_id = ? AND t < ?').pluck();
  for (const f of byEpisode.values()) {
    const s = byTurn.get(f.turn_id);
    const action = snippetPieces(s?.action ?? '');
    const observation = snippetPieces(s?.observation ?? '');
    // The column with more of the words shows; the action (what the agent did) on a tie.
    const inAction = hitCount(action) >= hitCount(observation) && hitCount(action) > 0;
    out.set(f.episode_id, {
      t: f.t,
      index: position.get(f.episode_id, f.t) as number,
      turns: f.turns,
      field: inAction ? 'action' : 'observation',
      snippet: inAction ? action : observation,
    });
  }
  return out;
}

interface MessageMatch {
  id: number;
  t: number | null;
  seq: number;
  role: string;
  /** Turns that match in their own text or in a message before them, messages after the last turn counting as one. */
  turns: number;
}

/** Each episode's first matching message, and how many turns match with their messages counted in. */
function messageHits(db: Db, episodeIds: readonly number[], fts: string): Map<number, MessageMatch> {
  const ids = JSON.stringify(episodeIds);
  // seq orders an episode's messages, those after the last turn last: MIN(seq) is the first in the conversation.
  const rows = db
    .prepare(`SELECT m.episode_id AS episode_id, MIN(m.seq) AS seq, m.id AS id, m.t AS t, m.role AS role
      FROM message_fts JOIN messages m ON m.id = message_fts.rowid
      WHERE message_fts MATCH ? AND m.episode_id IN (SELECT value FROM json_each(?)) GROUP BY m.episode_id`)
    .all(fts, ids) as (Omit<MessageMatch, 'turns'> & { episode_id: number })[];
  if (rows.length === 0) return new Map();
  const counts = new Map(
    (db
      .prepare(`SELECT episode_id, COUNT(*) AS n FROM (
          SELECT t.episode_id AS episode_id, t.t AS t FROM turn_fts JOIN turns t ON t.id = turn_fts.rowid
            WHERE turn_fts MATCH @fts AND t.episode_id IN (SELECT value FROM json_each(@ids))
          UNION SELECT m.episode_id, COALESCE(m.t, -1) FROM message_fts JOIN messages m ON m.id = message_fts.rowid
            WHERE message_fts MATCH @fts AND m.episode_id IN (SELECT value FROM json_each(@ids)))
        GROUP BY episode_id`)
      .all({ fts, ids: JSON.stringify(rows.map((r) => r.episode_id)) }) as { episode_id: number; n: number }[]).map((r) => [r.episode_id, r.n]),
  );
  return new Map(rows.map((r) => [r.episode_id, { id: r.id, t: r.t, seq: r.seq, role: r.role, turns: counts.get(r.episode_id) ?? 1 }]));
}

/** The hit of each episode's message: the turn it came before (the last turn for one after it), its place among them, its text. */
function messageSearchHits(db: Db, shown: ReadonlyMap<number, MessageMatch>, fts: string): Map<number, SearchHit> {
  const out = new Map<number, SearchHit>();
  if (shown.size === 0) return out;
  const snippets = new Map(
    (db
      .prepare(`SELECT rowid AS id, snippet(message_fts, 0, '${OPEN}', '${CLOSE}', '…', ${SNIPPET_TOKENS}) AS text
        FROM message_fts WHERE message_fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?))`)
      .all(fts, JSON.stringify([...shown.values()].map((m) => m.id))) as { id: number; text: string }[]).map((r) => [r.id, r.text]),
  );
  const lastT = db.prepare('SELECT MAX(t) FROM turns WHERE episode_id = ?').pluck();
  const position = db.prepare('SELECT COUNT(*) FROM turns WHERE episode_id = ? AND t < ?').pluck();
  const before = db.prepare('SELECT COUNT(*) FROM messages WHERE episode_id = ? AND t IS ? AND seq < ?').pluck();
  for (const [episodeId, m] of shown) {
    const t = m.t ?? (lastT.get(episodeId) as number | null) ?? 0;
    out.set(episodeId, {
      t,
      index: position.get(episodeId, t) as number,
      turns: m.turns,
      field: 'message',
      snippet: snippetPieces(snippets.get(m.id) ?? ''),
      message: { role: m.role, index: before.get(episodeId, m.t, m.seq) as number, final: m.t === null },
    });
  }
  return out;
}
