/** Read-side SQL for the turns of one episode, with their text, errors and candidate scores. */
import type { Db } from './dbHandle.ts';

export interface TurnRowRaw {
  id: number;
  t: number;
  model: string;
  switched: number;
  action_type: string;
  tool: string | null;
  action: string | null;
  observation: string | null;
  tokens_in: number | null;
  tokens_out: number | null;
  tokens_cached: number | null;
  tokens_cache_write: number | null;
  tokens_reasoning: number | null;
  role: string | null;
  detail: string | null;
  cost: number;
  cost_source: 'logged' | 'priced' | 'none';
  /** How a priced cost was priced (price_provenance); null otherwise, and for turns priced before it was kept. */
  price_table?: string | null;
  price_version?: string | null;
  cache_tier?: string | null;
  latency_ms: number | null;
  propensity: number | null;
  max_severity: number;
  greedy_model: string | null;
  was_greedy: number | null;
  beta: number | null;
}

/** Turns whose `t` lies in first…last (inclusive): one page of a long episode. */
export interface TurnSpan {
  first: number;
  last: number;
}

const ALL: TurnSpan = { first: Number.MIN_SAFE_INTEGER, last: Number.MAX_SAFE_INTEGER };

export function turnsOfEpisode(db: Db, episodeId: number, span: TurnSpan = ALL): TurnRowRaw[] {
  return db
    .prepare(`SELECT t.id, t.t, m.name AS model, t.switched, t.action_type, t.tool, x.action, x.observation,
      t.tokens_in, t.tokens_out, t.tokens_cached, t.tokens_cache_write, t.tokens_reasoning, t.role, x.detail,
      t.cost, t.cost_source, t.latency_ms, t.propensity, t.max_severity, g.name AS greedy_model, t.was_greedy, t.beta,
      p.price_table, p.version AS price_version, p.cache_tier
      FROM turns t JOIN models m ON m.id = t.model_id LEFT JOIN models g ON g.id = t.greedy_model_id
      LEFT JOIN turn_text x ON x.turn_id = t.id LEFT JOIN price_provenance p ON p.id = t.price_provenance_id
      WHERE t.episode_id = ? AND t.t BETWEEN ? AND ? ORDER BY t.t`)
    .all(episodeId, span.first, span.last) as TurnRowRaw[];
}

/** A row of `messages`: t is the turn it came before, null after the last turn. */
export interface MessageRowRaw {
  t: number | null;
  role: string;
  text: string;
  timestamp: string | null;
}

export function messagesOfEpisode(db: Db, episodeId: number): MessageRowRaw[] {
  return db
    .prepare('SELECT t, role, text, timestamp FROM messages WHERE episode_id = ? ORDER BY seq')
    .all(episodeId) as MessageRowRaw[];
}

/** The messages before turns of `span` (never those after the last turn, whose t is null). */
export function messagesOfSpan(db: Db, episodeId: number, span: TurnSpan): MessageRowRaw[] {
  return db
    .prepare('SELECT t, role, text, timestamp FROM messages WHERE episode_id = ? AND t BETWEEN ? AND ? ORDER BY seq')
    .all(episodeId, span.first, span.last) as MessageRowRaw[];
}

/** The messages after the last turn (t null). */
export function finalMessagesOfEpisode(db: Db, episodeId: number): MessageRowRaw[] {
  return db
    .prepare('SELECT t, role, text, timestamp FROM messages WHERE episode_id = ? AND t IS NULL ORDER BY seq')
    .all(episodeId) as MessageRowRaw[];
}

export interface TurnErrorRaw {
  turn_id: number;
  type: string;
  severity: number;
  source: 'log' | 'rule';
}

export function errorsOfEpisode(db: Db, episodeId: number, span: TurnSpan = ALL): TurnErrorRaw[] {
  return db
    .prepare(`SELECT te.turn_id, et.name AS type, te.severity, te.source FROM turn_errors te
      JOIN error_types et ON et.id = te.error_type_id JOIN turns t ON t.id = te.turn_id
      WHERE t.episode_id = ? AND t.t BETWEEN ? AND ? ORDER BY te.turn_id, te.severity DESC, et.name`)
    .all(episodeId, span.first, span.last) as TurnErrorRaw[];
}

export function candidatesOfEpisode(db: Db, episodeId: number, span: TurnSpan = ALL): { turn_id: number; model: string; score: number }[] {
  return db
    .prepare(`SELECT c.turn_id, m.name AS model, c.logged_score AS score FROM turn_candidates c
      JOIN models m ON m.id = c.model_id JOIN turns t ON t.id = c.turn_id WHERE t.episode_id = ? AND t.t BETWEEN ? AND ?`)
    .all(episodeId, span.first, span.last) as { turn_id: number; model: string; score: number }[];
}

/** Every turn of an episode, light: what an outline holds (models by id; `t` order). */
export interface TurnLineRaw {
  id: number;
  t: number;
  model_id: number;
  cost: number;
  cost_source: 'logged' | 'priced' | 'none';
  switched: number;
  max_severity: number;
}

export function turnLinesOfEpisode(db: Db, episodeId: number): TurnLineRaw[] {
  return db
    .prepare('SELECT id, t, model_id, cost, cost_source, switched, max_severity FROM turns WHERE episode_id = ? ORDER BY t')
    .all(episodeId) as TurnLineRaw[];
}

export interface EpisodeMetaRaw {
  id: number;
  task_id: string | null;
  task_type: string | null;
  split: string | null;
  task_text: string | null;
  expected_steps: number | null;
  score_norm: number | null;
  budget_usd: number | null;
  max_turns: number | null;
  policy_name: string | null;
  kind: string | null;
  agent: string | null;
  started_at: string | null;
  system_prompt: string | null;
  /** JSON of the outcome's explanation (episodeWriter.ts outcomeExplanation); null before schema 9. */
  outcome: string | null;
  unpriced_turns: number;
  run_id: number;
  parent_ext_id: string | null;
  parent_t: number | null;
  parent_id: number | null;
}

export function episodeMeta(db: Db, episodeId: number): EpisodeMetaRaw | undefined {
  return db
    .prepare(`SELECT e.id, e.task_id, e.task_type, e.split, x.task_text, e.expected_steps, e.score_norm, e.budget_usd, e.max_turns,
      COALESCE(x.policy_name, r.policy_name) AS policy_name, e.kind, e.agent, e.started_at, x.system_prompt, x.outcome, e.unpriced_turns,
      e.run_id, e.parent_ext_id, e.parent_t,
      (SELECT p.id FROM episodes p WHERE p.run_id = e.run_id AND p.ext_id = e.parent_ext_id) AS parent_id
      FROM episodes e JOIN runs r ON r.id = e.run_id LEFT JOIN episode_text x ON x.episode_id = e.id WHERE e.id = ?`)
    .get(episodeId) as EpisodeMetaRaw | undefined;
}

export interface ChildEpisodeRaw {
  id: number;
  ext_id: string;
  kind: string | null;
  parent_t: number | null;
  n_turns: number;
  total_cost: number;
  unpriced_turns: number;
  models: string | null;
}

/** Episodes launched by this one (subagent and compaction sidechains), in the order of the turns that launched them. */
export function childrenOfEpisode(db: Db, runId: number, extId: string): ChildEpisodeRaw[] {
  return db
    .prepare(`SELECT e.id, e.ext_id, e.kind, e.parent_t, e.n_turns, e.total_cost, e.unpriced_turns,
        (SELECT json_group_array(m.name) FROM episode_models em JOIN models m ON m.id = em.model_id WHERE em.episode_id = e.id) AS models
      FROM episodes e WHERE e.run_id = ? AND e.parent_ext_id = ? ORDER BY e.parent_t IS NULL, e.parent_t, e.id`)
    .all(runId, extId) as ChildEpisodeRaw[];
}
