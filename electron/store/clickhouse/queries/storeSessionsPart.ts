/**
 * A ClickHouse store's sessions read in parts, and one part with everything a history is built from: the episodes a
 * condition selects among those of the part, in key order, each with its turns in order and their text. Training
 * (storeTraining.ts), scoring (storeScoring.ts) and replay (storeReplay.ts) read the store in these parts; a part is
 * what is in memory at once.
 *
 * A part is a range of root keys, so a session's episodes come together. A root's episode key is its root key, and
 * the tables are sorted by episode key: the range skips every other part's granules, and a part's read costs its
 * own size, not the store's (`root_key % P` read every granule of every table once per part). A subagent's episode
 * key lies anywhere, so the part's children are named by key, which skips granules too.
 */
import type { TrainingEpisode, TrainingTurn } from '../../../estimator/dataset.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { visibleRows } from '../schema/schema.ts';

export interface PartTurn extends TrainingTurn {
  /** Position in the episode (the store's turn key with the episode's). */
  pos: number;
  /** The tool, else the action type (decision quality's category). */
  category: string | null;
}

export interface PartSession {
  key: string;
  rootKey: string;
  importId: string;
  run: string;
  /** `id` is the episode's number in the part. */
  episode: Omit<TrainingEpisode, 'score_norm'> & { score_norm: number | null };
  turns: PartTurn[];
}

const num = (x: unknown): number => Number(x);
const numOrNull = (x: unknown): number | null => (x === null || x === undefined ? null : Number(x));

/** An episode as the episodes table gave it: its key and its session's root key (UInt64s as text). */
export interface ReadEpisode {
  k: string;
  root: string;
}

/** One part: a condition on its episodes, and one on the rows of those of them a caller read. */
export interface SessionPart {
  /** Picks the part's episodes in the episodes table (or any table with `root_key`). */
  episodes: string;
  /** Picks the rows of exactly `read` (episodes of this part) in a table sorted by episode key, skipping the rest. */
  rowsOf(read: readonly ReadEpisode[]): string;
}

/** Exactly these episodes: a literal list, which needs no read of the episodes table on the shards. */
function keysIn(read: readonly ReadEpisode[]): string {
  return read.length ? `episode_key IN (${read.map((e) => BigInt(e.k).toString()).join(', ')})` : '0';
}

/** The whole store as one part (the caller's condition alone picks what is read). */
export const WHOLE_STORE: SessionPart = { episodes: '1', rowsOf: keysIn };

/**
 * The selected sessions (`where` on the episodes table) in about `turns / turnsPerPart` parts of equal ranges of root
 * keys. Keys are hashes (episodeRows.ts), so equal ranges hold about equal numbers of sessions.
 */
export async function sessionParts(
  store: ClickHouseStore, q: { where: string; params: Record<string, unknown>; turns: number; turnsPerPart: number },
): Promise<SessionPart[]> {
  const count = Math.max(1, Math.ceil(q.turns / q.turnsPerPart));
  if (count === 1) return [WHOLE_STORE];
  const [range] = await store.query<{ lo: string; hi: string; children: string }>(
    `SELECT toString(min(root_key)) AS lo, toString(max(root_key)) AS hi, countIf(episode_key != root_key) AS children
     FROM ${store.table('episodes')} WHERE ${q.where}`, q.params,
  );
  // Without subagents every episode is a root, and the episodes table (sorted by run, episode key) skips by key too.
  const allRoots = Number(range?.children ?? 0) === 0;
  const lo = BigInt(range?.lo ?? 0);
  const span = BigInt(range?.hi ?? 0) - lo + 1n;
  const bound = (p: number): bigint => lo + (span * BigInt(p)) / BigInt(count);
  return Array.from({ length: count }, (_x, p) => {
    const from = bound(p);
    // The last part has no upper bound: the largest key may be the largest UInt64, and max + 1 would not be one.
    const to = p === count - 1 ? null : bound(p + 1);
    const within = (column: string): string => `${column} >= ${from}${to === null ? '' : ` AND ${column} < ${to}`}`;
    return {
      episodes: allRoots ? `${within('episode_key')} AND ${within('root_key')}` : within('root_key'),
      rowsOf: (read) => {
        // The key range is what the sort key skips by; the children, anywhere in the table, skip granules by name.
        const children = read.filter((e) => e.k !== e.root);
        const ranged = children.length ? `(${within('episode_key')} OR ${keysIn(children)})` : within('episode_key');
        return `${ranged} AND ${keysIn(read)}`;
      },
    };
  });
}

/** `where` selects episodes (it may name the episodes table's columns); `part` picks the part. */
export async function readSessionsPart(
  store: ClickHouseStore, q: { where: string; params: Record<string, unknown>; part: SessionPart },
): Promise<PartSession[]> {
  const eps = await store.query<{
    k: string; root: string; imp: string; run: string; score_norm: number | null; expected_steps: number | null;
    task_type: string | null; task_category: string | null; task_text: string | null;
  }>(
    `SELECT episode_key AS k, root_key AS root, import_id AS imp, run, score_norm, expected_steps, task_type, task_category, task_text
     FROM ${store.table('episodes')} WHERE ${q.where} AND ${q.part.episodes} ORDER BY episode_key`,
    q.params,
  );
  if (eps.length === 0) return [];
  const inPart = q.part.rowsOf(eps);
  const turns = await store.query<{ k: string; pos: number; model: string; switched: number; severity: number; s_tilde: number | null; category: string | null }>(
    `SELECT episode_key AS k, pos, model, switched, severity, s_tilde, ifNull(tool, action_type) AS category FROM ${store.table('turns')}
     WHERE ${visibleRows(store)} AND ${inPart} ORDER BY episode_key, pos`,
    q.params,
  );
  const text = await store.query<{ k: string; pos: number; action: string | null; observation: string | null }>(
    `SELECT episode_key AS k, pos, action, observation FROM ${store.table('turn_text')}
     WHERE ${visibleRows(store)} AND ${inPart}`,
    q.params,
  );
  const textOf = new Map(text.map((x) => [`${x.k}:${x.pos}`, x]));
  const byEpisode = new Map<string, PartTurn[]>();
  for (const t of turns) {
    const x = textOf.get(`${t.k}:${t.pos}`);
    let list = byEpisode.get(t.k);
    if (!list) byEpisode.set(t.k, (list = []));
    list.push({
      id: num(t.pos), pos: num(t.pos), model: t.model, switched: num(t.switched), max_severity: num(t.severity),
      action: x?.action ?? null, observation: x?.observation ?? null, s_tilde: numOrNull(t.s_tilde), category: t.category,
    });
  }
  return eps.map((e, i) => ({
    key: e.k,
    rootKey: e.root,
    importId: e.imp,
    run: e.run,
    episode: {
      id: i, score_norm: numOrNull(e.score_norm), expected_steps: numOrNull(e.expected_steps),
      task_type: e.task_type, task_category: e.task_category, task_text: e.task_text,
    },
    turns: byEpisode.get(e.k) ?? [],
  }));
}
