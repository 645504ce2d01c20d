/**
 * `routelens export-data --format jsonl --out FILE`: every episode of the database written back as a `routelens/v1`
 * line (shared/canonical.ts) that re-imports to the same turns, tokens, costs, parents and messages.
 *
 * Episodes are read a page at a time (by id, the order they were imported in, so parents still come before the
 * children an importer wrote after them), each page's turns, errors, candidates, plans, messages and grader calls in
 * one query per table, and written with the stream's backpressure: memory holds one page, whatever the database's size.
 *
 * What goes back is what the log gave, not what RouteLens filled in, so the re-import fills it in again the same way:
 * a logged cost is `cost_usd`, a priced one only its tokens (priced again from the same table), an unknown one
 * neither; errors the log gave are `errors`, errors the rules found are left to the rules (`errors` absent) and a
 * turn with none says so (`[]`).
 */
import { once } from 'node:events';
import { createWriteStream, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import {
  CANONICAL_SCHEMA, describeIssue, parseCanonicalEpisode, ToolCall, type CanonicalEpisode, type CanonicalTurn, type ConversationMessage,
} from '../../shared/canonical.ts';
import { severityFromLevel } from '../../shared/formulas.ts';
import { nameRecord } from '../../shared/nameRecord.ts';
import type { Redactor } from '../../shared/redact.ts';
import type { Db } from '../db/dbHandle.ts';
import { storedOutcome } from '../db/storedOutcome.ts';

/** Episodes read per page: at a few hundred turns each, a page's text stays in the tens of megabytes. */
const PAGE_EPISODES = 100;

export interface CanonicalExportReport {
  file: string;
  episodes: number;
  turns: number;
  messages: number;
}

interface EpisodeRowRaw {
  id: number;
  run: string;
  ext_id: string;
  task_id: string | null;
  task_type: string | null;
  task_category: string | null;
  split: string | null;
  difficulty: string | null;
  final_score: number | null;
  score_lo: number | null;
  score_hi: number | null;
  success: number | null;
  logged_cost: number | null;
  expected_steps: number | null;
  exit_reason: string | null;
  budget_usd: number | null;
  budget_mode: string | null;
  max_turns: number | null;
  train_step: number | null;
  parent_ext_id: string | null;
  parent_t: number | null;
  kind: string | null;
  agent: string | null;
  started_at: string | null;
  task_text: string | null;
  policy_name: string | null;
  policy_kind: string | null;
  system_prompt: string | null;
  detail: string | null;
  /** episode_text.outcome (episodeWriter.ts outcomeExplanation): what explains the outcome, as logged. */
  outcome: string | null;
}

interface TurnRowRaw {
  id: number;
  episode_id: number;
  t: number;
  model: string;
  action_type: string;
  tool: string | null;
  action: string | null;
  observation: string | null;
  detail: string | null;
  role: string | null;
  tokens_in: number | null;
  tokens_out: number | null;
  tokens_cached: number | null;
  tokens_cache_write: number | null;
  tokens_cache_write_1h: number | null;
  tokens_reasoning: number | null;
  cost: number;
  cost_source: 'logged' | 'priced' | 'none';
  latency_ms: number | null;
  propensity: number | null;
  verdict: 'stop' | 'continue' | null;
  verify_correct: number | null;
  greedy_model: string | null;
  was_greedy: number | null;
  beta: number | null;
}

/** turn_text.detail and episode_text.detail as the writer writes them (episodeWriter.ts turnDetail, episodeDetail). */
const TurnDetailJson = z.object({
  reasoning: z.string().optional(),
  message: z.string().optional(),
  tool_calls: z.array(ToolCall).optional(),
  notes: z.array(z.string()).optional(),
  timestamp: z.string().optional(),
});
const EpisodeDetailJson = z.object({
  agent: z.object({ name: z.string().nullish(), version: z.string().nullish() }).optional(),
  parent_tool_call_id: z.string().optional(),
  usage_totals: z.array(z.unknown()).optional(),
  usage_targets: nameRecord(z.number()).optional(),
});

function parseJson<T>(schema: z.ZodType<T>, text: string | null): T | null {
  if (!text) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** `value` without its null and undefined fields, so a line carries only what is known. */
function known<T extends Record<string, unknown>>(value: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = v;
  return out as Partial<T>;
}

function nonEmpty<T extends Record<string, unknown>>(value: T): Partial<T> | undefined {
  const k = known(value);
  return Object.keys(k).length > 0 ? k : undefined;
}

const bool = (v: number | null): boolean | null => (v === null ? null : v !== 0);

/** Groups rows by a key, keeping their order. */
function groupBy<T>(rows: readonly T[], key: (row: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const k = key(r);
    let list = out.get(k);
    if (!list) out.set(k, (list = []));
    list.push(r);
  }
  return out;
}

/** The queries of one page of episodes (ids as a JSON array). */
function statements(db: Db) {
  const hasLogTotals = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'episode_log_totals'").get() !== undefined;
  const ids = 'SELECT value FROM json_each(?)';
  return {
    episodes: db.prepare(`SELECT e.id, r.name AS run, e.ext_id, e.task_id, e.task_type, e.task_category, e.split, e.difficulty, e.final_score,
        e.score_lo, e.score_hi, e.success, e.logged_cost, e.expected_steps, e.exit_reason, e.budget_usd, e.budget_mode, e.max_turns, e.train_step,
        e.parent_ext_id, e.parent_t, e.kind, e.agent, e.started_at, x.task_text, x.policy_name, r.policy_kind, x.system_prompt, x.detail, x.outcome
      FROM episodes e JOIN runs r ON r.id = e.run_id LEFT JOIN episode_text x ON x.episode_id = e.id
      WHERE e.id > ? ORDER BY e.id LIMIT ${PAGE_EPISODES}`),
    turns: db.prepare(`SELECT t.id, t.episode_id, t.t, m.name AS model, t.action_type, t.tool, x.action, x.observation, x.detail, t.role,
        t.tokens_in, t.tokens_out, t.tokens_cached, t.tokens_cache_write, t.tokens_cache_write_1h, t.tokens_reasoning, t.cost, t.cost_source,
        t.latency_ms, t.propensity, t.verdict, t.verify_correct, g.name AS greedy_model, t.was_greedy, t.beta
      FROM turns t JOIN models m ON m.id = t.model_id LEFT JOIN models g ON g.id = t.greedy_model_id LEFT JOIN turn_text x ON x.turn_id = t.id
      WHERE t.episode_id IN (${ids}) ORDER BY t.episode_id, t.t`),
    errors: db.prepare(`SELECT te.turn_id, y.name AS type, te.severity, te.source FROM turn_errors te JOIN error_types y ON y.id = te.error_type_id
      WHERE te.turn_id IN (SELECT id FROM turns WHERE episode_id IN (${ids})) ORDER BY te.turn_id, te.rowid`),
    candidates: db.prepare(`SELECT c.turn_id, m.name AS model, c.logged_score AS score FROM turn_candidates c JOIN models m ON m.id = c.model_id
      WHERE c.turn_id IN (SELECT id FROM turns WHERE episode_id IN (${ids})) ORDER BY c.turn_id, c.rowid`),
    planNodes: db.prepare(`SELECT p.episode_id, p.turn_id, p.round, p.subtask_id, m.name AS model, p.primitive, p.status FROM plan_nodes p
      LEFT JOIN models m ON m.id = p.model_id WHERE p.episode_id IN (${ids}) ORDER BY p.id`),
    planEdges: db.prepare(`SELECT episode_id, round, src, dst FROM plan_edges WHERE episode_id IN (${ids}) ORDER BY rowid`),
    messages: db.prepare(`SELECT episode_id, t, role, text, timestamp FROM messages WHERE episode_id IN (${ids}) ORDER BY episode_id, seq`),
    graders: db.prepare(`SELECT g.episode_id, m.name AS model, g.tokens_in, g.tokens_out, g.cost, g.cost_source, g.text FROM grader_calls g
      JOIN models m ON m.id = g.model_id WHERE g.episode_id IN (${ids}) ORDER BY g.id`),
    logTotals: hasLogTotals
      ? db.prepare(`SELECT episode_id, source, requests, tokens_in, tokens_out, tokens_cached, tokens_cache_write, tokens_cache_write_1h,
          tokens_reasoning, cost FROM episode_log_totals WHERE episode_id IN (${ids})`)
      : null,
  };
}

interface Page {
  turns: Map<number, TurnRowRaw[]>;
  errors: Map<number, { turn_id: number; type: string; severity: number; source: 'log' | 'rule' }[]>;
  candidates: Map<number, { turn_id: number; model: string; score: number }[]>;
  planNodes: Map<number, { episode_id: number; turn_id: number | null; round: number; subtask_id: string; model: string | null; primitive: string | null; status: string | null }[]>;
  planEdges: Map<number, { episode_id: number; round: number; src: string; dst: string }[]>;
  messages: Map<number, { episode_id: number; t: number | null; role: string; text: string; timestamp: string | null }[]>;
  graders: Map<number, { episode_id: number; model: string; tokens_in: number | null; tokens_out: number | null; cost: number; cost_source: string; text: string | null }[]>;
  logTotals: Map<number, Record<string, number | string | null>>;
}

function readPage(s: ReturnType<typeof statements>, episodeIds: number[]): Page {
  const ids = JSON.stringify(episodeIds);
  const byEpisode = <T extends { episode_id: number }>(rows: unknown[]) => groupBy(rows as T[], (r) => r.episode_id);
  const byTurn = <T extends { turn_id: number }>(rows: unknown[]) => groupBy(rows as T[], (r) => r.turn_id);
  return {
    turns: byEpisode(s.turns.all(ids)),
    errors: byTurn(s.errors.all(ids)),
    candidates: byTurn(s.candidates.all(ids)),
    planNodes: byEpisode(s.planNodes.all(ids)),
    planEdges: byEpisode(s.planEdges.all(ids)),
    messages: byEpisode(s.messages.all(ids)),
    graders: byEpisode(s.graders.all(ids)),
    logTotals: new Map(((s.logTotals?.all(ids) ?? []) as Record<string, number | string | null>[]).map((r) => [r.episode_id as number, r])),
  };
}

const message = (m: { role: string; text: string; timestamp: string | null }): ConversationMessage =>
  known({ role: m.role, text: m.text, timestamp: m.timestamp }) as ConversationMessage;

function tokensOf(r: { tokens_in: number | null; tokens_out: number | null; tokens_cached?: number | null; tokens_cache_write?: number | null;
  tokens_cache_write_1h?: number | null; tokens_reasoning?: number | null }): CanonicalTurn['tokens'] | undefined {
  return nonEmpty({
    in: r.tokens_in, out: r.tokens_out, cached: r.tokens_cached, cache_write: r.tokens_cache_write, reasoning: r.tokens_reasoning,
    cache_write_1h: r.tokens_cache_write_1h,
  });
}

function turnOf(row: TurnRowRaw, position: number, page: Page, inputs: ConversationMessage[] | undefined): CanonicalTurn {
  const detail = parseJson(TurnDetailJson, row.detail);
  const errors = page.errors.get(row.id) ?? [];
  const candidates = page.candidates.get(row.id) ?? [];
  const nodes = (page.planNodes.get(row.episode_id) ?? []).filter((n) => n.turn_id === row.id);
  const edges = page.planEdges.get(row.episode_id) ?? [];
  const round = nodes[0]?.round;
  return known({
    t: position,
    model: row.model,
    action: known({ type: row.action_type, tool: row.tool, text: row.action }) as CanonicalTurn['action'],
    observation: row.observation,
    role: row.role,
    reasoning: detail?.reasoning,
    message: detail?.message,
    tool_calls: detail?.tool_calls?.length ? detail.tool_calls : undefined,
    inputs: inputs?.length ? inputs : undefined,
    notes: detail?.notes?.length ? detail.notes : undefined,
    timestamp: detail?.timestamp,
    tokens: tokensOf(row),
    cost_usd: row.cost_source === 'logged' ? row.cost : undefined,
    latency_ms: row.latency_ms,
    propensity: row.propensity,
    candidates: candidates.length > 0 ? Object.fromEntries(candidates.map((c) => [c.model, c.score])) : undefined,
    router: nonEmpty({ greedy_model: row.greedy_model, was_greedy: bool(row.was_greedy), beta: row.beta }),
    // Errors the rules found are left to the rules; a turn without any says so, so no rule adds one on re-import.
    errors: errors.some((e) => e.source === 'rule')
      ? undefined
      : errors.map((e) => ({ type: e.type, severity: severityFromLevel(e.severity) ?? 'low' })),
    verify: row.verdict === null ? undefined : known({ verdict: row.verdict, correct: bool(row.verify_correct) }) as CanonicalTurn['verify'],
    plan: round === undefined ? undefined : {
      round,
      subtasks: nodes.map((n) => known({
        id: n.subtask_id,
        depends_on: edges.filter((e) => e.round === round && e.dst === n.subtask_id).map((e) => e.src),
        model: n.model, primitive: n.primitive, status: n.status,
      }) as NonNullable<CanonicalTurn['plan']>['subtasks'][number]),
    },
  }) as CanonicalTurn;
}

/** One stored episode as the canonical line that re-imports to it. */
function episodeOf(e: EpisodeRowRaw, page: Page): CanonicalEpisode {
  const detail = parseJson(EpisodeDetailJson, e.detail);
  const messages = page.messages.get(e.id) ?? [];
  const inputs = groupBy(messages.filter((m) => m.t !== null), (m) => m.t as number);
  const final = messages.filter((m) => m.t === null).map(message);
  const totals = page.logTotals.get(e.id);
  const turns = (page.turns.get(e.id) ?? []).map((row, i) => turnOf(row, i, page, inputs.get(row.t)?.map(message)));
  return known({
    schema: CANONICAL_SCHEMA,
    run: e.run,
    episode_id: e.ext_id,
    task: known({
      id: e.task_id, type: e.task_type, category: e.task_category, split: e.split, difficulty: e.difficulty, text: e.task_text,
      expected_steps: e.expected_steps,
    }),
    outcome: known({
      score: e.final_score,
      score_range: e.score_lo !== null && e.score_hi !== null ? [e.score_lo, e.score_hi] : null,
      success: bool(e.success),
      exit: e.exit_reason,
      ...storedOutcome(e.outcome),
    }),
    budget: nonEmpty({ mode: e.budget_mode, usd: e.budget_usd, max_turns: e.max_turns }),
    policy: nonEmpty({ name: e.policy_name, kind: e.policy_kind, train_step: e.train_step, usage_targets: detail?.usage_targets }),
    cost_usd: e.logged_cost,
    grader_calls: (page.graders.get(e.id) ?? []).map((g) => known({
      model: g.model, tokens: tokensOf(g), cost_usd: g.cost_source === 'logged' ? g.cost : null, text: g.text,
    })),
    parent: e.parent_ext_id === null ? undefined : known({ episode_id: e.parent_ext_id, t: e.parent_t, tool_call_id: detail?.parent_tool_call_id }),
    kind: e.kind,
    // The agent as logged when the detail has it; an older database has only "name version" in one string.
    agent: detail?.agent ?? (e.agent === null ? undefined : { name: e.agent }),
    started_at: e.started_at,
    system_prompt: e.system_prompt,
    usage_totals: detail?.usage_totals,
    final_messages: final.length > 0 ? final : undefined,
    log_totals: totals === undefined ? undefined : known({
      source: totals.source,
      requests: totals.requests,
      tokens: tokensOf(totals as Parameters<typeof tokensOf>[0]),
      cost_usd: totals.cost,
    }),
    turns,
  }) as CanonicalEpisode;
}

/**
 * Writes every episode of `db` to `out` (through `out.partial`, renamed when complete: a failed export leaves no
 * half-written file under the name). Throws RangeError for a path it cannot write. With `redactor`, every string
 * of each episode (text, names, ids alike; keys stay) goes through it before the line is checked and written.
 */
export async function exportCanonical(
  db: Db,
  out: string,
  progress?: (episodes: number, total: number) => void,
  redactor?: Redactor,
): Promise<CanonicalExportReport> {
  const file = resolve(out);
  if (existsSync(file) && statSync(file).isDirectory()) throw new RangeError(`${out}: is a folder (give the file to write)`);
  if (!existsSync(dirname(file)) || !statSync(dirname(file)).isDirectory()) throw new RangeError(`${out}: no such folder ${dirname(file)}`);
  const s = statements(db);
  const total = db.prepare('SELECT COUNT(*) FROM episodes').pluck().get() as number;
  const partial = `${file}.partial`;
  const stream = createWriteStream(partial, { encoding: 'utf8' });
  const failed = new Promise<never>((_, reject) => stream.once('error', reject));
  failed.catch(() => undefined);
  const report: CanonicalExportReport = { file, episodes: 0, turns: 0, messages: 0 };
  try {
    await Promise.race([once(stream, 'open'), failed]).catch((e: unknown) => {
      throw new RangeError(`${out}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    });
    let after = 0;
    for (;;) {
      const rows = s.episodes.all(after) as EpisodeRowRaw[];
      if (rows.length === 0) break;
      const page = readPage(s, rows.map((r) => r.id));
      let chunk = '';
      for (const e of rows) {
        const ep = redactor === undefined ? episodeOf(e, page) : redactor.value(episodeOf(e, page));
        // A line this export writes must import: anything else is RouteLens's bug, reported as such (exit 2).
        const checked = parseCanonicalEpisode(ep);
        if (!checked.success) throw new Error(`episode "${e.ext_id}" of run "${e.run}" would not re-import: ${describeIssue(checked.error)}`);
        chunk += `${JSON.stringify(ep)}\n`;
        report.episodes++;
        report.turns += ep.turns.length;
        report.messages += (page.messages.get(e.id) ?? []).length;
      }
      after = rows[rows.length - 1]?.id as number;
      if (!stream.write(chunk)) await Promise.race([once(stream, 'drain'), failed]);
      progress?.(report.episodes, total);
    }
    stream.end();
    await Promise.race([once(stream, 'finish'), failed]);
    renameSync(partial, file);
    return report;
  } catch (e) {
    stream.destroy();
    rmSync(partial, { force: true });
    throw e;
  }
}
