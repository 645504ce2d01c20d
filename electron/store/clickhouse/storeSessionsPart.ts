/**
 * One part of a ClickHouse store's sessions with everything a history is built from: the episodes a condition
 * selects among those of the part (`root_key % P = p`, so a session's episodes come together), in key order, each
 * with its turns in order and their text. Training (storeTraining.ts) and scoring (storeScoring.ts) read the
 * store through it; a part is what is in memory at once.
 */
import type { TrainingEpisode, TrainingTurn } from '../../estimator/dataset.ts';
import type { ClickHouseStore } from './connection.ts';
import { visibleRows } from './schema.ts';

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

/** `where` selects episodes (it may name the episodes table's columns); `inPart` picks the part. */
export async function readSessionsPart(
  store: ClickHouseStore, q: { where: string; params: Record<string, unknown>; inPart: string },
): Promise<PartSession[]> {
  const eps = await store.query<{
    k: string; root: string; imp: string; run: string; score_norm: number | null; expected_steps: number | null;
    task_type: string | null; task_category: string | null; task_text: string | null;
  }>(
    `SELECT episode_key AS k, root_key AS root, import_id AS imp, run, score_norm, expected_steps, task_type, task_category, task_text
     FROM ${store.table('episodes')} WHERE ${q.where} AND ${q.inPart} ORDER BY episode_key`,
    q.params,
  );
  const inPartEpisodes = `episode_key ${store.globalIn} (SELECT episode_key FROM ${store.table('episodes')} WHERE ${q.where} AND ${q.inPart})`;
  const turns = await store.query<{ k: string; pos: number; model: string; switched: number; severity: number; s_tilde: number | null; category: string | null }>(
    `SELECT episode_key AS k, pos, model, switched, severity, s_tilde, ifNull(tool, action_type) AS category FROM ${store.table('turns')}
     WHERE ${visibleRows(store)} AND ${q.inPart} AND ${inPartEpisodes} ORDER BY episode_key, pos`,
    q.params,
  );
  const text = await store.query<{ k: string; pos: number; action: string | null; observation: string | null }>(
    `SELECT episode_key AS k, pos, action, observation FROM ${store.table('turn_text')}
     WHERE ${visibleRows(store)} AND ${q.inPart} AND ${inPartEpisodes}`,
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
