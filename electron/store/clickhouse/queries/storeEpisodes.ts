/**
 * The window's reads on the ClickHouse store, answering the same contract as the SQLite path (shared/api.ts):
 * the runs, the models, one page of the Episodes list (sorted, filtered and searched on the shards, only the page
 * coming back) and one episode whole, fetched when the inspector opens it. Ids: an episode's is its key (52 bits,
 * a JSON-safe integer, the same on every import of it); a run's is a hash of its name, stable across imports.
 */
import { createHash } from 'node:crypto';
import type { EpisodeDetail, EpisodePage, EpisodeQuery, EpisodeRow, EpisodeSortColumn, ModelInfo, RunSummary } from '../../../../shared/api.ts';
import { modelColorSlots, modelsByRun } from '../../../../shared/charts/palette.ts';
import { loadPool, shippedPriceOf } from '../../../db/models.ts';
import { storedOutcome } from '../../../db/storedOutcome.ts';
import type { EpisodeMetaRaw, TurnErrorRaw, TurnRowRaw } from '../../../db/turnQueries.ts';
import { NotFoundError } from '../../../services/serviceErrors.ts';
import { messageDetails, turnDetails } from '../../../services/turnDetails.ts';
import { episodeKey } from '../import/episodeRows.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { visibleImports, visibleRows } from '../schema/schema.ts';
import { episodesWithMessage, matchingEpisodes, messageCondition, searchHitsOnStore, textCondition } from './storeSearch.ts';
import { storeInfo } from './storeInfo.ts';

/** A run's id on the store: 48 bits of sha256 of its name (what the window's run filters send back). */
export function runIdOf(name: string): number {
  return Number.parseInt(createHash('sha256').update('run\0').update(name).digest('hex').slice(0, 12), 16);
}

const num = (x: unknown): number => Number(x);
const numOrNull = (x: unknown): number | null => (x === null || x === undefined ? null : Number(x));

export async function listRunsOnStore(store: ClickHouseStore): Promise<RunSummary[]> {
  return (await storeInfo(store)).map((r) => ({
    id: runIdOf(r.name),
    name: r.name,
    format: r.format,
    source_path: r.source_path,
    imported_at: r.imported_at,
    policy_name: r.policy_name,
    episodes: r.episodes,
    turns: r.turns,
    models: r.models,
    total_cost: r.total_cost,
    known_cost: r.known_cost,
    unpriced_turns: r.unpriced_turns,
    success_rate: r.success_rate,
    mean_score_norm: r.mean_score_norm,
    unknown_outcome: r.unknown_outcome,
    unpriced_episodes: r.unpriced_episodes,
    child_episodes: r.child_episodes,
    priced_turns: r.priced_turns,
    log_totals: r.log_totals,
  }));
}

/** Models the store's turns ran on, as they first arrived. */
async function usedModels(store: ClickHouseStore): Promise<string[]> {
  return (await store.query<{ model: string }>(
    `SELECT model, min(import_id) AS first FROM ${store.table('turns')} WHERE ${visibleRows(store)} GROUP BY model ORDER BY first, model`,
  )).map((r) => r.model);
}

/** Every model a SQLite database would have ids for, in id order: the shipped pool's entries, then the others as they arrived. */
export async function storeModelOrder(store: ClickHouseStore): Promise<string[]> {
  const pool = loadPool().map((m) => m.name);
  return [...pool, ...(await usedModels(store)).filter((m) => !pool.includes(m))];
}

/**
 * The models the store's turns ran on, with the prices RouteLens ships; colour order as in SQLite: the pool's
 * models first, in the pool's order, then the others (models/pool.json's first) as they first arrived.
 */
export async function listModelsOnStore(store: ClickHouseStore): Promise<ModelInfo[]> {
  const used = await usedModels(store);
  const pool = loadPool();
  const names = new Set(used.map((u) => u));
  const entries = [
    ...pool.filter((m) => m.pool),
    ...pool.filter((m) => !m.pool && names.has(m.name)),
    ...used.filter((u) => !pool.some((m) => m.name === u)).map((u) => {
      const price = shippedPriceOf(u);
      return { name: u, provider: null, price_in_per_m: price.pin, price_out_per_m: price.pout, tier: null };
    }),
  ];
  // No two models of one run alike, as on SQLite (palette.ts modelColorSlots).
  const pairs = await store.query<{ run: string; model: string }>(`SELECT DISTINCT run, model FROM ${store.table('turns')} WHERE ${visibleRows(store)}`);
  const slots = modelColorSlots(entries.map((m) => m.name), modelsByRun(pairs));
  return entries.map((m, i) => ({
    id: i + 1, name: m.name, provider: m.provider, price_in_per_m: m.price_in_per_m, price_out_per_m: m.price_out_per_m, tier: m.tier, color_index: slots[i] as number,
  }));
}

/**
 * Unknown costs sort last both ways (NULLS LAST), never as $0; ties keep the episodes' import order. `id` is the
 * import order, as SQLite's ids are (the window shows no number for a store's episodes: their keys are hashes).
 */
const SORT_SQL: Record<EpisodeSortColumn, string> = {
  id: 'import_id',
  run: 'run',
  ext_id: 'ext_id',
  task_category: 'task_category',
  n_turns: 'n_turns',
  total_cost: 'if(cost_known = 1, total_cost, NULL)',
  final_score: 'score_norm',
  success: 'success',
  n_errors: 'n_errors',
  n_switches: 'n_switches',
};

const ROW_COLUMNS = `episode_key, run, ext_id, task_category, n_turns, total_cost, cost_known, unpriced_turns, final_score, score_norm, success,
  exit_reason, n_errors, n_switches`;

type RawRow = {
  episode_key: string;
  run: string;
  ext_id: string;
  task_category: string | null;
  n_turns: number;
  total_cost: number;
  cost_known: number;
  unpriced_turns: number;
  final_score: number | null;
  score_norm: number | null;
  success: number | null;
  exit_reason: string | null;
  n_errors: number;
  n_switches: number;
};

/** The models each of these episodes ran on, by name. */
async function modelsOf(store: ClickHouseStore, keys: number[]): Promise<Map<number, string[]>> {
  if (keys.length === 0) return new Map();
  const rows = await store.query<{ k: string; models: string[] }>(
    `SELECT episode_key AS k, arraySort(groupUniqArray(model)) AS models FROM ${store.table('turns')}
     WHERE ${visibleRows(store)} AND has({keys:Array(UInt64)}, episode_key) GROUP BY episode_key`,
    { keys },
  );
  return new Map(rows.map((r) => [num(r.k), r.models]));
}

function episodeRow(r: RawRow, models: string[]): EpisodeRow {
  return {
    id: num(r.episode_key),
    run_id: runIdOf(r.run),
    run: r.run,
    ext_id: r.ext_id,
    task_category: r.task_category,
    n_turns: num(r.n_turns),
    total_cost: num(r.cost_known) === 1 ? num(r.total_cost) : null,
    known_cost: num(r.total_cost),
    unpriced_turns: num(r.unpriced_turns),
    final_score: numOrNull(r.final_score),
    score_norm: numOrNull(r.score_norm),
    success: r.success === null ? null : num(r.success) === 1,
    exit_reason: r.exit_reason,
    n_errors: num(r.n_errors),
    n_switches: num(r.n_switches),
    models,
  };
}

/** The run names the store holds, by id. */
export async function runNamesById(store: ClickHouseStore): Promise<Map<number, string>> {
  const rows = await store.query<{ run: string }>(`SELECT DISTINCT run FROM ${store.database}.runs WHERE import_id IN (${visibleImports(store)})`);
  return new Map(rows.map((r) => [runIdOf(r.run), r.run]));
}

/**
 * One page of sessions (a subagent is listed under its session in the inspector, not here), sorted, filtered and
 * searched on the shards: the count and the page's rows come back, nothing else.
 */
export async function queryEpisodesOnStore(store: ClickHouseStore, q: Required<Pick<EpisodeQuery, 'sort' | 'desc' | 'offset' | 'limit' | 'outcome'>> & EpisodeQuery): Promise<EpisodePage> {
  const where = [visibleRows(store), 'episode_key = root_key'];
  const params: Record<string, unknown> = {};
  if (q.runIds && q.runIds.length > 0) {
    const names = await runNamesById(store);
    params.runs = q.runIds.map((id) => names.get(id)).filter((n): n is string => n !== undefined);
    where.push('has({runs:Array(String)}, run)');
  }
  if (q.models && q.models.length > 0) {
    params.models = q.models;
    where.push(`episode_key ${store.globalIn} (SELECT DISTINCT episode_key FROM ${store.table('turns')} WHERE ${visibleRows(store)} AND has({models:Array(String)}, model))`);
  }
  if (q.outcome === 'success') where.push('success = 1');
  else if (q.outcome === 'failure') where.push('success = 0');
  else if (q.outcome === 'unknown') where.push('success IS NULL');
  if (q.ext_id !== undefined) {
    params.ext = q.ext_id;
    where.push('ext_id = {ext:String}');
  }
  const search = q.search?.trim() ?? '';
  const condition = search ? textCondition(search) : null;
  if (search) {
    // The log's episode id holding the typed text, or a turn holding every word (as in the SQLite path).
    params.like = search;
    const alternatives = ['positionCaseInsensitiveUTF8(ext_id, {like:String}) > 0'];
    if (condition) alternatives.push(`episode_key ${store.globalIn} (${matchingEpisodes(store, condition)})`);
    const inMessages = messageCondition(search);
    if (inMessages) alternatives.push(`episode_key ${store.globalIn} (${episodesWithMessage(store, inMessages)})`);
    where.push(`(${alternatives.join(' OR ')})`);
  }
  const from = `FROM ${store.table('episodes')} WHERE ${where.join(' AND ')}`;
  const dir = q.desc ? 'DESC' : 'ASC';
  const [count] = await store.query<{ n: string }>(`SELECT count() AS n ${from}`, params);
  const rows = await store.query<RawRow>(
    `SELECT ${ROW_COLUMNS} ${from} ORDER BY ${SORT_SQL[q.sort]} ${dir} NULLS LAST, import_id ${dir}, file_ord ${dir}
     LIMIT ${Math.trunc(q.limit)} OFFSET ${Math.trunc(q.offset)}`,
    params,
  );
  const keys = rows.map((r) => num(r.episode_key));
  const models = await modelsOf(store, keys);
  const page = rows.map((r) => episodeRow(r, models.get(num(r.episode_key)) ?? []));
  if (!condition) return { total: num(count?.n ?? 0), rows: page };
  const hits = await searchHitsOnStore(store, keys, search);
  return { total: num(count?.n ?? 0), rows: page.map((r) => ({ ...r, match: hits.get(r.id) ?? null })) };
}

/** Episodes with this id from the log, optionally within one run. */
export async function findEpisodesOnStore(store: ClickHouseStore, extId: string, run?: string): Promise<{ id: number; run: string }[]> {
  const rows = await store.query<{ k: string; run: string }>(
    `SELECT episode_key AS k, run FROM ${store.table('episodes')} WHERE ${visibleRows(store)} AND ext_id = {ext:String}
     ${run === undefined ? '' : 'AND run = {run:String}'} ORDER BY run`,
    { ext: extId, ...(run === undefined ? {} : { run }) },
  );
  return rows.map((r) => ({ id: num(r.k), run: r.run }));
}

/** An episode's row with what the inspector's header reads (the same fields as SQLite's episodeMeta). */
type RawEpisode = RawRow & Pick<EpisodeMetaRaw,
  'task_id' | 'task_type' | 'split' | 'task_text' | 'expected_steps' | 'budget_usd' | 'max_turns' | 'policy_name' | 'kind' | 'agent' | 'started_at' |
  'system_prompt' | 'outcome' | 'unpriced_turns' | 'parent_ext_id' | 'parent_t'>;

/** One episode whole, as the inspector reads it: its rows from the shard that holds it, nothing else. */
/** Every turn of the episode in full: the service pages it (services/episodePages.ts pagedDetail). */
export async function episodeDetailOnStore(store: ClickHouseStore, id: number): Promise<Omit<EpisodeDetail, 'turn_count' | 'turns_from' | 'outline'>> {
  const [e] = await store.query<RawEpisode>(
    `SELECT ${ROW_COLUMNS}, task_id, task_type, split, task_text, expected_steps, budget_usd, max_turns, policy_name, kind, agent,
       started_at, system_prompt, outcome, unpriced_turns, parent_ext_id, parent_t
     FROM ${store.table('episodes')} WHERE ${visibleRows(store)} AND episode_key = {k:UInt64} LIMIT 1`,
    { k: id },
  );
  if (!e) throw new NotFoundError(`no episode with id ${id}`);
  const key = { k: id, run: e.run };
  const of = (table: string) => `FROM ${store.table(table)} WHERE ${visibleRows(store)} AND episode_key = {k:UInt64}`;
  const [turns, text, errors, candidates, children, models] = await Promise.all([
    store.query<Omit<TurnRowRaw, 'action' | 'observation' | 'detail' | 'id'> & { pos: number; s_tilde: number | null; penalty: number | null }>(
      `SELECT pos, t, model, switched, action_type, tool, tokens_in, tokens_out, tokens_cached, tokens_cache_write, tokens_reasoning, role,
         cost, cost_source, latency_ms, propensity, severity AS max_severity, greedy_model, was_greedy, beta, s_tilde, penalty,
         price_table, price_version, cache_tier
       ${of('turns')} AND run = {run:String} ORDER BY pos`,
      key,
    ),
    store.query<{ pos: number; action: string | null; observation: string | null; detail: string | null }>(
      `SELECT pos, action, observation, detail ${of('turn_text')}`, key,
    ),
    store.query<{ pos: number; type: string; severity: number; source: 'log' | 'rule' }>(
      `SELECT pos, error_type AS type, severity, source ${of('turn_errors')} AND run = {run:String} ORDER BY pos, severity DESC, error_type`, key,
    ),
    store.query<{ pos: number; model: string; score: number }>(`SELECT pos, model, logged_score AS score ${of('turn_candidates')} AND run = {run:String}`, key),
    store.query<{ k: string; ext_id: string; kind: string | null; parent_t: number | null; n_turns: number; total_cost: number; cost_known: number }>(
      `SELECT episode_key AS k, ext_id, kind, parent_t, n_turns, total_cost, cost_known FROM ${store.table('episodes')}
       WHERE ${visibleRows(store)} AND run = {run:String} AND parent_ext_id = {ext:String}
       ORDER BY isNull(parent_t), parent_t, import_id, file_ord`,
      { run: e.run, ext: e.ext_id },
    ),
    modelsOf(store, [id]),
  ]);
  const messageRows = await store.query<{ t: number | string | null; role: string; text: string; timestamp: string | null }>(
    `SELECT t, role, text, timestamp ${of('messages')} ORDER BY seq`, key,
  );
  const messages = messageDetails(messageRows.map((m) => ({ ...m, t: numOrNull(m.t) })));
  const textAt = new Map(text.map((x) => [num(x.pos), x]));
  const rows: TurnRowRaw[] = turns.map((t) => {
    const x = textAt.get(num(t.pos));
    return {
      ...t,
      id: num(t.pos),
      t: num(t.t),
      switched: num(t.switched),
      tokens_in: numOrNull(t.tokens_in),
      tokens_out: numOrNull(t.tokens_out),
      tokens_cached: numOrNull(t.tokens_cached),
      tokens_cache_write: numOrNull(t.tokens_cache_write),
      tokens_reasoning: numOrNull(t.tokens_reasoning),
      cost: t.cost === null ? 0 : num(t.cost),
      latency_ms: numOrNull(t.latency_ms),
      propensity: numOrNull(t.propensity),
      max_severity: num(t.max_severity),
      was_greedy: numOrNull(t.was_greedy),
      beta: numOrNull(t.beta),
      action: x?.action ?? null,
      observation: x?.observation ?? null,
      detail: x?.detail ?? null,
    };
  });
  const errorRows: TurnErrorRaw[] = errors.map((x) => ({ turn_id: num(x.pos), type: x.type, severity: num(x.severity), source: x.source }));
  const candidateRows = candidates.map((c) => ({ turn_id: num(c.pos), model: c.model, score: num(c.score) }));
  const targets = turns.map((t) => ({ s_tilde: numOrNull(t.s_tilde), penalty: numOrNull(t.penalty) }));
  const childModels = await modelsOf(store, children.map((c) => num(c.k)));
  let parent: EpisodeDetail['episode']['parent'] = null;
  if (e.parent_ext_id !== null) {
    const found = await findEpisodesOnStore(store, e.parent_ext_id, e.run);
    parent = { id: found.length > 0 ? episodeKey(e.run, e.parent_ext_id) : null, ext_id: e.parent_ext_id, t: numOrNull(e.parent_t) };
  }
  return {
    episode: {
      ...episodeRow(e, models.get(id) ?? []),
      task_id: e.task_id,
      task_type: e.task_type,
      split: e.split,
      task_text: e.task_text,
      expected_steps: num(e.expected_steps ?? 0),
      budget_usd: numOrNull(e.budget_usd),
      max_turns: numOrNull(e.max_turns),
      policy_name: e.policy_name,
      kind: e.kind,
      agent: e.agent,
      started_at: e.started_at,
      system_prompt: e.system_prompt,
      unpriced_turns: num(e.unpriced_turns),
      parent,
      outcome: storedOutcome(e.outcome),
    },
    turns: turnDetails(rows, errorRows, candidateRows, targets, messages.inputs),
    final_messages: messages.final,
    children: children.map((c) => ({
      id: num(c.k),
      ext_id: c.ext_id,
      kind: c.kind,
      parent_t: numOrNull(c.parent_t),
      n_turns: num(c.n_turns),
      total_cost: num(c.cost_known) === 1 ? num(c.total_cost) : null,
      models: childModels.get(num(c.k)) ?? [],
    })),
  };
}
