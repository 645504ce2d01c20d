/**
 * Writes canonical episodes into the database. Everything a turn needs that the log may lack is filled
 * here, once, for every format: model rows (unknown models added), priced costs, switches, errors
 * detected by the rules, and the AEC targets. The caller owns the transaction (one per source file) and calls
 * flushText() before committing it (the full-text index is filled in one statement per transaction).
 */
import { createHash } from 'node:crypto';
import { OUTCOME_EXPLANATION_KEYS, type CanonicalEpisode, type CanonicalTurn, type TurnError } from '../../shared/canonical.ts';
import { SEVERITY_LEVEL, aecTargets, maxSeverity, normaliseScore, type AecTarget } from '../../shared/formulas.ts';
import type { ErrorRules } from '../analysis/errorRules.ts';
import { defaultExpectedSteps, expectedSteps, type ExpectedStepsTable } from '../analysis/expectedSteps.ts';
import { ImportError } from '../importers/types.ts';
import { vouchedWellFormed } from '../importers/wellFormedText.ts';
import { PriceProvenanceIds, priceProvenanceOf, type PriceProvenance } from './costProvenance.ts';
import type { Db } from './dbHandle.ts';
import { lastActivityOf } from './lastActivity.ts';
import { reconcile, type CostBasis, type Reconciliation } from './logTotals.ts';
import { ModelResolver, priceTurn, type ModelPrice } from './models.ts';

/**
 * A logged cost wins; else tokens × list price ('priced'); else the cost is unknown ('none'). turns.cost is NOT NULL
 * (schema 1), so an unknown cost is stored as 0 with cost_source 'none' and counted in episodes.unpriced_turns:
 * every reader shows it as unknown, never as $0.
 */
function costOf(
  model: ModelPrice,
  logged: number | null | undefined,
  tokens: CanonicalTurn['tokens'],
  timestamp?: string | null,
): { cost: number; costSource: 'logged' | 'priced' | 'none' } {
  if (logged != null) return { cost: logged, costSource: 'logged' };
  const priced = priceTurn(model, tokens ?? {}, timestamp);
  return priced === null ? { cost: 0, costSource: 'none' } : { cost: priced, costSource: 'priced' };
}

/** What the turn row has no column for but the inspector shows: reasoning, the model's text, tool calls, inferences, time. */
export function turnDetail(turn: CanonicalTurn): string | null {
  const detail: Record<string, unknown> = {};
  if (turn.reasoning) detail.reasoning = turn.reasoning;
  if (turn.message) detail.message = turn.message;
  if (turn.tool_calls?.length) detail.tool_calls = turn.tool_calls;
  if (turn.notes?.length) detail.notes = turn.notes;
  if (turn.timestamp) detail.timestamp = turn.timestamp;
  return Object.keys(detail).length > 0 ? JSON.stringify(detail) : null;
}

/**
 * What the episode row has no column for but an export must give back: the agent as logged, the parent's tool call,
 * usage totals, the policy's usage targets ρ (which the usage-ratio analysis reads).
 */
export function episodeDetail(ep: CanonicalEpisode): string | null {
  const detail: Record<string, unknown> = {};
  if (ep.agent && (ep.agent.name != null || ep.agent.version != null)) detail.agent = ep.agent;
  if (ep.parent?.tool_call_id != null) detail.parent_tool_call_id = ep.parent.tool_call_id;
  if (ep.usage_totals?.length) detail.usage_totals = ep.usage_totals;
  if (ep.policy?.usage_targets && Object.keys(ep.policy.usage_targets).length > 0) detail.usage_targets = ep.policy.usage_targets;
  return Object.keys(detail).length > 0 ? JSON.stringify(detail) : null;
}

/**
 * What explains the outcome (target, answer, scorers, tests, notes) as one JSON object: `{}` when the log has none
 * of it, so a stored `{}` says "the log has nothing more" where NULL (an episode imported before schema 9) says
 * "not read".
 */
export function outcomeExplanation(ep: CanonicalEpisode): string {
  const explained: Record<string, unknown> = {};
  for (const key of OUTCOME_EXPLANATION_KEYS) {
    const value = ep.outcome[key];
    if (value != null && !(Array.isArray(value) && value.length === 0)) explained[key] = value;
  }
  return JSON.stringify(explained);
}

/**
 * Every message of the episode that is not a model response, in conversation order, as the rows of `messages`
 * (`[t, role, text, timestamp]`, t null after the last response): one JSON array, so the writer inserts an
 * episode's messages in one statement (json_each) however many there are.
 */
export function episodeMessages(ep: CanonicalEpisode): string | null {
  const rows: [number | null, string, string, string | null][] = [];
  for (const turn of ep.turns) for (const m of turn.inputs ?? []) rows.push([turn.t, m.role, m.text, m.timestamp ?? null]);
  for (const m of ep.final_messages ?? []) rows.push([null, m.role, m.text, m.timestamp ?? null]);
  return rows.length > 0 ? JSON.stringify(rows) : null;
}

/**
 * What a resolved turn writes, as one string: the turn as logged (its inputs too) and what the writer derived for
 * it (model, switch, cost, errors, candidates, target). Equal digests write equal rows.
 */
function turnDigest(t: ResolvedEpisode['turns'][number]): string {
  // Hashed: a followed episode's digests are held in memory, and a turn's JSON holds its whole tool output.
  return digestText(JSON.stringify([t.turn, t.model.id, t.prev, t.switched, t.cost, t.costSource, t.provenance, t.level, t.mask, t.errors, t.greedy?.id ?? null,
    t.candidates.map((c) => [c.model.id, c.score]), t.target, t.detail]));
}

const digestText = (text: string): string => createHash('sha256').update(text).digest('base64');

/** The columns of an episodes row the writer sets (episodeRow's keys), for updating a followed episode in place. */
const EPISODE_COLUMNS = [
  'run_id', 'ext_id', 'task_id', 'task_type', 'task_category', 'split', 'difficulty', 'final_score', 'score_lo', 'score_hi',
  'score_norm', 'success', 'total_cost', 'logged_cost', 'grader_cost', 'n_turns', 'n_errors', 'n_switches', 'expected_steps',
  'exit_reason', 'budget_usd', 'budget_mode', 'max_turns', 'train_step', 'source_id', 'unpriced_turns', 'parent_ext_id',
  'parent_t', 'kind', 'agent', 'started_at',
] as const;

/** An episode already in the database under the run and id of one being written, with the file it came from. */
interface StoredEpisode {
  id: number;
  sourceId: number | null;
  path: string | null;
  nTurns: number;
  totalCost: number;
  taskId: string | null;
}

/**
 * What to do with an episode whose run and id are already taken (issue 34: two OpenHands sessions both named
 * `0-25` kept one and still said "2 imported"). From the same file, re-imported after it changed (or from an
 * import whose file is no longer recorded): `replace`. From another file: the same episode (same task, turns and
 * cost) is `same` and skipped with a warning; anything else is `different`, and the file is refused naming both.
 */
function clashWith(
  stored: StoredEpisode,
  incoming: { ep: CanonicalEpisode; totalCost: number; turns: readonly { model: { id: number } }[] },
  sourcePath: string,
  sourceId: number | null,
  storedTurns: () => StoredTurn[],
): 'replace' | 'same' | 'different' {
  if (stored.path === null || stored.path === sourcePath || stored.sourceId === sourceId) return 'replace';
  const { ep } = incoming;
  const sameCost = Math.abs(stored.totalCost - incoming.totalCost) <= 1e-9 * Math.max(1, Math.abs(stored.totalCost));
  if (stored.nTurns !== ep.turns.length || !sameCost || stored.taskId !== (ep.task.id ?? null)) return 'different';
  // Same counts and cost are not the same episode: an unpriced model costs 0 either way, and an edited copy of a
  // log keeps its calls. Each turn's model, tokens and action must match too (read only on a clash, which is rare).
  const turns = storedTurns();
  const same = ep.turns.every((turn, i) => {
    const row = turns[i];
    return row !== undefined && row.modelId === incoming.turns[i]?.model.id && row.tokensIn === (turn.tokens?.in ?? null) &&
      row.tokensOut === (turn.tokens?.out ?? null) && row.action === (turn.action.text ?? null);
  });
  return same ? 'same' : 'different';
}

/** What clashWith compares of each stored turn: its model (as resolved, aliases included), tokens and action text. */
interface StoredTurn {
  modelId: number;
  tokensIn: number | null;
  tokensOut: number | null;
  action: string | null;
}

export interface WriteResult {
  episodeId: number;
  /** An episode of the same run and id, imported earlier from this same file (since changed), was replaced. */
  replaced: boolean;
  /** Set when the episode was not written because the same episode is already there from this other file. */
  copyOf: string | null;
  /** Strings of the episode that held lone UTF-16 surrogates, stored with U+FFFD in their place. */
  repairedStrings: number;
  /** The written episode against its log's own totals (absent when not written, null when the log has none). */
  reconciliation?: Reconciliation | null;
}

/**
 * A JSON escape such as `"\ud800"` parses to a string with a lone surrogate, which SQLite would store as
 * invalid UTF-8 (CESU bytes). Such strings are repaired (each lone surrogate becomes U+FFFD, as a UTF-8
 * decoder would make it) rather than refused: a log truncated inside an emoji is still a log. The caller
 * warns once per file. Returns the value itself when nothing needed repair.
 */

export function wellFormed<T>(value: T): { value: T; repaired: number } {
  if (vouchedWellFormed(value)) return { value, repaired: 0 };
  const count = { repaired: 0 };
  return { value: repairStrings(value, count) as T, repaired: count.repaired };
}

/**
 * `v` with its lone surrogates replaced, copying only the arrays and objects on the way to a repaired string.
 * Plain loops: every string of every episode passes here, and the closures and Object.entries arrays of the
 * first version were a tenth of a ClickHouse import's time.
 */
function repairStrings(v: unknown, count: { repaired: number }): unknown {
  if (typeof v === 'string') {
    if (v.isWellFormed()) return v;
    count.repaired++;
    return v.toWellFormed();
  }
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      const y = repairStrings(x, count);
      if (y !== x) (out ??= v.slice())[i] = y;
    }
    return out ?? v;
  }
  let out: Record<string, unknown> | null = null;
  const record = v as Record<string, unknown>;
  for (const k in record) {
    if (!Object.hasOwn(record, k)) continue;
    const x = record[k];
    const key = k.isWellFormed() ? k : (count.repaired++, k.toWellFormed());
    const y = repairStrings(x, count);
    if (y !== x || key !== k) {
      out ??= { ...record };
      if (key !== k) delete out[k];
      out[key] = y;
    }
  }
  return out ?? v;
}

/** One turn with what the writer fills in: its model row, cost, switch, errors, candidates and plan resolved. */
export interface ResolvedTurn {
  turn: CanonicalTurn;
  model: ModelPrice;
  prev: number | null;
  switched: boolean;
  cost: number;
  costSource: 'logged' | 'priced' | 'none';
  /** How a priced cost was priced (table, version, cache tier); null for logged and unknown costs. */
  provenance: PriceProvenance | null;
  /** SEVERITY_LEVEL of the worst error, 0 for none. */
  level: number;
  mask: number;
  errors: { typeId: number; type: string; level: number; source: 'log' | 'rule' }[];
  greedy: ModelPrice | null;
  candidates: { model: ModelPrice; score: number }[];
  plan: { sub: NonNullable<CanonicalTurn['plan']>['subtasks'][number]; model: ModelPrice | null }[];
  target: AecTarget | null;
  detail: string | null;
}

/** An episode as the writer stores it (EpisodeWriter.resolve), whether into this database or shipped elsewhere. */
export interface ResolvedEpisode {
  ep: CanonicalEpisode;
  repairedStrings: number;
  scoreNorm: number | null;
  expectedSteps: number;
  totalCost: number;
  unpricedTurns: number;
  nErrors: number;
  nSwitches: number;
  turns: ResolvedTurn[];
  graders: { g: NonNullable<CanonicalEpisode['grader_calls']>[number]; model: ModelPrice; cost: number; costSource: string }[];
  totals: { model: ModelPrice; cost: number | null }[];
  difficulty: string | null;
  agent: string | null;
  /** The episode against the totals its log records (log_totals); null when it records none. */
  reconciliation: Reconciliation | null;
}

export class EpisodeWriter {
  readonly models: ModelResolver;
  private readonly runIds = new Map<string, number>();
  private readonly errorTypeIds = new Map<string, number>();
  private readonly provenanceIds: PriceProvenanceIds;
  /** The first turn written since the last flushText(): its text and all later turns' are not yet in turn_fts. */
  private unindexedFrom: number | null = null;
  /** Run and episode ids written in the current file's transaction: a second one in the same file is refused. */
  private readonly writtenInFile = new Set<string>();
  /** The same for messages and message_fts. */
  private unindexedMessagesFrom: number | null = null;
  private readonly s;

  constructor(
    private readonly db: Db,
    private readonly rules: ErrorRules,
    private readonly steps: ExpectedStepsTable = defaultExpectedSteps(),
    /** False for a staging database whose rows are shipped elsewhere: nothing searches its text. */
    private readonly indexText = true,
  ) {
    this.models = new ModelResolver(db);
    this.provenanceIds = new PriceProvenanceIds(db);
    this.s = {
      findRun: db.prepare('SELECT id FROM runs WHERE name = ?').pluck(),
      insertRun: db.prepare(`INSERT INTO runs (name, source_format, source_path, imported_at, policy_name, policy_kind)
        VALUES (?, ?, ?, ?, ?, ?)`),
      storedTurns: db.prepare(`SELECT t.model_id AS modelId, t.tokens_in AS tokensIn, t.tokens_out AS tokensOut, x.action
        FROM turns t LEFT JOIN turn_text x ON x.turn_id = t.id WHERE t.episode_id = ? ORDER BY t.t`),
      findEpisode: db.prepare(`SELECT e.id, e.source_id AS sourceId, s.path, e.n_turns AS nTurns, e.total_cost AS totalCost,
        e.task_id AS taskId FROM episodes e LEFT JOIN sources s ON s.id = e.source_id WHERE e.run_id = ? AND e.ext_id = ?`),
      deleteEpisode: db.prepare('DELETE FROM episodes WHERE id = ?'),
      insertEpisode: db.prepare(`INSERT INTO episodes (run_id, ext_id, task_id, task_type, task_category, split,
        difficulty, final_score, score_lo, score_hi, score_norm, success, total_cost, logged_cost, grader_cost, n_turns,
        n_errors, n_switches, expected_steps, exit_reason, budget_usd, budget_mode, max_turns, train_step, source_id,
        unpriced_turns, parent_ext_id, parent_t, kind, agent, started_at)
        VALUES (@run_id, @ext_id, @task_id, @task_type, @task_category, @split, @difficulty, @final_score, @score_lo,
        @score_hi, @score_norm, @success, @total_cost, @logged_cost, @grader_cost, @n_turns, @n_errors, @n_switches,
        @expected_steps, @exit_reason, @budget_usd, @budget_mode, @max_turns, @train_step, @source_id,
        @unpriced_turns, @parent_ext_id, @parent_t, @kind, @agent, @started_at)`),
      insertEpisodeModel: db.prepare(
        `INSERT INTO episode_models (episode_id, model_id, n_turns, priced_turns, cost, tokens_in, tokens_out, tokens_cached,
          tokens_cache_write, unknown_turns, first_t) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertGraderCall: db.prepare(`INSERT INTO grader_calls (episode_id, model_id, tokens_in, tokens_out, cost, cost_source, text)
        VALUES (?, ?, ?, ?, ?, ?, ?)`),
      insertActivity: db.prepare('INSERT INTO episode_activity (episode_id, last_at) VALUES (?, ?)'),
      insertEpisodeText: db.prepare('INSERT INTO episode_text (episode_id, task_text, policy_name, system_prompt, detail, outcome) VALUES (?, ?, ?, ?, ?, ?)'),
      insertMessages: db.prepare(`INSERT INTO messages (episode_id, t, seq, role, text, timestamp)
        SELECT ?, value ->> 0, key + ?, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)`),
      updateEpisode: db.prepare(`UPDATE episodes SET ${EPISODE_COLUMNS.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`),
      deleteTurnsFrom: db.prepare('DELETE FROM turns WHERE episode_id = ? AND t >= ?'),
      deleteMessagesFrom: db.prepare('DELETE FROM messages WHERE episode_id = ? AND (t >= ? OR t IS NULL)'),
      deleteParts: ['episode_text', 'episode_activity', 'episode_models', 'episode_log_totals', 'grader_calls']
        .map((table) => db.prepare(`DELETE FROM ${table} WHERE episode_id = ?`)),
      indexMessages: db.prepare('INSERT INTO message_fts (rowid, text) SELECT id, text FROM messages WHERE id >= ?'),
      insertTurn: db.prepare(`INSERT INTO turns (episode_id, t, model_id, prev_model_id, switched, action_type, tool,
        tokens_in, tokens_out, tokens_cached, cost, cost_source, latency_ms, propensity, error_mask, max_severity,
        verdict, verify_correct, greedy_model_id, was_greedy, beta, tokens_cache_write, tokens_reasoning, role,
        tokens_cache_write_1h, price_provenance_id)
        VALUES (@episode_id, @t, @model_id, @prev_model_id,
        @switched, @action_type, @tool, @tokens_in, @tokens_out, @tokens_cached, @cost, @cost_source, @latency_ms,
        @propensity, @error_mask, @max_severity, @verdict, @verify_correct, @greedy_model_id, @was_greedy, @beta,
        @tokens_cache_write, @tokens_reasoning, @role, @tokens_cache_write_1h, @price_provenance_id)`),
      insertTurnText: db.prepare('INSERT INTO turn_text (turn_id, action, observation, detail) VALUES (?, ?, ?, ?)'),
      indexText: db.prepare('INSERT INTO turn_fts (rowid, action, observation) SELECT turn_id, action, observation FROM turn_text WHERE turn_id >= ?'),
      insertTurnError: db.prepare(
        'INSERT OR IGNORE INTO turn_errors (turn_id, error_type_id, severity, source) VALUES (?, ?, ?, ?)',
      ),
      insertCandidate: db.prepare('INSERT INTO turn_candidates (turn_id, model_id, logged_score) VALUES (?, ?, ?)'),
      insertTarget: db.prepare('INSERT INTO targets (turn_id, s_tilde, penalty) VALUES (?, ?, ?)'),
      insertPlanNode: db.prepare(`INSERT INTO plan_nodes (episode_id, turn_id, round, subtask_id, model_id, primitive,
        status) VALUES (?, ?, ?, ?, ?, ?, ?)`),
      insertPlanEdge: db.prepare('INSERT INTO plan_edges (episode_id, round, src, dst) VALUES (?, ?, ?, ?)'),
      insertLogTotals: db.prepare(`INSERT INTO episode_log_totals (episode_id, source, requests, tokens_in, tokens_out,
        tokens_cached, tokens_cache_write, tokens_cache_write_1h, tokens_reasoning, cost, counted_requests, counted_tokens_in,
        counted_tokens_out, counted_tokens_cached, counted_tokens_cache_write, counted_tokens_cache_write_1h,
        counted_tokens_reasoning, counted_cost, compared, differing, worst_rel) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      findErrorType: db.prepare('SELECT id FROM error_types WHERE name = ?').pluck(),
      insertErrorType: db.prepare('INSERT INTO error_types (name) VALUES (?)'),
    };
  }

  /**
   * Adds the text of the turns written since the last call to the full-text index, in one statement (row by
   * row took 1.9 s instead of 1.2 s for 90k turns, bench/). Call before the caller's transaction commits.
   */
  flushText(): void {
    if (!this.indexText) return;
    if (this.unindexedFrom !== null) this.s.indexText.run(this.unindexedFrom);
    if (this.unindexedMessagesFrom !== null) this.s.indexMessages.run(this.unindexedMessagesFrom);
    this.unindexedFrom = null;
    this.unindexedMessagesFrom = null;
  }

  /** Call after the caller's transaction commits. */
  commit(): void {
    this.writtenInFile.clear();
    this.models.commit();
  }

  /** Call after the caller's transaction rolls back: ids cached during it may name rows that no longer exist. */
  rollback(): void {
    this.writtenInFile.clear();
    this.unindexedFrom = null;
    this.unindexedMessagesFrom = null;
    this.runIds.clear();
    this.errorTypeIds.clear();
    this.provenanceIds.rollback();
    this.models.rollback();
  }

  private runId(ep: CanonicalEpisode, format: string, sourcePath: string): number {
    const cached = this.runIds.get(ep.run);
    if (cached !== undefined) return cached;
    let id = this.s.findRun.get(ep.run) as number | undefined;
    if (id === undefined) {
      const info = this.s.insertRun.run(
        ep.run, format, sourcePath, new Date().toISOString(), ep.policy?.name ?? null, ep.policy?.kind ?? null,
      );
      id = Number(info.lastInsertRowid);
    }
    this.runIds.set(ep.run, id);
    return id;
  }

  private errorTypeId(name: string): number {
    let id = this.errorTypeIds.get(name);
    if (id === undefined) {
      id = (this.s.findErrorType.get(name) as number | undefined) ?? Number(this.s.insertErrorType.run(name).lastInsertRowid);
      this.errorTypeIds.set(name, id);
    }
    return id;
  }

  /** Each per-model session total with its cost: logged, priced from its tokens, or null (unknown). */
  private priceUsageTotals(ep: CanonicalEpisode): { model: ModelPrice; cost: number | null }[] {
    return (ep.usage_totals ?? []).map((u) => {
      const model = this.models.resolve(u.model);
      return { model, cost: u.cost_usd ?? priceTurn(model, u.tokens ?? {}, ep.started_at) };
    });
  }

  /**
   * Everything the log leaves out, filled in the order a write asks for it (model rows and error types are
   * created in that order, so their ids are the same whether the episode is then written here or shipped).
   */
  resolve(logged: CanonicalEpisode): ResolvedEpisode {
    const { value: ep, repaired: repairedStrings } = wellFormed(logged);
    const ruleSet = this.rules.forTaskType(ep.task.type);
    const n = expectedSteps(ep.task, this.steps);
    const scoreNorm = normaliseScore(ep.outcome.score, ep.outcome.score_range, ep.outcome.success);

    // Resolve per-turn facts first: episode totals are needed before the episode row exists.
    let prevModel: number | null = null;
    let totalCost = 0;
    let nErrors = 0;
    let nSwitches = 0;
    const first = ep.turns.map((turn) => {
      const model = this.models.resolve(turn.model);
      const errors: { e: TurnError; source: 'log' | 'rule' }[] =
        turn.errors != null
          ? turn.errors.map((e) => ({ e, source: 'log' as const }))
          : ruleSet.detect(turn.observation).map((e) => ({ e, source: 'rule' as const }));
      const severity = maxSeverity(errors.map((x) => x.e.severity));
      const { cost, costSource } = costOf(model, turn.cost_usd, turn.tokens, turn.timestamp);
      const switched = prevModel !== null && prevModel !== model.id;
      const row = { turn, model, errors, severity, cost, costSource, prev: prevModel, switched };
      prevModel = model.id;
      totalCost += row.cost;
      if (errors.length > 0) nErrors++;
      if (switched) nSwitches++;
      return row;
    });
    const targets = aecTargets(scoreNorm, first.map((r) => r.severity), n);
    let unpricedTurns = first.filter((r) => r.costSource === 'none').length;
    const noTurnCost = unpricedTurns === first.length;
    // Per-model session totals (Copilot CLI) are priced as totals, never split across turns.
    const totals = noTurnCost ? this.priceUsageTotals(ep) : [];
    let costBasis: CostBasis = 'turns';
    if (totals.length > 0 && totals.every((x) => x.cost !== null)) {
      totalCost = totals.reduce((a, x) => a + (x.cost ?? 0), 0);
      unpricedTurns = 0;
      costBasis = 'usage_totals';
    }
    // A log that records only the episode's total (SWE-agent, Uno) still gets a cost, never split across turns.
    if (ep.cost_usd != null && noTurnCost) {
      totalCost = ep.cost_usd;
      unpricedTurns = 0;
      costBasis = 'episode_cost';
    }
    const reconciliation = reconcile(ep, { value: unpricedTurns > 0 ? null : totalCost, basis: costBasis });
    const graders = (ep.grader_calls ?? []).map((g) => {
      const model = this.models.resolve(g.model);
      return { g, model, ...costOf(model, g.cost_usd, g.tokens) };
    });
    const turns = first.map((r, i): ResolvedTurn => {
      const { turn } = r;
      // Two types of one name once per turn (the first's severity and source), as turn_errors' key keeps them.
      const errors: ResolvedTurn['errors'] = [];
      let mask = 0;
      for (const x of r.errors) {
        const typeId = this.errorTypeId(x.e.type);
        if (typeId < 31) mask |= 1 << typeId;
        if (!errors.some((y) => y.typeId === typeId)) errors.push({ typeId, type: x.e.type, level: SEVERITY_LEVEL[x.e.severity], source: x.source });
      }
      const greedy = turn.router?.greedy_model ? this.models.resolve(turn.router.greedy_model) : null;
      // Two names of one model (aliases) keep the last score.
      const candidates = new Map<number, { model: ModelPrice; score: number }>();
      for (const [name, score] of Object.entries(turn.candidates ?? {})) {
        const model = this.models.resolve(name);
        candidates.set(model.id, { model, score });
      }
      const plan = turn.plan
        ? turn.plan.subtasks.map((sub) => ({ sub, model: sub.model ? this.models.resolve(sub.model) : null }))
        : [];
      return {
        turn: r.turn, model: r.model, prev: r.prev, switched: r.switched, cost: r.cost, costSource: r.costSource,
        provenance: r.costSource === 'priced' ? priceProvenanceOf(r.model, turn.tokens) : null,
        level: r.severity ? SEVERITY_LEVEL[r.severity] : 0, mask, errors, greedy, candidates: [...candidates.values()], plan,
        target: targets[i] ?? null, detail: turnDetail(turn),
      };
    });
    return {
      ep, repairedStrings, scoreNorm, expectedSteps: n, totalCost, unpricedTurns, nErrors, nSwitches, turns, graders, totals,
      difficulty: ep.task.difficulty == null ? null : String(ep.task.difficulty),
      agent: ep.agent?.name ? [ep.agent.name, ep.agent.version].filter(Boolean).join(' ') : null,
      reconciliation,
    };
  }

  /** Inserts one episode; an episode with the same run and id is replaced (re-import of a changed file). */
  write(logged: CanonicalEpisode, format: string, sourcePath: string, sourceId: number | null, resolved?: ResolvedEpisode): WriteResult {
    const r = resolved ?? this.resolve(logged);
    const { ep } = r;
    const runId = this.runId(ep, format, sourcePath);
    const existing = this.s.findEpisode.get(runId, ep.episode_id) as StoredEpisode | undefined;
    const key = `${runId}\u0000${ep.episode_id}`;
    if (this.writtenInFile.has(key)) {
      throw new ImportError(sourcePath, 1, `episode "${ep.episode_id}" of run "${ep.run}" appears twice in this file: not merged`);
    }
    this.writtenInFile.add(key);
    if (existing !== undefined) {
      const clash = clashWith(existing, r, sourcePath, sourceId, () => this.s.storedTurns.all(existing.id) as StoredTurn[]);
      if (clash === 'same') return { episodeId: existing.id, replaced: false, copyOf: existing.path, repairedStrings: r.repairedStrings };
      if (clash === 'different') {
        throw new ImportError(
          sourcePath, 1,
          `episode "${ep.episode_id}" of run "${ep.run}" is already in the database from ${existing.path ?? 'an earlier import'}, ` +
            'with different content: not replaced (import this file with --run NAME to keep both)',
        );
      }
      // Deleting turn_text un-indexes it (trigger turn_text_ad): its rows must be in the index by then.
      this.flushText();
      this.s.deleteEpisode.run(existing.id);
    }
    const info = this.s.insertEpisode.run(this.episodeRow(r, runId, sourceId));
    const episodeId = Number(info.lastInsertRowid);
    this.writeParts(episodeId, r, episodeMessages(r.ep));
    this.insertTurns(episodeId, r, 0);
    return { episodeId, replaced: existing !== undefined, copyOf: null, repairedStrings: r.repairedStrings, reconciliation: r.reconciliation };
  }

  /**
   * Writes an episode of a followed file (issue 36). `previous`: the digests of its turns as this writer last wrote
   * them from the same file, or null. The turns before the first that differs stay as they are and the rest are
   * written again, with the episode row and its sums; the rows are those `write` gives the same episode, so a
   * followed file ends as a one-shot import of it. Anything else (no digests, another file's episode, a plan) is `write`.
   */
  writeFollowed(logged: CanonicalEpisode, format: string, sourcePath: string, sourceId: number, previous: readonly string[] | null): WriteResult & { digests: string[]; keptTurns: number } {
    const r = this.resolve(logged);
    const digests = r.turns.map(turnDigest);
    const runId = this.runId(r.ep, format, sourcePath);
    const existing = this.s.findEpisode.get(runId, r.ep.episode_id) as StoredEpisode | undefined;
    const key = `${runId}\u0000${r.ep.episode_id}`;
    const inPlace = existing !== undefined && previous !== null && existing.sourceId === sourceId && existing.nTurns === previous.length &&
      !this.writtenInFile.has(key) && r.turns.every((t) => t.plan.length === 0);
    if (!inPlace) return { ...this.write(logged, format, sourcePath, sourceId, r), digests, keptTurns: 0 };
    this.writtenInFile.add(key);
    let kept = 0;
    while (kept < digests.length && kept < previous.length && digests[kept] === previous[kept]) kept++;
    const id = existing.id;
    // Deleting turn_text un-indexes it (trigger turn_text_ad): its rows must be in the index by then.
    this.flushText();
    this.s.deleteTurnsFrom.run(id, kept);
    this.s.deleteMessagesFrom.run(id, kept);
    for (const del of this.s.deleteParts) del.run(id);
    this.s.updateEpisode.run({ ...this.episodeRow(r, runId, sourceId), id });
    // The messages before turn `kept` reached unchanged turns (a turn's inputs are in its digest): only the rest are new.
    const rows = JSON.parse(episodeMessages(r.ep) ?? '[]') as [number | null, ...unknown[]][];
    const firstNew = rows.findIndex(([t]) => t === null || t >= kept);
    const newRows = firstNew === -1 ? [] : rows.slice(firstNew);
    this.writeParts(id, r, newRows.length ? JSON.stringify(newRows) : null, firstNew === -1 ? rows.length : firstNew);
    this.insertTurns(id, r, kept);
    return { episodeId: id, replaced: true, copyOf: null, repairedStrings: r.repairedStrings, reconciliation: r.reconciliation, digests, keptTurns: kept };
  }

  /** True when the episode is in the database from the source `sourceId`, with as many turns. */
  isFrom(logged: CanonicalEpisode, sourceId: number): boolean {
    const runId = this.s.findRun.get(wellFormed(logged.run).value) as number | undefined;
    if (runId === undefined) return false;
    const stored = this.s.findEpisode.get(runId, wellFormed(logged.episode_id).value) as StoredEpisode | undefined;
    return stored !== undefined && stored.sourceId === sourceId && stored.nTurns === logged.turns.length;
  }

  /** The digests writeFollowed gives the episode's turns: a followed file resumed from its cursor is not written again. */
  digestsOf(logged: CanonicalEpisode): string[] {
    return this.resolve(logged).turns.map(turnDigest);
  }

  /** The episodes row of a resolved episode (insertEpisode's and updateEpisode's parameters). */
  private episodeRow(r: ResolvedEpisode, runId: number, sourceId: number | null) {
    const { ep } = r;
    return {
      run_id: runId,
      ext_id: ep.episode_id,
      task_id: ep.task.id ?? null,
      task_type: ep.task.type ?? null,
      task_category: ep.task.category ?? null,
      split: ep.task.split ?? null,
      difficulty: r.difficulty,
      final_score: ep.outcome.score ?? null,
      score_lo: ep.outcome.score_range?.[0] ?? null,
      score_hi: ep.outcome.score_range?.[1] ?? null,
      score_norm: r.scoreNorm,
      success: ep.outcome.success == null ? null : ep.outcome.success ? 1 : 0,
      total_cost: r.totalCost,
      logged_cost: ep.cost_usd ?? null,
      grader_cost: r.graders.reduce((a, x) => a + x.cost, 0),
      n_turns: ep.turns.length,
      n_errors: r.nErrors,
      n_switches: r.nSwitches,
      expected_steps: r.expectedSteps,
      exit_reason: ep.outcome.exit ?? null,
      budget_usd: ep.budget?.usd ?? null,
      budget_mode: ep.budget?.mode ?? null,
      max_turns: ep.budget?.max_turns ?? null,
      train_step: ep.policy?.train_step ?? null,
      source_id: sourceId,
      unpriced_turns: r.unpricedTurns,
      parent_ext_id: ep.parent?.episode_id ?? null,
      parent_t: ep.parent?.t ?? null,
      kind: ep.kind ?? null,
      agent: r.agent,
      started_at: ep.started_at ?? null,
    };
  }

  /**
   * Everything of an episode but its row and its turns: text, activity, per-model sums, log totals, graders, and
   * the messages of `messages` (episodeMessages' rows, numbered from `messagesFrom`).
   */
  private writeParts(episodeId: number, r: ResolvedEpisode, messages: string | null, messagesFrom = 0): void {
    const { ep } = r;
    const lastAt = lastActivityOf(ep);
    if (lastAt !== null) this.s.insertActivity.run(episodeId, lastAt);
    this.s.insertEpisodeText.run(
      episodeId, ep.task.text ?? null, ep.policy?.name ?? null, ep.system_prompt ?? null, episodeDetail(ep), outcomeExplanation(ep),
    );
    if (messages !== null) {
      const info = this.s.insertMessages.run(episodeId, messagesFrom, messages);
      // One INSERT … SELECT numbers its rows consecutively: the first is the last less the count.
      this.unindexedMessagesFrom ??= Number(info.lastInsertRowid) - info.changes + 1;
    }
    // Per model: calls, cost and token sums (SQL SUM semantics: null when no call logged that count), so listings
    // and Compare never scan turns.
    type PerModel = { n: number; priced: number; unknown: number; cost: number; first: number | null; tok: (number | null)[] };
    const perModel = new Map<number, PerModel>();
    const add = (a: number | null, b: number | null | undefined): number | null => (b == null ? a : (a ?? 0) + b);
    const entry = (id: number): PerModel => {
      let m = perModel.get(id);
      if (!m) perModel.set(id, (m = { n: 0, priced: 0, unknown: 0, cost: 0, first: null, tok: [null, null, null, null] }));
      return m;
    };
    for (const t of r.turns) {
      const m = entry(t.model.id);
      m.n++;
      if (t.costSource === 'priced') m.priced++;
      if (t.costSource === 'none') m.unknown++;
      m.cost += t.cost;
      m.first ??= t.turn.t;
      const k = t.turn.tokens;
      m.tok = [add(m.tok[0] ?? null, k?.in), add(m.tok[1] ?? null, k?.out), add(m.tok[2] ?? null, k?.cached), add(m.tok[3] ?? null, k?.cache_write)];
    }
    for (const x of r.totals) entry(x.model.id).cost += x.cost ?? 0;
    for (const [modelId, m] of perModel) {
      this.s.insertEpisodeModel.run(episodeId, modelId, m.n, m.priced, m.cost, ...m.tok, m.unknown, m.first);
    }
    const rec = r.reconciliation;
    if (rec) {
      const k = (x: typeof rec.logged) => [x.requests, x.in, x.out, x.cached, x.cache_write, x.cache_write_1h, x.reasoning, x.cost];
      this.s.insertLogTotals.run(episodeId, rec.source, ...k(rec.logged), ...k(rec.counted), rec.compared.length, rec.differing, rec.worstRel);
    }
    for (const x of r.graders) {
      this.s.insertGraderCall.run(
        episodeId, x.model.id, x.g.tokens?.in ?? null, x.g.tokens?.out ?? null, x.cost, x.costSource, x.g.text ?? null,
      );
    }
  }

  /** Inserts the episode's turns from turn index `from` on, with what hangs off each turn. */
  private insertTurns(episodeId: number, r: ResolvedEpisode, from: number): void {
    for (const t of r.turns.slice(from)) {
      const { turn } = t;
      const turnInfo = this.s.insertTurn.run({
        episode_id: episodeId,
        t: turn.t,
        model_id: t.model.id,
        prev_model_id: t.prev,
        switched: t.switched ? 1 : 0,
        action_type: turn.action.type,
        tool: turn.action.tool ?? null,
        tokens_in: turn.tokens?.in ?? null,
        tokens_out: turn.tokens?.out ?? null,
        tokens_cached: turn.tokens?.cached ?? null,
        cost: t.cost,
        cost_source: t.costSource,
        latency_ms: turn.latency_ms ?? null,
        propensity: turn.propensity ?? null,
        error_mask: t.mask,
        max_severity: t.level,
        verdict: turn.verify?.verdict ?? null,
        verify_correct: turn.verify?.correct == null ? null : turn.verify.correct ? 1 : 0,
        greedy_model_id: t.greedy?.id ?? null,
        was_greedy: turn.router?.was_greedy == null ? null : turn.router.was_greedy ? 1 : 0,
        beta: turn.router?.beta ?? null,
        tokens_cache_write: turn.tokens?.cache_write ?? null,
        tokens_reasoning: turn.tokens?.reasoning ?? null,
        role: turn.role ?? null,
        tokens_cache_write_1h: turn.tokens?.cache_write_1h ?? null,
        price_provenance_id: t.provenance ? this.provenanceIds.idOf(t.provenance) : null,
      });
      const turnId = Number(turnInfo.lastInsertRowid);
      this.s.insertTurnText.run(turnId, turn.action.text ?? null, turn.observation ?? null, t.detail);
      this.unindexedFrom ??= turnId;
      for (const x of t.errors) this.s.insertTurnError.run(turnId, x.typeId, x.level, x.source);
      for (const c of t.candidates) this.s.insertCandidate.run(turnId, c.model.id, c.score);
      if (t.target) this.s.insertTarget.run(turnId, t.target.s_tilde, t.target.penalty);
      for (const { sub, model } of t.plan) {
        this.s.insertPlanNode.run(episodeId, turnId, turn.plan?.round, sub.id, model?.id ?? null, sub.primitive ?? null, sub.status ?? null);
        for (const dep of sub.depends_on) this.s.insertPlanEdge.run(episodeId, turn.plan?.round, dep, sub.id);
      }
    }
  }
}
