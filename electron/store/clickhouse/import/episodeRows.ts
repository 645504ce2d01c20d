/**
 * The rows of one episode as the ClickHouse store holds them, whichever way the import produced the episode
 * (resolved in memory, directRows.ts, or read back from a staging database, stagedRows.ts): model names instead
 * of ids, each episode keyed by a hash of (run, episode id) and tied to its session's root, and the cross-turn
 * columns the analyses need (the next turn's switch and error, the cumulative cost) filled in. Each row goes to the
 * sink as its values in COLUMNS order, which encodes it at once (rowBinary.ts): no object per row is kept.
 */
import { hash } from 'node:crypto';
import type { BehaviourMode } from '../../../../shared/behaviourModes.ts';

/** 52 bits of sha256(run, episode id): a JSON-safe integer, the same on every import of that episode. */
export function episodeKey(run: string, extId: string): number {
  // The one-shot hash: a Hash object per call cost three times as much, and each episode's key is asked for often.
  return Number.parseInt(hash('sha256', `${run}\0${extId}`, 'hex').slice(0, 13), 16);
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

/** An episode's log totals beside the imported figures (SQLite's episode_log_totals row less its key), in this order. */
export const LOG_TOTALS_COLUMNS = [
  'log_source', 'log_requests', 'log_tokens_in', 'log_tokens_out', 'log_tokens_cached', 'log_tokens_cache_write', 'log_tokens_cache_write_1h',
  'log_tokens_reasoning', 'log_cost', 'counted_requests', 'counted_tokens_in', 'counted_tokens_out', 'counted_tokens_cached',
  'counted_tokens_cache_write', 'counted_tokens_cache_write_1h', 'counted_tokens_reasoning', 'counted_cost', 'log_compared', 'log_differing', 'log_worst_rel',
] as const;
const NO_LOG_TOTALS: readonly null[] = LOG_TOTALS_COLUMNS.map(() => null);

/** The columns each sharded table is written with, in the order a row's values hold them. */
export const COLUMNS = {
  episodes: ['import_id', 'episode_key', 'root_key', 'run', 'ext_id', 'task_id', 'task_type', 'task_category', 'split', 'difficulty', 'difficulty_num',
    'detail', 'final_score', 'score_norm', 'success', 'expert_call', 'total_cost', 'cost_known', 'unpriced_turns', 'n_turns', 'n_switches', 'n_errors', 'budget_mode', 'budget_usd', 'max_turns',
    'train_step', 'exit_reason', 'kind', 'agent', 'parent_ext_id', 'started_at', 'task_text', 'system_prompt', 'behaviour_mode',
    'parent_t', 'expected_steps', 'policy_name', 'file_ord', ...LOG_TOTALS_COLUMNS, 'outcome'],
  turns: ['import_id', 'episode_key', 'root_key', 'run', 'split', 'is_child', 'episode_success', 'episode_turn_costs_known', 'episode_difficulty', 'pos', 't', 'model',
    'prev_model', 'switched', 'next_switched', 'severity', 'next_severity', 'category', 'action_type', 'tool', 'tokens_in', 'tokens_out', 'tokens_cached',
    'tokens_cache_write', 'tokens_reasoning', 'tokens_cache_write_1h', 'cost', 'cost_source', 'cum_cost', 'latency_ms', 'propensity', 'error_mask', 'verdict', 'verify_correct',
    'greedy_model', 'was_greedy', 'beta', 'role', 's_tilde', 'penalty', 'price_table', 'price_version', 'cache_tier'],
  turn_text: ['import_id', 'episode_key', 'root_key', 'pos', 'action', 'observation', 'detail'],
  messages: ['import_id', 'episode_key', 'root_key', 'seq', 't', 'role', 'text', 'timestamp'],
  turn_errors: ['import_id', 'episode_key', 'root_key', 'run', 'pos', 'error_type', 'severity', 'source'],
  turn_candidates: ['import_id', 'episode_key', 'root_key', 'run', 'pos', 'model', 'logged_score'],
  plan_nodes: ['import_id', 'episode_key', 'root_key', 'run', 'pos', 'round', 'ord', 'subtask_id', 'model', 'primitive', 'status'],
  plan_edges: ['import_id', 'episode_key', 'root_key', 'round', 'ord', 'src', 'dst'],
} as const;
export type ShardedTable = keyof typeof COLUMNS;

/**
 * Where a file's rows go: one row at a time (its values in COLUMNS order), with its table and shard key (the
 * session's root). When `full()`, the rows are sent (`flush`) before more are read, so memory stays bounded
 * whatever the file's size.
 */
export interface RowSink {
  add(table: ShardedTable, rootKey: number, values: unknown[]): void;
  full(): boolean;
  flush(): Promise<void>;
}

export interface FileSummary {
  episodeKeys: number[];
  episodes: number;
  turns: number;
  runs: { run: string; source_format: string; source_path: string; policy_name: string | null; policy_kind: string | null }[];
}

export const emptySummary = (): FileSummary => ({ episodeKeys: [], episodes: 0, turns: 0, runs: [] });

/** The first episode of a run in a file names the run's source and policy, as its runs row in SQLite does. */
export function noteRun(summary: FileSummary, run: FileSummary['runs'][number]): void {
  if (!summary.runs.some((r) => r.run === run.run)) summary.runs.push(run);
}

/** An episode's fields as the episodes table holds them (SQLite's values: 0/1 for booleans, null for none). */
export interface EpisodeRow {
  run: string;
  ext_id: string;
  task_id: unknown;
  task_type: unknown;
  task_category: unknown;
  difficulty: string | null;
  final_score: unknown;
  score_norm: unknown;
  success: unknown;
  /** A turn on another model than the episode's first: the controller called an expert (budget-modes). */
  expert_call: number;
  total_cost: unknown;
  unpriced_turns: number;
  n_turns: unknown;
  n_switches: unknown;
  n_errors: unknown;
  budget_mode: unknown;
  budget_usd: unknown;
  max_turns: unknown;
  train_step: unknown;
  exit_reason: unknown;
  kind: unknown;
  agent: unknown;
  parent_ext_id: string | null;
  started_at: unknown;
  task_text: unknown;
  system_prompt: unknown;
  parent_t: unknown;
  expected_steps: unknown;
  /** The episode's policy, else its run's. */
  policy_name: unknown;
  /** The episode's place in its file: the Episodes list's order within an import. */
  file_ord: number;
  /** episode_text.detail (episodeWriter.ts episodeDetail): what the row has no column for. */
  detail: unknown;
  /** episode_text.outcome (episodeWriter.ts outcomeExplanation): what explains the outcome. */
  outcome: unknown;
  /** Values of LOG_TOTALS_COLUMNS, or null when the log records no totals for the episode. */
  log_totals: readonly unknown[] | null;
}

/** What the rows of an episode's turns, errors, candidates and plans need to know of the episode. */
export interface EpisodeHead {
  s: SessionEntry;
  run: string;
  success: unknown;
  child: number;
  difficulty: number | null;
}

/** The episodes row of `e` in session `s`; registers it in `index` and `summary`. */
export function addEpisode(sink: RowSink, importId: number, s: SessionEntry, e: EpisodeRow, mode: BehaviourMode | null, index: SessionIndex, summary: FileSummary): EpisodeHead {
  index.known.set(s.key, { rootKey: s.rootKey, split: s.split });
  summary.episodes++;
  summary.episodeKeys.push(s.key);
  // A numeric difficulty as the columnar cache reads it (confusion's rows); anything else is none.
  const text = e.difficulty;
  const d = text === null || text.trim() === '' ? Number.NaN : Number(text);
  const difficulty = Number.isFinite(d) ? d : null;
  sink.add('episodes', s.rootKey, [
    importId, s.key, s.rootKey, e.run, e.ext_id, e.task_id, e.task_type, e.task_category, s.split, e.difficulty, difficulty,
    e.detail, e.final_score, e.score_norm, e.success, e.expert_call, e.total_cost, e.unpriced_turns > 0 ? 0 : 1, e.unpriced_turns, e.n_turns, e.n_switches, e.n_errors,
    e.budget_mode, e.budget_usd, e.max_turns, e.train_step, e.exit_reason, e.kind, e.agent, e.parent_ext_id, e.started_at, e.task_text, e.system_prompt,
    mode, e.parent_t, e.expected_steps, e.policy_name, e.file_ord, ...(e.log_totals ?? NO_LOG_TOTALS), e.outcome,
  ]);
  return { s, run: e.run, success: e.success, child: s.rootKey !== s.key ? 1 : 0, difficulty };
}

/** A turn as the turns table holds it, with its model names, target and text. */
export interface TurnRow {
  t: number;
  model: string | null;
  prev_model: string | null;
  switched: number;
  max_severity: number;
  action_type: unknown;
  tool: unknown;
  tokens_in: unknown;
  tokens_out: unknown;
  tokens_cached: unknown;
  tokens_cache_write: unknown;
  tokens_reasoning: unknown;
  tokens_cache_write_1h: unknown;
  cost: number;
  cost_source: string;
  latency_ms: unknown;
  propensity: unknown;
  error_mask: unknown;
  verdict: unknown;
  verify_correct: unknown;
  greedy_model: string | null;
  was_greedy: unknown;
  beta: unknown;
  role: unknown;
  s_tilde: unknown;
  penalty: unknown;
  /** How a priced cost was priced; null otherwise. */
  price_table: unknown;
  price_version: unknown;
  cache_tier: unknown;
  action: unknown;
  observation: unknown;
  detail: unknown;
}

/** The turns and turn_text rows of one episode's turns, in t order (their position is their index). */
export function addTurns(sink: RowSink, importId: number, ep: EpisodeHead, turns: readonly TurnRow[], summary: FileSummary): void {
  const { s, child, difficulty } = ep;
  const allKnown = turns.every((r) => r.cost_source !== 'none') ? 1 : 0;
  // The cumulative cost as the columnar cache adds it: float64 sums of float32 turn costs.
  let cumulative = 0;
  for (let pos = 0; pos < turns.length; pos++) {
    const r = turns[pos] as TurnRow;
    const next = turns[pos + 1];
    const cost = r.cost_source === 'none' ? null : r.cost;
    if (cost !== null) cumulative += Math.fround(cost);
    sink.add('turns', s.rootKey, [
      importId, s.key, s.rootKey, ep.run, s.split, child, ep.success, allKnown, difficulty, pos, r.t, r.model, r.prev_model, r.switched,
      next === undefined ? null : next.model !== r.model ? 1 : 0, r.max_severity, next === undefined ? null : next.max_severity, r.tool ?? r.action_type, r.action_type, r.tool,
      r.tokens_in, r.tokens_out, r.tokens_cached, r.tokens_cache_write, r.tokens_reasoning, r.tokens_cache_write_1h, cost, r.cost_source, cumulative, r.latency_ms, r.propensity, r.error_mask,
      r.verdict, r.verify_correct, r.greedy_model, r.was_greedy, r.beta, r.role, r.s_tilde, r.penalty, r.price_table, r.price_version, r.cache_tier,
    ]);
    sink.add('turn_text', s.rootKey, [importId, s.key, s.rootKey, pos, r.action, r.observation, r.detail]);
    summary.turns++;
  }
}

/**
 * A row of a table keyed by turn position, plan round or message order (errors, candidates, plan nodes and edges,
 * messages): `rest` in COLUMNS order.
 */
export function addTurnPart(sink: RowSink, table: Exclude<ShardedTable, 'episodes' | 'turns' | 'turn_text'>, importId: number, ep: EpisodeHead, rest: readonly unknown[]): void {
  const { key, rootKey } = ep.s;
  const r = rest;
  // Literal rows: a candidate row per model per turn makes this the most frequent row, and spreading a head and
  // `rest` into a new array cost more than encoding the row.
  let row: unknown[];
  switch (table) {
    case 'turn_candidates': row = [importId, key, rootKey, ep.run, r[0], r[1], r[2]]; break;
    case 'turn_errors': row = [importId, key, rootKey, ep.run, r[0], r[1], r[2], r[3]]; break;
    case 'plan_nodes': row = [importId, key, rootKey, ep.run, r[0], r[1], r[2], r[3], r[4], r[5], r[6]]; break;
    case 'plan_edges': row = [importId, key, rootKey, r[0], r[1], r[2], r[3]]; break;
    case 'messages': row = [importId, key, rootKey, r[0], r[1], r[2], r[3], r[4]]; break;
  }
  if (row.length - 3 - (table === 'plan_edges' || table === 'messages' ? 0 : 1) !== r.length) throw new Error(`${table}: a row part of ${r.length} values`);
  sink.add(table, rootKey, row);
}

/** A session's parent chain as both paths walk it: the episode's id in the file, its run, ids and split. */
export interface SessionEpisode {
  id: number;
  run: string;
  ext_id: string;
  parent_ext_id: string | null;
  split: string | null;
}

export const sessionName = (run: string, ext: string): string => `${run}\0${ext}`;

/** An episode that is its own session's root. */
export const rootSession = (key: number, split: string | null): SessionEntry => ({ key, rootKey: key, split });

/**
 * The root of each episode's parent chain, as the columnar cache finds it: a parent known to the import, one among
 * `episodes`, or one already in the store; a parent found nowhere, or a cycle, leaves the episode standing alone.
 */
export async function sessionsOf(episodes: readonly SessionEpisode[], index: SessionIndex): Promise<Map<number, SessionEntry>> {
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
