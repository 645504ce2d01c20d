/**
 * One imported file's rows, as the ClickHouse store holds them. The file is first written to a staging SQLite
 * database by the same pipeline and EpisodeWriter as every import (pricing, error rules, switches, AEC targets:
 * one place for each fact), then read back here and reshaped: model names instead of ids, each episode keyed by
 * a hash of (run, episode id) and tied to its session's root, and the cross-turn columns the analyses need
 * (the next turn's switch and error, the cumulative cost) filled in.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { Row } from './connection.ts';

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

/** Sessions seen in this import, by `run \0 ext_id`; `lookup` asks the store for parents imported before. */
export interface SessionIndex {
  known: Map<string, SessionEntry>;
  lookup(run: string, extIds: string[]): Promise<Map<string, SessionEntry>>;
}

export interface FileRows {
  episodes: Row[];
  turns: Row[];
  turn_text: Row[];
  turn_errors: Row[];
  turn_candidates: Row[];
  plan_nodes: Row[];
  plan_edges: Row[];
  runs: Row[];
  nTurns: number;
}

interface StagedEpisode {
  id: number;
  run: string;
  source_format: string;
  source_path: string;
  policy_name: string | null;
  policy_kind: string | null;
  ext_id: string;
  parent_ext_id: string | null;
  split: string | null;
  [k: string]: unknown;
}

const sessionName = (run: string, ext: string): string => `${run}\0${ext}`;

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
    if (!inFile.has(name) && !index.known.has(name)) {
      let set = missing.get(e.run);
      if (!set) missing.set(e.run, (set = new Set()));
      set.add(e.parent_ext_id);
    }
  }
  const stored = new Map<string, SessionEntry>();
  for (const [run, ids] of missing) for (const [ext, entry] of await index.lookup(run, [...ids])) stored.set(sessionName(run, ext), entry);

  const out = new Map<number, SessionEntry>();
  const resolve = (e: StagedEpisode): SessionEntry => {
    const done = out.get(e.id);
    if (done) return done;
    const key = episodeKey(e.run, e.ext_id);
    let entry: SessionEntry = { key, rootKey: key, split: e.split };
    const seen = new Set([e.id]);
    let cur = e;
    for (;;) {
      if (cur.parent_ext_id === null || cur.parent_ext_id === cur.ext_id) break;
      const name = sessionName(cur.run, cur.parent_ext_id);
      const earlier = index.known.get(name) ?? stored.get(name);
      if (earlier) {
        entry = { key, rootKey: earlier.rootKey, split: earlier.split };
        break;
      }
      const parent = inFile.get(name);
      if (!parent) break;
      if (seen.has(parent.id)) {
        entry = { key, rootKey: key, split: e.split }; // a cycle: left alone, as the columnar cache does
        break;
      }
      seen.add(parent.id);
      cur = parent;
      entry = { key, rootKey: episodeKey(cur.run, cur.ext_id), split: cur.split };
    }
    out.set(e.id, entry);
    return entry;
  };
  for (const e of episodes) resolve(e);
  return out;
}

const bool = (x: unknown): number | null => (x === null || x === undefined ? null : Number(x));

/** The rows of staged source `sourceId`, tagged with `importId`; registers its sessions in `index`. */
export async function stagedRows(staging: Db, sourceId: number, importId: number, index: SessionIndex): Promise<FileRows> {
  const episodes = staging
    .prepare(`SELECT e.*, r.name AS run, r.source_format, r.source_path, r.policy_name, r.policy_kind,
        x.task_text, x.system_prompt
      FROM episodes e JOIN runs r ON r.id = e.run_id LEFT JOIN episode_text x ON x.episode_id = e.id
      WHERE e.source_id = ? ORDER BY e.id`)
    .all(sourceId) as StagedEpisode[];
  const sessions = await sessionsOf(episodes, index);
  const out: FileRows = { episodes: [], turns: [], turn_text: [], turn_errors: [], turn_candidates: [], plan_nodes: [], plan_edges: [], runs: [], nTurns: 0 };
  const runsSeen = new Set<string>();
  const turnsOf = staging.prepare(`SELECT t.id, t.t, m.name AS model, pm.name AS prev_model, t.switched, t.max_severity, t.action_type,
      t.tool, t.tokens_in, t.tokens_out, t.tokens_cached, t.tokens_cache_write, t.tokens_reasoning, t.cost, t.cost_source,
      t.latency_ms, t.propensity, t.error_mask, t.verdict, t.verify_correct, gm.name AS greedy_model, t.was_greedy, t.beta,
      t.role, g.s_tilde, g.penalty, x.action, x.observation, x.detail
    FROM turns t JOIN models m ON m.id = t.model_id LEFT JOIN models pm ON pm.id = t.prev_model_id
      LEFT JOIN models gm ON gm.id = t.greedy_model_id LEFT JOIN targets g ON g.turn_id = t.id
      LEFT JOIN turn_text x ON x.turn_id = t.id
    WHERE t.episode_id = ? ORDER BY t.t`);
  const errorsOf = staging.prepare(`SELECT e.turn_id, y.name AS error_type, e.severity, e.source FROM turn_errors e
    JOIN error_types y ON y.id = e.error_type_id JOIN turns t ON t.id = e.turn_id WHERE t.episode_id = ?`);
  const candidatesOf = staging.prepare(`SELECT c.turn_id, m.name AS model, c.logged_score FROM turn_candidates c
    JOIN models m ON m.id = c.model_id JOIN turns t ON t.id = c.turn_id WHERE t.episode_id = ?`);
  const nodesOf = staging.prepare(`SELECT p.turn_id, p.round, p.subtask_id, m.name AS model, p.primitive, p.status FROM plan_nodes p
    LEFT JOIN models m ON m.id = p.model_id WHERE p.episode_id = ? ORDER BY p.id`);
  const edgesOf = staging.prepare('SELECT round, src, dst FROM plan_edges WHERE episode_id = ?');

  for (const e of episodes) {
    const s = sessions.get(e.id) as SessionEntry;
    index.known.set(sessionName(e.run, e.ext_id), s);
    const isChild = s.rootKey !== s.key ? 1 : 0;
    const base = { import_id: importId, episode_key: s.key, root_key: s.rootKey };
    if (!runsSeen.has(e.run)) {
      runsSeen.add(e.run);
      out.runs.push({ import_id: importId, run: e.run, source_format: e.source_format, source_path: e.source_path, policy_name: e.policy_name, policy_kind: e.policy_kind });
    }
    out.episodes.push({
      ...base, run: e.run, ext_id: e.ext_id, task_id: e.task_id, task_type: e.task_type, task_category: e.task_category,
      split: s.split, difficulty: e.difficulty, final_score: e.final_score, score_norm: e.score_norm, success: bool(e.success),
      total_cost: e.total_cost, cost_known: Number(e.unpriced_turns) > 0 ? 0 : 1, unpriced_turns: e.unpriced_turns,
      n_turns: e.n_turns, n_switches: e.n_switches, n_errors: e.n_errors, budget_mode: e.budget_mode, budget_usd: e.budget_usd,
      max_turns: e.max_turns, train_step: e.train_step, exit_reason: e.exit_reason, kind: e.kind, agent: e.agent,
      parent_ext_id: e.parent_ext_id, started_at: e.started_at, task_text: e.task_text, system_prompt: e.system_prompt,
    });
    const turns = turnsOf.all(e.id) as Record<string, unknown>[];
    const posOf = new Map<number, number>();
    // The cumulative cost as the columnar cache adds it: float64 sums of float32 turn costs.
    const costs = turns.map((t) => (t.cost_source === 'none' ? Number.NaN : Math.fround(t.cost as number)));
    const allKnown = costs.every((c) => !Number.isNaN(c)) ? 1 : 0;
    let cumulative = 0;
    turns.forEach((t, pos) => {
      posOf.set(t.id as number, pos);
      const next = turns[pos + 1];
      const cost = costs[pos] as number;
      if (!Number.isNaN(cost)) cumulative += cost;
      out.turns.push({
        ...base, run: e.run, split: s.split, is_child: isChild, episode_success: bool(e.success), episode_turn_costs_known: allKnown,
        pos, t: t.t, model: t.model, prev_model: t.prev_model, switched: t.switched,
        next_switched: next ? next.switched : null, severity: t.max_severity, next_severity: next ? next.max_severity : null,
        category: t.tool ?? t.action_type, action_type: t.action_type, tool: t.tool, tokens_in: t.tokens_in, tokens_out: t.tokens_out,
        tokens_cached: t.tokens_cached, tokens_cache_write: t.tokens_cache_write, tokens_reasoning: t.tokens_reasoning,
        cost: Number.isNaN(cost) ? null : cost, cost_source: t.cost_source, cum_cost: cumulative, latency_ms: t.latency_ms,
        propensity: t.propensity, error_mask: t.error_mask, verdict: t.verdict, verify_correct: bool(t.verify_correct),
        greedy_model: t.greedy_model, was_greedy: bool(t.was_greedy), beta: t.beta, role: t.role, s_tilde: t.s_tilde, penalty: t.penalty,
      });
      out.turn_text.push({ ...base, pos, action: t.action, observation: t.observation, detail: t.detail });
    });
    out.nTurns += turns.length;
    for (const x of errorsOf.all(e.id) as Record<string, unknown>[]) {
      out.turn_errors.push({ ...base, run: e.run, pos: posOf.get(x.turn_id as number), error_type: x.error_type, severity: x.severity, source: x.source });
    }
    for (const x of candidatesOf.all(e.id) as Record<string, unknown>[]) {
      out.turn_candidates.push({ ...base, run: e.run, pos: posOf.get(x.turn_id as number), model: x.model, logged_score: x.logged_score });
    }
    for (const x of nodesOf.all(e.id) as Record<string, unknown>[]) {
      out.plan_nodes.push({
        ...base, run: e.run, pos: x.turn_id === null ? null : posOf.get(x.turn_id as number), round: x.round, subtask_id: x.subtask_id,
        model: x.model, primitive: x.primitive, status: x.status,
      });
    }
    for (const x of edgesOf.all(e.id) as Record<string, unknown>[]) out.plan_edges.push({ ...base, round: x.round, src: x.src, dst: x.dst });
  }
  return out;
}
