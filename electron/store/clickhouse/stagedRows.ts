/**
 * One imported file's rows, as the ClickHouse store holds them. The file is first written to a staging SQLite
 * database by the same pipeline and EpisodeWriter as every import (pricing, error rules, switches, AEC targets:
 * one place for each fact), then read back here in a few streaming queries and reshaped: model names instead of
 * ids, each episode keyed by a hash of (run, episode id) and tied to its session's root, and the cross-turn
 * columns the analyses need (the next turn's switch and error, the cumulative cost) filled in. Rows come out as
 * TabSeparated lines (ClickHouse parses them fastest, and no object per row is built).
 */
import { createHash } from 'node:crypto';
import { behaviourMode, type BehaviourMode, type ModeTurn } from '../../../shared/behaviourModes.ts';
import type { Db } from '../../db/database.ts';

/** 52 bits of sha256(run, episode id): a JSON-safe integer, the same on every import of that episode. */
export function episodeKey(run: string, extId: string): number {
  return Number.parseInt(createHash('sha256').update(run).update('\0').update(extId).digest('hex').slice(0, 13), 16);
}

/** What later files (a session's subagents come after it) need to know of an episode already written. */
export interface SessionEntry {
  key: number;
  rootKey: number;
  split: string | null;
}

/**
 * Sessions seen in this import, by episode key (`episodeKey(run, ext_id)`, a number: an entry per episode of the
 * import costs a few dozen bytes); `lookup` asks the store for parents imported before.
 */
export interface SessionIndex {
  known: Map<number, { rootKey: number; split: string | null }>;
  lookup(run: string, extIds: string[]): Promise<Map<string, SessionEntry>>;
}

/** The columns each sharded table is written with, in the order the lines hold them. */
export const COLUMNS = {
  episodes: ['import_id', 'episode_key', 'root_key', 'run', 'ext_id', 'task_id', 'task_type', 'task_category', 'split', 'difficulty', 'difficulty_num',
    'final_score', 'score_norm', 'success', 'expert_call', 'total_cost', 'cost_known', 'unpriced_turns', 'n_turns', 'n_switches', 'n_errors', 'budget_mode', 'budget_usd', 'max_turns',
    'train_step', 'exit_reason', 'kind', 'agent', 'parent_ext_id', 'started_at', 'task_text', 'system_prompt', 'behaviour_mode',
    'parent_t', 'expected_steps', 'policy_name', 'file_ord'],
  turns: ['import_id', 'episode_key', 'root_key', 'run', 'split', 'is_child', 'episode_success', 'episode_turn_costs_known', 'episode_difficulty', 'pos', 't', 'model',
    'prev_model', 'switched', 'next_switched', 'severity', 'next_severity', 'category', 'action_type', 'tool', 'tokens_in', 'tokens_out', 'tokens_cached',
    'tokens_cache_write', 'tokens_reasoning', 'cost', 'cost_source', 'cum_cost', 'latency_ms', 'propensity', 'error_mask', 'verdict', 'verify_correct',
    'greedy_model', 'was_greedy', 'beta', 'role', 's_tilde', 'penalty'],
  turn_text: ['import_id', 'episode_key', 'root_key', 'pos', 'action', 'observation', 'detail'],
  turn_errors: ['import_id', 'episode_key', 'root_key', 'run', 'pos', 'error_type', 'severity', 'source'],
  turn_candidates: ['import_id', 'episode_key', 'root_key', 'run', 'pos', 'model', 'logged_score'],
  plan_nodes: ['import_id', 'episode_key', 'root_key', 'run', 'pos', 'round', 'ord', 'subtask_id', 'model', 'primitive', 'status'],
  plan_edges: ['import_id', 'episode_key', 'root_key', 'round', 'ord', 'src', 'dst'],
} as const;
export type ShardedTable = keyof typeof COLUMNS;

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0', '\b': '\\b', '\f': '\\f' };

const ESCAPED = /[\\\t\n\r\0\b\f]/;
const ESCAPED_ALL = new RegExp(ESCAPED.source, 'g');

/** One value in ClickHouse's TabSeparated: \N for NULL, strings with their tabs, line breaks and backslashes escaped. */
function field(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '\\N';
  if (v === null || v === undefined) return '\\N';
  // Most strings need no escape: testing first skips building a copy.
  if (typeof v === 'string') return ESCAPED.test(v) ? v.replace(ESCAPED_ALL, (c) => ESCAPES[c] as string) : v;
  if (typeof v === 'bigint') return v.toString();
  return String(v);
}

export const tsvLine = (values: unknown[]): string => `${values.map(field).join('\t')}\n`;

/**
 * Where a file's rows go: one line at a time, with its table and shard key (the session's root). When `full()`,
 * the rows are sent (`flush`) before more are read, so memory stays bounded whatever the file's size.
 */
export interface RowSink {
  add(table: ShardedTable, rootKey: number, line: string): void;
  full(): boolean;
  flush(): Promise<void>;
}

interface StagedEpisode {
  id: number;
  run: string;
  ext_id: string;
  parent_ext_id: string | null;
  split: string | null;
  [k: string]: unknown;
}

const sessionName = (run: string, ext: string): string => `${run}\0${ext}`;

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

/** An episode that is its own session's root. */
const rootSession = (key: number, split: string | null): SessionEntry => ({ key, rootKey: key, split });

/**
 * The root of each episode's parent chain, as the columnar cache finds it: a parent in this file, in this
 * import, or already in the store; a parent found nowhere, or a cycle, leaves the episode standing alone.
 */
async function sessionsOf(episodes: StagedEpisode[], index: SessionIndex): Promise<Map<number, SessionEntry>> {
  const inFile = new Map(episodes.map((e) => [sessionName(e.run, e.ext_id), e]));
  const missing = new Map<string, Set<string>>();
  for (const e of episodes) {
    if (e.parent_ext_id === null) continue;
    const name = sessionName(e.run, e.parent_ext_id);
    if (!inFile.has(name) && !index.known.has(episodeKey(e.run, e.parent_ext_id))) {
      let set = missing.get(e.run);
      if (!set) missing.set(e.run, (set = new Set()));
      set.add(e.parent_ext_id);
    }
  }
  const stored = new Map<string, SessionEntry>();
  for (const [run, ids] of missing) for (const [ext, entry] of await index.lookup(run, [...ids])) stored.set(sessionName(run, ext), entry);

  const out = new Map<number, SessionEntry>();
  for (const e of episodes) {
    const key = episodeKey(e.run, e.ext_id);
    let entry = rootSession(key, e.split);
    const seen = new Set([e.id]);
    let cur = e;
    for (;;) {
      if (cur.parent_ext_id === null || cur.parent_ext_id === cur.ext_id) break;
      const name = sessionName(cur.run, cur.parent_ext_id);
      const earlier = index.known.get(episodeKey(cur.run, cur.parent_ext_id)) ?? stored.get(name);
      if (earlier) {
        entry = { key, rootKey: earlier.rootKey, split: earlier.split };
        break;
      }
      const parent = inFile.get(name);
      if (!parent) break;
      if (seen.has(parent.id)) {
        entry = rootSession(key, e.split); // a cycle: left alone, as the columnar cache does
        break;
      }
      seen.add(parent.id);
      cur = parent;
      entry = { key, rootKey: episodeKey(cur.run, cur.ext_id), split: cur.split };
    }
    out.set(e.id, entry);
  }
  return out;
}

/** Each turn's position in its episode (by t, then insertion), the order the columnar cache reads turns in. */
const POSITIONS = `WITH tp AS (SELECT id, episode_id, ROW_NUMBER() OVER (PARTITION BY episode_id ORDER BY t, id) - 1 AS pos
  FROM turns WHERE episode_id IN (SELECT id FROM episodes WHERE source_id = @source))`;

export interface FileSummary {
  episodeKeys: number[];
  episodes: number;
  turns: number;
  runs: { run: string; source_format: string; source_path: string; policy_name: string | null; policy_kind: string | null }[];
}

/** Sends the rows of staged source `sourceId`, tagged with `importId`, to `sink`; registers its sessions in `index`. */
export async function stagedRows(staging: Db, sourceId: number, importId: number, index: SessionIndex, sink: RowSink): Promise<FileSummary> {
  // Only what root resolution needs, for the episodes on a subagent chain (those with a parent, and the parents):
  // every other episode is its own session's root. The full rows (task text…) are streamed below.
  const heads = staging
    .prepare(`SELECT e.id, r.name AS run, e.ext_id, e.parent_ext_id, e.split FROM episodes e JOIN runs r ON r.id = e.run_id
      WHERE e.source_id = ? AND (e.parent_ext_id IS NOT NULL
        OR e.ext_id IN (SELECT parent_ext_id FROM episodes WHERE source_id = ? AND parent_ext_id IS NOT NULL)) ORDER BY e.id`)
    .all(sourceId, sourceId) as StagedEpisode[];
  const sessions = await sessionsOf(heads, index);
  const modes = behaviourModes(staging);
  const summary: FileSummary = { episodeKeys: [], episodes: 0, turns: 0, runs: [] };
  /** What the turns pass needs of each episode (not its text: a file may hold hundreds of thousands). */
  const byId = new Map<number, { s: SessionEntry; run: string; success: unknown; child: number; difficulty: number | null }>();
  for (const e of staging
    .prepare(`SELECT e.*, r.name AS run, r.source_format, r.source_path, r.policy_name, r.policy_kind, x.task_text, x.system_prompt,
        x.policy_name AS episode_policy,
        -- A turn on another model than the episode's first: the controller called an expert (budget-modes).
        EXISTS (SELECT 1 FROM turns t2 WHERE t2.episode_id = e.id AND t2.model_id !=
          (SELECT t3.model_id FROM turns t3 WHERE t3.episode_id = e.id ORDER BY t3.t, t3.id LIMIT 1)) AS expert_call
      FROM episodes e JOIN runs r ON r.id = e.run_id LEFT JOIN episode_text x ON x.episode_id = e.id WHERE e.source_id = ? ORDER BY e.id`)
    .iterate(sourceId) as Iterable<StagedEpisode>) {
    // Off every subagent chain, an episode is its own session's root.
    const s = sessions.get(e.id) ?? rootSession(episodeKey(e.run, e.ext_id), e.split as string | null);
    index.known.set(s.key, { rootKey: s.rootKey, split: s.split });
    summary.episodes++;
    // A numeric difficulty as the columnar cache reads it (confusion's rows); anything else is none.
    const text = e.difficulty as string | null;
    const d = text === null || text.trim() === '' ? Number.NaN : Number(text);
    const difficulty = Number.isFinite(d) ? d : null;
    byId.set(e.id, { s, run: e.run, success: e.success, child: s.rootKey !== s.key ? 1 : 0, difficulty });
    summary.episodeKeys.push(s.key);
    if (!summary.runs.some((r) => r.run === e.run)) {
      summary.runs.push({ run: e.run, source_format: e.source_format as string, source_path: e.source_path as string, policy_name: e.policy_name as string | null, policy_kind: e.policy_kind as string | null });
    }
    sink.add('episodes', s.rootKey, tsvLine([
      importId, s.key, s.rootKey, e.run, e.ext_id, e.task_id, e.task_type, e.task_category, s.split, e.difficulty, difficulty,
      e.final_score, e.score_norm, e.success, e.expert_call, e.total_cost, Number(e.unpriced_turns) > 0 ? 0 : 1, e.unpriced_turns, e.n_turns, e.n_switches, e.n_errors,
      e.budget_mode, e.budget_usd, e.max_turns, e.train_step, e.exit_reason, e.kind, e.agent, e.parent_ext_id, e.started_at, e.task_text, e.system_prompt,
      modes(e.id), e.parent_t, e.expected_steps, e.episode_policy ?? e.policy_name, e.id,
    ]));
    if (sink.full()) await sink.flush();
  }
  // One pass over the file's turns in (episode, t) order (t is unique in an episode), an episode at a time: the
  // next turn's facts, positions and names are filled in here (the same query with window functions and joins for
  // them took three times as long).
  const modelNames = new Map(staging.prepare('SELECT id, name FROM models').raw().all() as [number, string][]);
  const nameOf = (id: unknown): string | null => (id === null ? null : (modelNames.get(id as number) ?? null));
  let episode: unknown[][] = [];
  const sendEpisode = async (): Promise<void> => {
    const ep = byId.get(episode[0]?.[0] as number);
    if (ep) {
      const { s, child, difficulty } = ep;
      const allKnown = episode.every((r) => r[14] !== 'none') ? 1 : 0;
      // The cumulative cost as the columnar cache adds it: float64 sums of float32 turn costs.
      let cumulative = 0;
      for (const [pos, r] of episode.entries()) {
        const [, t, modelId, prevModelId, switched, severity, actionType, tool, tin, tout, tcached, twrite, treason, loggedCost, costSource, latency,
          propensity, mask, verdict, verify, greedyId, wasGreedy, beta, role, sTilde, penalty, action, observation, detail] = r;
        const next = episode[pos + 1];
        const cost = costSource === 'none' ? null : (loggedCost as number);
        if (cost !== null) cumulative += Math.fround(cost);
        sink.add('turns', s.rootKey, tsvLine([
          importId, s.key, s.rootKey, ep.run, s.split, child, ep.success, allKnown, difficulty, pos, t, nameOf(modelId), nameOf(prevModelId), switched,
          next === undefined ? null : next[2] !== modelId ? 1 : 0, severity, next === undefined ? null : next[5], tool ?? actionType, actionType, tool,
          tin, tout, tcached, twrite, treason, cost, costSource, cumulative, latency, propensity, mask, verdict, verify,
          nameOf(greedyId), wasGreedy, beta, role, sTilde, penalty,
        ]));
        sink.add('turn_text', s.rootKey, tsvLine([importId, s.key, s.rootKey, pos, action, observation, detail]));
        summary.turns++;
      }
    }
    episode = [];
    if (sink.full()) await sink.flush();
  };
  for (const r of staging
    .prepare(`SELECT t.episode_id, t.t, t.model_id, t.prev_model_id, t.switched, t.max_severity, t.action_type, t.tool, t.tokens_in, t.tokens_out,
        t.tokens_cached, t.tokens_cache_write, t.tokens_reasoning, t.cost, t.cost_source, t.latency_ms, t.propensity, t.error_mask, t.verdict,
        t.verify_correct, t.greedy_model_id, t.was_greedy, t.beta, t.role, g.s_tilde, g.penalty, x.action, x.observation, x.detail
      FROM episodes e JOIN turns t ON t.episode_id = e.id LEFT JOIN targets g ON g.turn_id = t.id LEFT JOIN turn_text x ON x.turn_id = t.id
      WHERE e.source_id = ? ORDER BY t.episode_id, t.t`)
    .raw()
    .iterate(sourceId) as Iterable<unknown[]>) {
    if (episode.length > 0 && r[0] !== episode[0]?.[0]) await sendEpisode();
    episode.push(r);
  }
  if (episode.length > 0) await sendEpisode();
  const perTurn = async (table: ShardedTable, sql: string): Promise<void> => {
    for (const [episodeId, ...rest] of staging.prepare(sql).raw().iterate({ source: sourceId }) as Iterable<unknown[]>) {
      const ep = byId.get(episodeId as number);
      if (!ep) continue;
      const head = table === 'plan_edges' ? [importId, ep.s.key, ep.s.rootKey] : [importId, ep.s.key, ep.s.rootKey, ep.run];
      sink.add(table, ep.s.rootKey, tsvLine([...head, ...rest]));
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
  await perTurn('plan_edges', 'SELECT episode_id, round, rowid, src, dst FROM plan_edges WHERE episode_id IN (SELECT id FROM episodes WHERE source_id = @source)');
  return summary;
}
