/**
 * Forward-only, numbered schema migrations (DESIGN §2). Each migration's SQL is hashed into
 * `schema_version`, so a database whose history differs from this file is detected instead of silently
 * reused. Never edit a released migration: add the next one.
 */
import { createHash } from 'node:crypto';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'core tables',
    sql: `
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  source_format TEXT NOT NULL,
  source_path TEXT,
  imported_at TEXT NOT NULL,
  policy_name TEXT,
  policy_kind TEXT,
  notes TEXT
);
CREATE TABLE models (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  provider TEXT,
  price_in_per_m REAL,
  price_out_per_m REAL,
  price_cached_per_m REAL,
  max_input_tokens INTEGER,
  max_output_tokens INTEGER,
  knowledge_cutoff TEXT,
  tier TEXT,
  in_pool INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE model_aliases (
  alias TEXT PRIMARY KEY,
  model_id INTEGER NOT NULL REFERENCES models(id)
);
CREATE TABLE episodes (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  ext_id TEXT NOT NULL,
  task_id TEXT,
  task_type TEXT,
  task_category TEXT,
  split TEXT,
  difficulty TEXT,
  final_score REAL,
  score_lo REAL,
  score_hi REAL,
  score_norm REAL,
  success INTEGER,
  total_cost REAL NOT NULL DEFAULT 0,
  logged_cost REAL,
  grader_cost REAL NOT NULL DEFAULT 0,
  n_turns INTEGER NOT NULL DEFAULT 0,
  n_errors INTEGER NOT NULL DEFAULT 0,
  n_switches INTEGER NOT NULL DEFAULT 0,
  expected_steps INTEGER,
  exit_reason TEXT,
  budget_usd REAL,
  budget_mode TEXT,
  max_turns INTEGER,
  train_step INTEGER,
  started_at TEXT,
  source_id INTEGER REFERENCES sources(id) ON DELETE SET NULL,
  UNIQUE (run_id, ext_id)
);
CREATE TABLE episode_text (
  episode_id INTEGER PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
  task_text TEXT,
  policy_name TEXT
);
CREATE TABLE turns (
  id INTEGER PRIMARY KEY,
  episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
  t INTEGER NOT NULL,
  model_id INTEGER NOT NULL REFERENCES models(id),
  prev_model_id INTEGER REFERENCES models(id),
  switched INTEGER NOT NULL DEFAULT 0,
  action_type TEXT NOT NULL,
  tool TEXT,
  tokens_in INTEGER,
  tokens_out INTEGER,
  tokens_cached INTEGER,
  cost REAL NOT NULL DEFAULT 0,
  cost_source TEXT NOT NULL CHECK (cost_source IN ('logged', 'priced', 'none')),
  latency_ms REAL,
  propensity REAL,
  error_mask INTEGER NOT NULL DEFAULT 0,
  max_severity INTEGER NOT NULL DEFAULT 0,
  verdict TEXT,
  verify_correct INTEGER,
  UNIQUE (episode_id, t)
);
CREATE INDEX turns_model ON turns(model_id);
CREATE TABLE turn_text (
  turn_id INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
  action TEXT,
  observation TEXT
);
CREATE VIRTUAL TABLE turn_fts USING fts5(action, observation, content='turn_text', content_rowid='turn_id');
CREATE TRIGGER turn_text_ad AFTER DELETE ON turn_text BEGIN
  INSERT INTO turn_fts(turn_fts, rowid, action, observation) VALUES ('delete', old.turn_id, old.action, old.observation);
END;
CREATE TABLE error_types (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
CREATE TABLE turn_errors (
  turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
  error_type_id INTEGER NOT NULL REFERENCES error_types(id),
  severity INTEGER NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('log', 'rule')),
  PRIMARY KEY (turn_id, error_type_id)
);
-- Per episode and model: a summary kept at import so run and episode listings never scan all turns
-- (listing runs over 500k turns took ~760 ms by scanning turns; this table has one row per episode-model pair).
CREATE TABLE episode_models (
  episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
  model_id INTEGER NOT NULL REFERENCES models(id),
  n_turns INTEGER NOT NULL,
  priced_turns INTEGER NOT NULL,
  cost REAL NOT NULL,
  PRIMARY KEY (episode_id, model_id)
) WITHOUT ROWID;
CREATE INDEX episode_models_model ON episode_models(model_id, episode_id);
-- Sort keys of the Episodes table: deep pages of a sorted 30k-episode list otherwise sort the whole table.
CREATE INDEX episodes_total_cost ON episodes(total_cost);
CREATE INDEX episodes_n_turns ON episodes(n_turns);
CREATE INDEX episodes_n_errors ON episodes(n_errors);
CREATE INDEX episodes_score_norm ON episodes(score_norm);
CREATE TABLE grader_calls (
  id INTEGER PRIMARY KEY,
  episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
  model_id INTEGER NOT NULL REFERENCES models(id),
  tokens_in INTEGER,
  tokens_out INTEGER,
  cost REAL NOT NULL DEFAULT 0,
  cost_source TEXT NOT NULL CHECK (cost_source IN ('logged', 'priced', 'none')),
  text TEXT
);
CREATE TABLE turn_candidates (
  turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
  model_id INTEGER NOT NULL REFERENCES models(id),
  logged_score REAL NOT NULL,
  PRIMARY KEY (turn_id, model_id)
);
CREATE TABLE plan_nodes (
  id INTEGER PRIMARY KEY,
  episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
  turn_id INTEGER REFERENCES turns(id) ON DELETE CASCADE,
  round INTEGER NOT NULL,
  subtask_id TEXT NOT NULL,
  model_id INTEGER REFERENCES models(id),
  primitive TEXT,
  status TEXT,
  obs_chars INTEGER
);
CREATE TABLE plan_edges (
  episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
  round INTEGER NOT NULL,
  src TEXT NOT NULL,
  dst TEXT NOT NULL
);
CREATE TABLE targets (
  turn_id INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
  s_tilde REAL,
  penalty REAL NOT NULL
);
CREATE TABLE sources (
  id INTEGER PRIMARY KEY,
  content_hash TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL,
  format TEXT NOT NULL,
  imported_at TEXT NOT NULL,
  episodes INTEGER NOT NULL
);
CREATE TABLE estimators (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  encoder TEXT NOT NULL,
  config_json TEXT NOT NULL,
  metrics_json TEXT,
  onnx_path TEXT
);
CREATE TABLE estimates (
  estimator_id INTEGER NOT NULL REFERENCES estimators(id) ON DELETE CASCADE,
  turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
  model_id INTEGER NOT NULL REFERENCES models(id),
  s_hat REAL NOT NULL,
  PRIMARY KEY (estimator_id, turn_id, model_id)
);
`,
  },
  {
    version: 2,
    name: 'estimator scoring: model file identity, history sketches for what-if neighbours',
    sql: `
ALTER TABLE estimators ADD COLUMN onnx_sha256 TEXT;
ALTER TABLE estimators ADD COLUMN provider TEXT;
ALTER TABLE estimators ADD COLUMN scored_at TEXT;
CREATE INDEX estimators_sha ON estimators(onnx_sha256);
CREATE TABLE history_sketches (
  turn_id INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
  vec BLOB NOT NULL
);
`,
  },
  {
    version: 3,
    name: "the logging router's mixed decision per turn: greedy model, whether it was taken, beta",
    sql: `
ALTER TABLE turns ADD COLUMN greedy_model_id INTEGER REFERENCES models(id);
ALTER TABLE turns ADD COLUMN was_greedy INTEGER;
ALTER TABLE turns ADD COLUMN beta REAL;
`,
  },
  {
    version: 4,
    name: "everyday agents' logs: cache-write and reasoning tokens, roles, tool calls, child episodes, unknown cost",
    sql: `
ALTER TABLE turns ADD COLUMN tokens_cache_write INTEGER;
ALTER TABLE turns ADD COLUMN tokens_reasoning INTEGER;
ALTER TABLE turns ADD COLUMN role TEXT;
ALTER TABLE turn_text ADD COLUMN detail TEXT;
ALTER TABLE episodes ADD COLUMN unpriced_turns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE episodes ADD COLUMN parent_ext_id TEXT;
ALTER TABLE episodes ADD COLUMN parent_t INTEGER;
ALTER TABLE episodes ADD COLUMN kind TEXT;
ALTER TABLE episodes ADD COLUMN agent TEXT;
ALTER TABLE episode_text ADD COLUMN system_prompt TEXT;
ALTER TABLE models ADD COLUMN price_cache_write_per_m REAL;
ALTER TABLE models ADD COLUMN price_source TEXT;
CREATE INDEX episodes_parent ON episodes(run_id, parent_ext_id) WHERE parent_ext_id IS NOT NULL;
UPDATE episodes SET unpriced_turns = (SELECT COUNT(*) FROM turns t WHERE t.episode_id = episodes.id AND t.cost_source = 'none')
  WHERE logged_cost IS NULL;
`,
  },
  {
    version: 5,
    name: 'per episode × model token sums and unknown-cost calls, so Compare attributes cost without scanning turns',
    sql: `
ALTER TABLE episode_models ADD COLUMN tokens_in INTEGER;
ALTER TABLE episode_models ADD COLUMN tokens_out INTEGER;
ALTER TABLE episode_models ADD COLUMN tokens_cached INTEGER;
ALTER TABLE episode_models ADD COLUMN tokens_cache_write INTEGER;
ALTER TABLE episode_models ADD COLUMN unknown_turns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE episode_models ADD COLUMN first_t INTEGER;
UPDATE episode_models SET
  tokens_in = (SELECT SUM(t.tokens_in) FROM turns t WHERE t.episode_id = episode_models.episode_id AND t.model_id = episode_models.model_id),
  tokens_out = (SELECT SUM(t.tokens_out) FROM turns t WHERE t.episode_id = episode_models.episode_id AND t.model_id = episode_models.model_id),
  tokens_cached = (SELECT SUM(t.tokens_cached) FROM turns t WHERE t.episode_id = episode_models.episode_id AND t.model_id = episode_models.model_id),
  tokens_cache_write = (SELECT SUM(t.tokens_cache_write) FROM turns t WHERE t.episode_id = episode_models.episode_id AND t.model_id = episode_models.model_id),
  unknown_turns = (SELECT COUNT(*) FROM turns t WHERE t.episode_id = episode_models.episode_id AND t.model_id = episode_models.model_id AND t.cost_source = 'none'),
  first_t = (SELECT MIN(t.t) FROM turns t WHERE t.episode_id = episode_models.episode_id AND t.model_id = episode_models.model_id);
`,
  },
  {
    version: 6,
    name: "settings of the database itself (the estimator in use), so the window, serve and the CLI agree",
    sql: `
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`,
  },
  {
    version: 7,
    name: 'every message of a conversation (inputs before each turn, messages after the last), searchable; one-hour cache writes; episode facts without a column',
    sql: `
-- One row per message that is not a model response: t names the turn it reached the model before, NULL after the
-- last response (final_messages); seq orders all of an episode's messages. Written one statement per episode.
CREATE TABLE messages (
  id INTEGER PRIMARY KEY,
  episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
  t INTEGER,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  text TEXT NOT NULL,
  timestamp TEXT
);
CREATE INDEX messages_episode ON messages(episode_id, seq);
-- Its own index beside turn_fts, so an upgrade leaves turn_fts as it is (no rebuild of every turn's text).
CREATE VIRTUAL TABLE message_fts USING fts5(text, content='messages', content_rowid='id');
CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
  INSERT INTO message_fts(message_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
ALTER TABLE turns ADD COLUMN tokens_cache_write_1h INTEGER;
-- JSON of what the episode row has no column for (the agent as logged, the parent's tool call, per-model usage totals).
ALTER TABLE episode_text ADD COLUMN detail TEXT;
`,
  },
  {
    version: 8,
    name: "the log's own totals per episode beside RouteLens's figures; where each priced turn's price came from",
    sql: `
-- One row per episode whose log records its own totals (log_totals): the log's figure per kind (NULL: not totalled)
-- beside the turns' for the same kind (counted_*: NULL when the turns do not carry it or it is unknown), how many
-- kinds were compared (those both carry) and how many differ by more than 0.5%, so run listings say reconciled /
-- differs / not comparable without re-reading turns.
CREATE TABLE episode_log_totals (
  episode_id INTEGER PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
  source TEXT NOT NULL,
  requests INTEGER,
  tokens_in INTEGER,
  tokens_out INTEGER,
  tokens_cached INTEGER,
  tokens_cache_write INTEGER,
  tokens_cache_write_1h INTEGER,
  tokens_reasoning INTEGER,
  cost REAL,
  counted_requests INTEGER NOT NULL,
  counted_tokens_in INTEGER,
  counted_tokens_out INTEGER,
  counted_tokens_cached INTEGER,
  counted_tokens_cache_write INTEGER,
  counted_tokens_cache_write_1h INTEGER,
  counted_tokens_reasoning INTEGER,
  counted_cost REAL,
  compared INTEGER NOT NULL,
  differing INTEGER NOT NULL,
  worst_rel REAL
) WITHOUT ROWID;
-- The few distinct ways a turn was priced (price table, its version, cache-write tier): turns keep one small id.
CREATE TABLE price_provenance (
  id INTEGER PRIMARY KEY,
  price_table TEXT NOT NULL,
  version TEXT NOT NULL DEFAULT '',
  cache_tier TEXT NOT NULL CHECK (cache_tier IN ('none', '5m', '1h', '5m+1h')),
  UNIQUE (price_table, version, cache_tier)
);
-- NULL for logged and unknown costs, and for turns priced before this version (how they were priced is not known).
ALTER TABLE turns ADD COLUMN price_provenance_id INTEGER REFERENCES price_provenance(id);
`,
  },
  {
    version: 9,
    name: "what explains an episode's outcome: target, the agent's answer, scorers and judges with their explanations, harness tests",
    sql: `
-- JSON of the outcome's explanation as the log gives it (canonical OutcomeExplanation): '{}' when the log has none,
-- NULL for episodes imported before this version (their log was not read for it: re-import to see it).
ALTER TABLE episode_text ADD COLUMN outcome TEXT;
`,
  },
  {
    version: 10,
    name: 'following logs as agents write them: a cursor per followed file, the folders followed, alert rules and the alerts they fired, when each episode was last active',
    sql: `
-- One row per file a watcher follows (issue 36). cursor: the byte just after the last complete line committed;
-- head_hash / tail_hash: SHA-256 of up to 4 KiB at the start and just before the cursor, to tell an append from a
-- rewrite; dev / ino as text (they overflow a double). source_id: the sources row holding the file's episodes.
CREATE TABLE followed_files (
  path TEXT PRIMARY KEY,
  source_id INTEGER REFERENCES sources(id) ON DELETE SET NULL,
  format TEXT NOT NULL,
  dev TEXT NOT NULL,
  ino TEXT NOT NULL,
  size INTEGER NOT NULL,
  cursor INTEGER NOT NULL,
  head_hash TEXT NOT NULL,
  tail_hash TEXT NOT NULL,
  mtime_ms REAL NOT NULL,
  changed_at TEXT NOT NULL,
  state TEXT NOT NULL
);
CREATE TABLE followed_roots (
  path TEXT PRIMARY KEY,
  added_at TEXT NOT NULL
);
CREATE TABLE alert_rules (
  id INTEGER PRIMARY KEY,
  rule TEXT NOT NULL UNIQUE,
  enabled INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL
);
-- Keyed by run and episode names, not ids: an episode rewritten by a re-import keeps the alerts it fired.
CREATE TABLE alerts (
  id INTEGER PRIMARY KEY,
  run TEXT NOT NULL,
  episode TEXT NOT NULL,
  rule TEXT NOT NULL,
  fired_at TEXT NOT NULL,
  message TEXT NOT NULL,
  UNIQUE (run, episode, rule)
);
-- The latest timestamp the log gives an episode (a turn's or a message's), ISO 8601 UTC; no row when it gives none.
CREATE TABLE episode_activity (
  episode_id INTEGER PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
  last_at TEXT NOT NULL
);
`,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS.length;

export function migrationChecksum(m: Migration): string {
  return createHash('sha256').update(m.sql).digest('hex').slice(0, 16);
}
