/**
 * The one API contract between the UI and the core (STYLE §1–2). Each entry names a call with a zod
 * schema for its input and its output. Three transports carry it unchanged: Electron IPC (preload exposes
 * `window.routelens`), HTTP in `serve` mode (POST /api/<name>), and direct calls (CLI, tests). Both ends
 * validate with these schemas, so a payload that does not match is rejected at the boundary.
 */
import { z } from 'zod';
import { estimatorContract } from './apiEstimator.ts';
import { OutcomeExplanation, Severity } from './canonical.ts';
import { compareContract } from './apiCompare.ts';
import { replayContract } from './apiReplay.ts';
import { nameRecord } from './nameRecord.ts';
import { TURN_PAGE } from './turnPage.ts';
import { analysisContract } from './apiAnalysis.ts';
import { alertsContract } from './apiAlerts.ts';
import { caseContract } from './apiCase.ts';
import { liveContract } from './apiLive.ts';

const id = z.number().int().nonnegative();
const nullableNumber = z.number().nullable();

/**
 * A run against the totals its logs record for each episode (`log_totals`), compared with the episodes' turns on
 * each kind both carry: `reconciled` when every episode compared agrees within 0.5%, `differs` when some do not,
 * `not comparable` when the logs total only what the turns do not carry (Copilot's per-session tokens, a cost that
 * is the log's own total), and `no totals in the log` when no episode has any. Only compared figures reconcile.
 */
export const RunLogTotals = z.object({
  status: z.enum(['reconciled', 'differs', 'not comparable', 'no totals in the log']),
  episodes_with_totals: z.number().int(),
  episodes_differing: z.number().int(),
  /** Episodes with totals but no kind the turns carry too: not checked, never counted as agreeing. */
  episodes_not_comparable: z.number().int(),
  /** The largest |turns − log| / log among the differing figures; null when none has both sides known. */
  worst_rel: nullableNumber,
  /** Over the episodes whose log cost and turns' cost are both known: the log's sum and the turns'. */
  log_cost: nullableNumber,
  counted_cost: nullableNumber,
});
export type RunLogTotals = z.infer<typeof RunLogTotals>;

export const RunSummary = z.object({
  id,
  name: z.string(),
  format: z.string(),
  source_path: z.string().nullable(),
  imported_at: z.string(),
  policy_name: z.string().nullable(),
  /** Sessions: child episodes (subagents, compactions) are part of their parent's and counted in child_episodes. */
  episodes: z.number().int(),
  /** Every model call, child episodes' included. */
  turns: z.number().int(),
  models: z.array(z.string()),
  /** Null when some cost is unknown (unpriced_episodes > 0): shown as "≥ known_cost (N calls unpriced)", never as a total. */
  total_cost: nullableNumber,
  /** Sum of the costs that are known: the total when total_cost is known, else a lower bound of it. */
  known_cost: z.number(),
  /** Calls of unknown cost (no logged cost, no price), child episodes' included. */
  unpriced_turns: z.number().int(),
  /** Share of sessions with success = true among those with a known outcome; null when none is known. */
  success_rate: nullableNumber,
  mean_score_norm: nullableNumber,
  /** Sessions without an outcome: left out of success_rate and mean_score_norm, not counted as failures. */
  unknown_outcome: z.number().int(),
  /** Sessions with a call of unknown cost not covered by a logged total. */
  unpriced_episodes: z.number().int(),
  child_episodes: z.number().int(),
  priced_turns: z.number().int(),
  log_totals: RunLogTotals,
});
export type RunSummary = z.infer<typeof RunSummary>;

export const ModelInfo = z.object({
  id,
  name: z.string(),
  provider: z.string().nullable(),
  price_in_per_m: nullableNumber,
  price_out_per_m: nullableNumber,
  tier: z.string().nullable(),
  /** Index into the shared model palette, stable across views and exports. */
  color_index: z.number().int(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

export const EPISODE_SORT_COLUMNS = [
  'id', 'run', 'ext_id', 'task_category', 'n_turns', 'total_cost', 'final_score', 'success', 'n_errors', 'n_switches',
] as const;
export const EpisodeSortColumn = z.enum(EPISODE_SORT_COLUMNS);
export type EpisodeSortColumn = z.infer<typeof EpisodeSortColumn>;

export const EpisodeQuery = z.object({
  runIds: z.array(id).max(1000).optional(),
  /** Episodes that used any of these models at some turn. */
  models: z.array(z.string().max(300)).max(100).optional(),
  outcome: z.enum(['any', 'success', 'failure', 'unknown']).default('any'),
  /** Only the episodes whose id from the log is exactly this, in any run (the palette's "open by id"). */
  ext_id: z.string().min(1).max(300).optional(),
  /**
   * Full-text search over actions, observations and the conversation's other messages (mid-session prompts, system
   * text, summaries, messages after the last response) (FTS5; words are ANDed, matched as prefixes).
   */
  search: z.string().max(500).optional(),
  sort: EpisodeSortColumn.default('id'),
  desc: z.boolean().default(false),
  offset: z.number().int().nonnegative().default(0),
  limit: z.number().int().positive().max(5000).default(200),
});
export type EpisodeQuery = z.input<typeof EpisodeQuery>;

/** Where a full-text search matched in an episode: its first matching turn, with the matching text around the hit. */
export const SearchHit = z.object({
  /** The turn's number as the log gives it (shown). */
  t: z.number().int(),
  /** Its position in the episode, as the inspector's links address turns (`#/episode/<id>/turn/<index>`). */
  index: z.number().int().nonnegative(),
  /** How many of the episode's turns match. */
  turns: z.number().int().positive(),
  /** `message`: a message before the turn (one of its `inputs`) or, with `message.final`, after the episode's last turn. */
  field: z.enum(['action', 'observation', 'message']),
  /** Log text around the hit in pieces, `hit` on the matched words: rendered as text, never as markup. */
  snippet: z.array(z.object({ text: z.string(), hit: z.boolean() })),
  /**
   * Which message matched when `field` is `message`: its role and its place among the turn's `inputs` (or among the
   * episode's `final_messages` when `final`, then `t` and `index` name the last turn).
   */
  message: z.object({ role: z.string(), index: z.number().int().nonnegative(), final: z.boolean() }).nullable().optional(),
});
export type SearchHit = z.infer<typeof SearchHit>;

export const EpisodeRow = z.object({
  id,
  run_id: id,
  run: z.string(),
  ext_id: z.string(),
  task_category: z.string().nullable(),
  n_turns: z.number().int(),
  /** Null when a call's cost is unknown (no logged cost, no price): shown as "≥ known_cost (N calls unpriced)", never as a total. */
  total_cost: nullableNumber,
  /** The part of the cost that is known: total_cost when that is known, else a lower bound. */
  known_cost: z.number(),
  /** Calls of unknown cost; 0 when the log gives only the episode's total (then total_cost is that total). */
  unpriced_turns: z.number().int(),
  final_score: nullableNumber,
  score_norm: nullableNumber,
  success: z.boolean().nullable(),
  exit_reason: z.string().nullable(),
  n_errors: z.number().int(),
  n_switches: z.number().int(),
  models: z.array(z.string()),
  /** Only in a searched list: where the search matched (null when the episode's id matched, not its text). */
  match: SearchHit.nullable().optional(),
});
export type EpisodeRow = z.infer<typeof EpisodeRow>;

export const EpisodePage = z.object({ total: z.number().int(), rows: z.array(EpisodeRow) });
export type EpisodePage = z.infer<typeof EpisodePage>;

export const TurnErrorInfo = z.object({
  type: z.string(),
  severity: Severity,
  /** 'log' when the log carried it, 'rule' when an error rule detected it. */
  source: z.enum(['log', 'rule']),
});
export type TurnErrorInfo = z.infer<typeof TurnErrorInfo>;

/** A message of the conversation that is not a model response (canonical `ConversationMessage`), as stored. */
export const MessageDetail = z.object({
  /** One of the canonical MESSAGE_ROLES (`user`, `system`, `summary`, `assistant`, `tool`). */
  role: z.string(),
  text: z.string(),
  timestamp: z.string().nullable(),
});
export type MessageDetail = z.infer<typeof MessageDetail>;

export const TurnDetail = z.object({
  id,
  t: z.number().int(),
  model: z.string(),
  switched: z.boolean(),
  action_type: z.string(),
  tool: z.string().nullable(),
  action: z.string().nullable(),
  observation: z.string().nullable(),
  tokens_in: nullableNumber,
  tokens_out: nullableNumber,
  tokens_cached: nullableNumber,
  tokens_cache_write: nullableNumber,
  tokens_reasoning: nullableNumber,
  /** Null when the cost is unknown (cost_source 'none'): shown as '—', never $0. */
  cost: nullableNumber,
  cost_source: z.enum(['logged', 'priced', 'none']),
  /**
   * For a priced cost, how it was priced: `pool.json, cache 5m`, `genai-prices 0.1.8, no cache writes`; null for a
   * logged or unknown cost, and for a turn priced by a version that did not record it (shown as such).
   */
  price_provenance: z.string().nullable(),
  /** Cost of turns 0..t; null from the first turn of unknown cost on (a partial sum is not a total). */
  cumulative_cost: nullableNumber,
  /** The agent's part at this turn (Aider `architect` / `editor`, `compaction`). */
  role: z.string().nullable(),
  reasoning: z.string().nullable(),
  /** The model's own text in this response when the action is a summary of what it did. */
  message: z.string().nullable(),
  tool_calls: z.array(
    z.object({
      id: z.string().nullish(),
      name: z.string(),
      input: z.string().nullish(),
      result: z.string().nullish(),
      is_error: z.boolean().nullish(),
    }),
  ),
  /** What the importer inferred rather than read (shown as such). */
  notes: z.array(z.string()),
  /**
   * Messages that reached the model between the previous response and this one (mid-session prompts, injected
   * system text, compaction summaries), in order; the results of the previous turn's tool calls are on its calls.
   */
  inputs: z.array(MessageDetail),
  timestamp: z.string().nullable(),
  latency_ms: nullableNumber,
  propensity: nullableNumber,
  candidates: nameRecord(z.number()),
  /** The logging router's mixed decision (canonical `turns[].router`); null when the log has none. */
  router: z
    .object({ greedy_model: z.string().nullable(), was_greedy: z.boolean().nullable(), beta: nullableNumber })
    .nullable(),
  errors: z.array(TurnErrorInfo),
  max_severity: Severity.nullable(),
  s_tilde: nullableNumber,
  penalty: nullableNumber,
});
export type TurnDetail = z.infer<typeof TurnDetail>;

export { TURN_PAGE } from './turnPage.ts';

/** How a turn's cost was known, by code in an outline: 0 logged, 1 priced, 2 none (unknown). */
export const COST_SOURCES = ['logged', 'priced', 'none'] as const;

/**
 * What the timeline, the turn list, the navigation keys and the step debugger need of every turn, one array per
 * field (a million turns are tens of megabytes this way, not gigabytes of TurnDetail).
 */
export const TurnOutline = z.object({
  models: z.array(z.string()),
  /** Per turn: its index into `models`. */
  model: z.array(z.number().int().nonnegative()),
  t: z.array(z.number().int()),
  /** Null where the cost is unknown. */
  cost: z.array(nullableNumber),
  /** Per turn: its index into COST_SOURCES. */
  cost_source: z.array(z.number().int().min(0).max(2)),
  switched: z.array(z.union([z.literal(0), z.literal(1)])),
  /** The turns with errors, by index, each error as TurnDetail gives it. */
  errors: z.array(z.object({ i: z.number().int().nonnegative(), errors: z.array(TurnErrorInfo).min(1), max_severity: Severity })),
});
export type TurnOutline = z.infer<typeof TurnOutline>;

export const EpisodeDetail = z.object({
  episode: EpisodeRow.extend({
    task_id: z.string().nullable(),
    task_type: z.string().nullable(),
    /** The data split (shared/splits.ts); null when the log names none. */
    split: z.string().nullable(),
    task_text: z.string().nullable(),
    expected_steps: z.number().int(),
    budget_usd: nullableNumber,
    max_turns: nullableNumber,
    policy_name: z.string().nullable(),
    /** `subagent`, `compaction`…; null for a session. */
    kind: z.string().nullable(),
    agent: z.string().nullable(),
    started_at: z.string().nullable(),
    system_prompt: z.string().nullable(),
    /** The episode that launched this one (a subagent's session); id null when it is not in the database. */
    parent: z.object({ id: id.nullable(), ext_id: z.string(), t: z.number().int().nullable() }).nullable(),
    /**
     * What explains the outcome, as the log gives it (target, the agent's answer, scorers and judges, harness tests,
     * the importer's notes); `{}` when the log has none of it, null for an episode imported before RouteLens read it.
     */
    outcome: OutcomeExplanation.nullable(),
  }),
  /** Turns `turns_from`… in full: every turn when the episode has at most TURN_PAGE, else the page asked for. */
  turns: z.array(TurnDetail),
  turn_count: z.number().int().nonnegative(),
  turns_from: z.number().int().nonnegative(),
  /** Every turn in outline when `turns` is a page of them; null when `turns` is every turn. */
  outline: TurnOutline.nullable(),
  /** Messages after the last model response (a prompt never answered, a closing notice), in order. */
  final_messages: z.array(MessageDetail),
  /** Episodes this one launched (subagents, compactions), with the turn that launched each. */
  children: z.array(
    z.object({
      id,
      ext_id: z.string(),
      kind: z.string().nullable(),
      parent_t: z.number().int().nullable(),
      n_turns: z.number().int(),
      /** Null when some of its cost is unknown. */
      total_cost: nullableNumber,
      models: z.array(z.string()),
    }),
  ),
});
export type EpisodeDetail = z.infer<typeof EpisodeDetail>;

export const DbInfo = z.object({
  path: z.string(),
  runs: z.number().int(),
  episodes: z.number().int(),
  turns: z.number().int(),
  schema_version: z.number().int(),
  /** Moves whenever a write commits (any connection, any process): the window polls it and refreshes its views. */
  data_version: z.number().int().optional(),
  /**
   * Where the data lives: a SQLite file (absent means that too) or a ClickHouse store, which answers the reading
   * views and the analyses but holds no estimator scores yet (what-if, ŝ, the policy lab, Compare need a file).
   */
  store: z.enum(['sqlite', 'clickhouse']).optional(),
});
export type DbInfo = z.infer<typeof DbInfo>;

/** A file the user chose or dropped, sent whole: `path` is relative to what they dropped (keeps run folders). */
export const UploadedFile = z.object({
  path: z.string().min(1).max(1000),
  data_base64: z.string().max(400 * 1024 * 1024),
});

export const ImportFileResult = z.object({
  path: z.string(),
  status: z.enum(['imported', 'skipped', 'rejected']),
  format: z.string().nullable(),
  episodes: z.number().int(),
  turns: z.number().int(),
  /** Why a file was skipped or rejected; rejections read `file:line: reason`. */
  reason: z.string().optional(),
  /** An imported file's runs, as its episodes named them (or the run name the import gave), first seen first. */
  runs: z.array(z.string()).optional(),
});

export const ImportReport = z.object({
  files: z.array(ImportFileResult),
  warnings: z.array(z.string()),
  modelsAdded: z.array(z.string()),
  /** Every file of a folder that was not read, with why (a sidecar, not a log, an unknown format). */
  ignored: z.array(z.object({ path: z.string(), reason: z.string() })),
});
export type ImportReport = z.infer<typeof ImportReport>;

export const ImportJob = z.object({
  job: z.number().int(),
  state: z.enum(['running', 'done', 'failed']),
  progress: z.object({
    filesDone: z.number().int(),
    filesTotal: z.number().int(),
    episodes: z.number().int(),
    turns: z.number().int(),
    file: z.string(),
  }),
  report: ImportReport.nullable(),
  /** Set when the import stopped on an internal error (a bad file is a rejection in the report, not this). */
  error: z.string().nullable(),
  /** While the job waits its turn to write (another import or a score job holds the database): why. */
  waiting: z.string().nullable().optional(),
});
export type ImportJob = z.infer<typeof ImportJob>;

/** Every call: name → input and output schema. Adding a call here is the whole contract change. */
export const apiContract = {
  dbInfo: { input: z.object({}), output: DbInfo },
  listRuns: { input: z.object({}), output: z.array(RunSummary) },
  listModels: { input: z.object({}), output: z.array(ModelInfo) },
  queryEpisodes: { input: EpisodeQuery, output: EpisodePage },
  /** `around`: a turn index whose page an episode of more than TURN_PAGE turns brings in full (else its first page). */
  getEpisode: {
    input: z.union([
      z.object({ id, around: z.number().int().nonnegative().optional() }),
      z.object({ ext_id: z.string().max(300), run: z.string().max(300).optional(), around: z.number().int().nonnegative().optional() }),
    ]),
    output: EpisodeDetail,
  },
  /** Turns `from`…`from + count - 1` of an episode in full (at most TURN_PAGE); fewer at its end. */
  getTurns: {
    input: z.object({ id, from: z.number().int().nonnegative(), count: z.number().int().min(1).max(TURN_PAGE) }),
    output: z.object({ from: z.number().int().nonnegative(), turns: z.array(TurnDetail) }),
  },
  /** Starts importing uploaded files in the background; poll `importStatus` for progress and the report. */
  startImport: {
    input: z.object({ files: z.array(UploadedFile).min(1).max(50_000), run: z.string().min(1).max(300).optional() }),
    output: ImportJob,
  },
  importStatus: { input: z.object({ job: z.number().int().nonnegative() }), output: ImportJob },
  ...compareContract,
  ...replayContract,
  ...analysisContract,
  ...estimatorContract,
  ...caseContract,
  ...liveContract,
  ...alertsContract,
} as const;

export type ApiContract = typeof apiContract;
export type ApiName = keyof ApiContract;
export type ApiInput<N extends ApiName> = z.input<ApiContract[N]['input']>;
export type ApiOutput<N extends ApiName> = z.infer<ApiContract[N]['output']>;

/** The object the renderer talks to, whatever the transport. */
export type RouteLensApi = { [N in ApiName]: (input: ApiInput<N>) => Promise<ApiOutput<N>> };

export const API_NAMES = Object.keys(apiContract) as ApiName[];

/** Error carried across a transport: `kind` tells a user error (bad input, not found) from an internal one. */
export const ApiError = z.object({ kind: z.enum(['input', 'not_found', 'busy', 'damaged', 'internal']), message: z.string() });
export type ApiError = z.infer<typeof ApiError>;
