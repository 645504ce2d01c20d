/**
 * One imported file's rows read back from a staging SQLite database, for the files the direct path (directRows.ts)
 * hands over to staging: the file was written by the same pipeline and EpisodeWriter as every import, then read
 * back here in a few streaming queries and shaped by episodeRows.ts as the direct path shapes them.
 */
import { behaviourMode, type BehaviourMode, type ModeTurn } from '../../../../shared/behaviourModes.ts';
import type { Db } from '../../../db/dbHandle.ts';
import {
  addEpisode, addTurnPart, addTurns, emptySummary, episodeKey, noteRun, rootSession, sessionsOf,
  type EpisodeHead, type EpisodeRow, type FileSummary, type RowSink, type SessionEpisode, type SessionIndex, type TurnRow,
} from './episodeRows.ts';

/**
 * Each staged episode's behaviour mode (plan-dag), from its turns' verdicts and how many subtasks each planned,
 * in turn order, by the same function the SQLite path uses.
 */
function behaviourModes(staging: Db): (episodeId: number) => BehaviourMode | null {
  const turns = new Map<number, ModeTurn[]>();
  for (const [episode, verdict, planned] of staging
    .prepare(`SELECT t.episode_id, t.verdict, COALESCE(pc.n, 0) FROM turns t
      LEFT JOIN (SELECT turn_id, COUNT(*) AS n FROM plan_nodes WHERE turn_id IS NOT NULL GROUP BY turn_id) pc ON pc.turn_id = t.id
      WHERE t.episode_id IN (SELECT episode_id FROM plan_nodes) ORDER BY t.episode_id, t.t, t.id`)
    .raw()
    .iterate() as Iterable<[number, 'stop' | 'continue' | null, number]>) {
    let list = turns.get(episode);
    if (!list) turns.set(episode, (list = []));
    list.push({ planSubtasks: planned > 0 ? planned : null, verdict });
  }
  // An episode that planned nothing is 'lazy' whatever its verdicts: only planning episodes' turns are read.
  return (episodeId) => behaviourMode(turns.get(episodeId) ?? []);
}

/** Each turn's position in its episode (by t, then insertion), the order the columnar cache reads turns in. */
const POSITIONS = `WITH tp AS (SELECT id, episode_id, ROW_NUMBER() OVER (PARTITION BY episode_id ORDER BY t, id) - 1 AS pos
  FROM turns WHERE episode_id IN (SELECT id FROM episodes WHERE source_id = @source))`;

/** Sends the rows of staged source `sourceId`, tagged with `importId`, to `sink`; registers its sessions in `index`. */
export async function stagedRows(staging: Db, sourceId: number, importId: number, index: SessionIndex, sink: RowSink): Promise<FileSummary> {
  // Only what root resolution needs, for the episodes on a subagent chain (those with a parent, and the parents):
  // every other episode is its own session's root. The full rows (task text…) are streamed below.
  const heads = staging
    .prepare(`SELECT e.id, r.name AS run, e.ext_id, e.parent_ext_id, e.split FROM episodes e JOIN runs r ON r.id = e.run_id
      WHERE e.source_id = ? AND (e.parent_ext_id IS NOT NULL
        OR e.ext_id IN (SELECT parent_ext_id FROM episodes WHERE source_id = ? AND parent_ext_id IS NOT NULL)) ORDER BY e.id`)
    .all(sourceId, sourceId) as SessionEpisode[];
  const sessions = await sessionsOf(heads, index);
  const modes = behaviourModes(staging);
  const summary = emptySummary();
  /** What the turns pass needs of each episode (not its text: a file may hold hundreds of thousands). */
  const byId = new Map<number, EpisodeHead>();
  // Values as stored (a JSON array would round the REALs to 15 digits, unlike the direct path's doubles).
  const logTotalsOf = staging
    .prepare(`SELECT source, requests, tokens_in, tokens_out, tokens_cached, tokens_cache_write, tokens_cache_write_1h, tokens_reasoning, cost,
        counted_requests, counted_tokens_in, counted_tokens_out, counted_tokens_cached, counted_tokens_cache_write, counted_tokens_cache_write_1h,
        counted_tokens_reasoning, counted_cost, compared, differing, worst_rel FROM episode_log_totals WHERE episode_id = ?`)
    .raw();
  for (const e of staging
    .prepare(`SELECT e.*, r.name AS run, r.source_format, r.source_path, r.policy_name AS run_policy, r.policy_kind, x.task_text, x.system_prompt, x.detail, x.outcome,
        COALESCE(x.policy_name, r.policy_name) AS policy_name, e.id AS file_ord,
        EXISTS (SELECT 1 FROM turns t2 WHERE t2.episode_id = e.id AND t2.model_id !=
          (SELECT t3.model_id FROM turns t3 WHERE t3.episode_id = e.id ORDER BY t3.t, t3.id LIMIT 1)) AS expert_call
      FROM episodes e JOIN runs r ON r.id = e.run_id LEFT JOIN episode_text x ON x.episode_id = e.id WHERE e.source_id = ? ORDER BY e.id`)
    .iterate(sourceId) as Iterable<Omit<EpisodeRow, 'log_totals'> & { id: number; split: string | null; source_format: string; source_path: string; run_policy: string | null; policy_kind: string | null }>) {
    // Off every subagent chain, an episode is its own session's root.
    const s = sessions.get(e.id) ?? rootSession(episodeKey(e.run, e.ext_id), e.split);
    const logTotals = (logTotalsOf.get(e.id) as unknown[] | undefined) ?? null;
    byId.set(e.id, addEpisode(sink, importId, s, { ...e, log_totals: logTotals }, modes(e.id), index, summary));
    noteRun(summary, { run: e.run, source_format: e.source_format, source_path: e.source_path, policy_name: e.run_policy, policy_kind: e.policy_kind });
    if (sink.full()) await sink.flush();
  }
  // One pass over the file's turns in (episode, t) order (t is unique in an episode), an episode at a time.
  let episode: (TurnRow & { episode_id: number })[] = [];
  const sendEpisode = async (): Promise<void> => {
    const ep = byId.get(episode[0]?.episode_id as number);
    if (ep) addTurns(sink, importId, ep, episode, summary);
    episode = [];
    if (sink.full()) await sink.flush();
  };
  for (const r of staging
    .prepare(`SELECT t.episode_id, t.t, m.name AS model, pm.name AS prev_model, t.switched, t.max_severity, t.action_type, t.tool, t.tokens_in,
        t.tokens_out, t.tokens_cached, t.tokens_cache_write, t.tokens_reasoning, t.tokens_cache_write_1h, t.cost, t.cost_source, t.latency_ms, t.propensity, t.error_mask,
        t.verdict, t.verify_correct, gm.name AS greedy_model, t.was_greedy, t.beta, t.role, g.s_tilde, g.penalty, x.action, x.observation, x.detail,
        pp.price_table, pp.version AS price_version, pp.cache_tier
      FROM episodes e JOIN turns t ON t.episode_id = e.id LEFT JOIN models m ON m.id = t.model_id LEFT JOIN models pm ON pm.id = t.prev_model_id
        LEFT JOIN price_provenance pp ON pp.id = t.price_provenance_id
        LEFT JOIN models gm ON gm.id = t.greedy_model_id LEFT JOIN targets g ON g.turn_id = t.id LEFT JOIN turn_text x ON x.turn_id = t.id
      WHERE e.source_id = ? ORDER BY t.episode_id, t.t`)
    .iterate(sourceId) as Iterable<TurnRow & { episode_id: number }>) {
    if (episode.length > 0 && r.episode_id !== episode[0]?.episode_id) await sendEpisode();
    episode.push(r);
  }
  if (episode.length > 0) await sendEpisode();
  const perTurn = async (table: Parameters<typeof addTurnPart>[1], sql: string): Promise<void> => {
    for (const [episodeId, ...rest] of staging.prepare(sql).raw().iterate({ source: sourceId }) as Iterable<unknown[]>) {
      const ep = byId.get(episodeId as number);
      if (!ep) continue;
      addTurnPart(sink, table, importId, ep, rest);
      if (sink.full()) await sink.flush();
    }
  };
  await perTurn('turn_errors', `${POSITIONS} SELECT tp.episode_id, tp.pos, y.name, x.severity, x.source FROM turn_errors x
    JOIN tp ON tp.id = x.turn_id JOIN error_types y ON y.id = x.error_type_id`);
  await perTurn('turn_candidates', `${POSITIONS} SELECT tp.episode_id, tp.pos, m.name, x.logged_score FROM turn_candidates x
    JOIN tp ON tp.id = x.turn_id JOIN models m ON m.id = x.model_id`);
  await perTurn('plan_nodes', `${POSITIONS} SELECT p.episode_id, tp.pos, p.round, p.id, p.subtask_id, m.name, p.primitive, p.status FROM plan_nodes p
    LEFT JOIN tp ON tp.id = p.turn_id LEFT JOIN models m ON m.id = p.model_id
    WHERE p.episode_id IN (SELECT id FROM episodes WHERE source_id = @source) ORDER BY p.id`);
  await perTurn('messages', `SELECT episode_id, seq, t, role, text, timestamp FROM messages
    WHERE episode_id IN (SELECT id FROM episodes WHERE source_id = @source) ORDER BY episode_id, seq`);
  await perTurn('plan_edges', 'SELECT episode_id, round, rowid, src, dst FROM plan_edges WHERE episode_id IN (SELECT id FROM episodes WHERE source_id = @source)');
  return summary;
}
