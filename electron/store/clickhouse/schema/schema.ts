/**
 * The ClickHouse store's tables (DESIGN §2, second store). Each sharded table is a MergeTree `X_local` on every
 * shard, ordered for the analyses' scans, with a Distributed `X` over the cluster sharded by the session's root
 * episode, so all turns of an episode (and of its subagents) sit on one shard. The import ledger, runs and the
 * schema version live on the first host. Columns the analyses need across turns (the next turn's model switch
 * and error, the cumulative cost) and the episode's facts the turn-level analyses filter on are written at
 * import, so every analysis is a plain aggregation.
 *
 * Only SQL that ClickHouse 18.16 (Debian's) and current releases both accept: `ENGINE = MergeTree() ORDER BY`,
 * Nullable, no LowCardinality, no ON CLUSTER (that needs ZooKeeper): RouteLens runs the DDL on each host itself.
 */
import { StoreError, type ClickHouseStore } from './connection.ts';

/**
 * 2: episodes gained parent_t, expected_steps and policy_name (the inspector's header) and file_ord (the order of
 * the episodes in their file, the Episodes list's default), added by `store init`.
 * 3: estimates (ŝ per turn × candidate model, storeScoring.ts) and the scorings ledger, created by `store init`.
 * 5: messages (every message that is not a model response, as SQLite's `messages`), episodes.detail and
 * turns.tokens_cache_write_1h, added by `store init`.
 * 6: episodes gained the log's own totals beside the turns' figures (log_*, counted_*: SQLite's episode_log_totals)
 * and turns how a priced cost was priced (price_table, price_version, cache_tier), added by `store init`.
 * 7: episodes gained outcome (what explains the outcome, as SQLite's episode_text.outcome: JSON, `{}` when the log
 * has none, NULL for episodes imported before), added by `store init`.
 */
export const STORE_SCHEMA_VERSION = 7;

/** Sharded tables: columns and sort key. `root_key` is the sharding key. */
const SHARDED: Record<string, { columns: string; orderBy: string }> = {
  episodes: {
    columns: `import_id UInt64, episode_key UInt64, root_key UInt64, run String, ext_id String,
      task_id Nullable(String), task_type Nullable(String), task_category Nullable(String), split Nullable(String),
      difficulty Nullable(String), difficulty_num Nullable(Float32), final_score Nullable(Float64), score_norm Nullable(Float32),
      success Nullable(UInt8), expert_call UInt8, detail Nullable(String),
      total_cost Float64, cost_known UInt8, unpriced_turns UInt32, n_turns UInt32, n_switches UInt32, n_errors UInt32,
      budget_mode Nullable(String), budget_usd Nullable(Float64), max_turns Nullable(Int32), train_step Nullable(Int32),
      exit_reason Nullable(String), kind Nullable(String), agent Nullable(String), parent_ext_id Nullable(String),
      started_at Nullable(String), task_text Nullable(String), system_prompt Nullable(String), behaviour_mode Nullable(String),
      parent_t Nullable(Int32), expected_steps Nullable(Int32), policy_name Nullable(String), file_ord UInt32,
      log_source Nullable(String), log_requests Nullable(Int64), log_tokens_in Nullable(Int64), log_tokens_out Nullable(Int64),
      log_tokens_cached Nullable(Int64), log_tokens_cache_write Nullable(Int64), log_tokens_cache_write_1h Nullable(Int64),
      log_tokens_reasoning Nullable(Int64), log_cost Nullable(Float64), counted_requests Nullable(Int64), counted_tokens_in Nullable(Int64),
      counted_tokens_out Nullable(Int64), counted_tokens_cached Nullable(Int64), counted_tokens_cache_write Nullable(Int64),
      counted_tokens_cache_write_1h Nullable(Int64), counted_tokens_reasoning Nullable(Int64), counted_cost Nullable(Float64),
      log_compared Nullable(UInt8), log_differing Nullable(UInt8), log_worst_rel Nullable(Float64), outcome Nullable(String)`,
    orderBy: '(run, episode_key)',
  },
  turns: {
    columns: `import_id UInt64, episode_key UInt64, root_key UInt64, run String, split Nullable(String), is_child UInt8,
      episode_success Nullable(UInt8), episode_turn_costs_known UInt8, episode_difficulty Nullable(Float32), pos UInt32, t Int32, model String,
      prev_model Nullable(String), switched UInt8, next_switched Nullable(UInt8), severity UInt8, next_severity Nullable(UInt8),
      category String, action_type String, tool Nullable(String), tokens_in Nullable(Int64), tokens_out Nullable(Int64),
      tokens_cached Nullable(Int64), tokens_cache_write Nullable(Int64), tokens_reasoning Nullable(Int64), tokens_cache_write_1h Nullable(Int64),
      cost Nullable(Float32), cost_source String, cum_cost Float64, latency_ms Nullable(Float64), propensity Nullable(Float64),
      error_mask UInt32, verdict Nullable(String), verify_correct Nullable(UInt8), greedy_model Nullable(String),
      was_greedy Nullable(UInt8), beta Nullable(Float64), role Nullable(String), s_tilde Nullable(Float64), penalty Nullable(Float64),
      price_table Nullable(String), price_version Nullable(String), cache_tier Nullable(String)`,
    orderBy: '(run, episode_key, pos)',
  },
  turn_text: {
    columns: 'import_id UInt64, episode_key UInt64, root_key UInt64, pos UInt32, action Nullable(String), observation Nullable(String), detail Nullable(String)',
    orderBy: '(episode_key, pos)',
  },
  /** Messages before a turn (t) or after the last one (t null), in the episode's order (seq), as SQLite's `messages`. */
  messages: {
    columns: 'import_id UInt64, episode_key UInt64, root_key UInt64, seq UInt32, t Nullable(Int32), role String, text String, timestamp Nullable(String)',
    orderBy: '(episode_key, seq)',
  },
  turn_errors: {
    columns: 'import_id UInt64, episode_key UInt64, root_key UInt64, run String, pos UInt32, error_type String, severity UInt8, source String',
    orderBy: '(run, episode_key, pos)',
  },
  turn_candidates: {
    columns: 'import_id UInt64, episode_key UInt64, root_key UInt64, run String, pos UInt32, model String, logged_score Float64',
    orderBy: '(run, episode_key, pos)',
  },
  plan_nodes: {
    columns: `import_id UInt64, episode_key UInt64, root_key UInt64, run String, pos Nullable(UInt32), round Int32, ord UInt64,
      subtask_id String, model Nullable(String), primitive Nullable(String), status Nullable(String)`,
    orderBy: '(run, episode_key, round)',
  },
  plan_edges: {
    columns: 'import_id UInt64, episode_key UInt64, root_key UInt64, round Int32, ord UInt64, src String, dst String',
    orderBy: '(episode_key, round)',
  },
  /** ŝ of a scoring (the scorings ledger says which estimator, and whether it completed) for a turn and a candidate. */
  estimates: {
    columns: 'scoring_id UInt64, import_id UInt64, episode_key UInt64, root_key UInt64, run String, pos UInt32, model String, s_hat Float32',
    orderBy: '(scoring_id, run, episode_key, pos)',
  },
};
export const SHARDED_TABLES = Object.keys(SHARDED);

/** The columns of sharded table `table` with their ClickHouse types, in the table's order. */
export function shardedColumns(table: string): { name: string; type: string }[] {
  const def = SHARDED[table];
  if (!def) throw new Error(`${table}: not a sharded table of the store`);
  return columnsOf(def.columns);
}

/** On the first host only: small, read whole. */
const COORDINATOR: Record<string, { columns: string; orderBy: string }> = {
  schema_version: { columns: 'version UInt32, at DateTime', orderBy: 'version' },
  /** The import ledger: a file's rows count once its 'completed' event exists and no 'superseded'/'abandoned' one does. */
  imports: {
    columns: 'import_id UInt64, event String, content_hash String, path String, format String, episodes UInt32, turns UInt32, at DateTime',
    orderBy: '(import_id, event)',
  },
  runs: {
    columns: 'import_id UInt64, run String, source_format String, source_path String, policy_name Nullable(String), policy_kind Nullable(String)',
    orderBy: '(run, import_id)',
  },
  /**
   * The scorings ledger: an estimator (the sha256 of its ONNX file) scored the named runs; its estimates count once
   * its 'completed' event exists, and for a turn scored twice the newer scoring's ŝ is read.
   */
  scorings: {
    columns: 'scoring_id UInt64, event String, estimator String, name String, runs Array(String), provider String, rows UInt64, at DateTime',
    orderBy: '(scoring_id, event)',
  },
};

/** The imports whose rows queries see. */
export function visibleImports(store: ClickHouseStore): string {
  return `SELECT import_id FROM ${store.database}.imports GROUP BY import_id
    HAVING countIf(event = 'completed') > 0 AND countIf(event IN ('superseded', 'abandoned')) = 0`;
}

/** The condition every read of a sharded table carries: its row belongs to a visible import. */
export function visibleRows(store: ClickHouseStore): string {
  return `import_id ${store.globalIn} (${visibleImports(store)})`;
}

export type LedgerEvent = 'started' | 'completed' | 'superseded' | 'abandoned' | 'cleaned';

/** One row of the import ledger; events other than a file's own start and completion name no file. */
export function ledgerRow(
  importId: number, event: LedgerEvent, file: { hash?: string; path?: string; format?: string; episodes?: number; turns?: number } = {}, at = clickhouseDateTime(),
): Record<string, unknown> {
  return {
    import_id: importId, event, content_hash: file.hash ?? '', path: file.path ?? '', format: file.format ?? '',
    episodes: file.episodes ?? 0, turns: file.turns ?? 0, at,
  };
}

/** One row of the scorings ledger; events other than a scoring's own start and end name no estimator. */
export function scoringLedgerRow(
  scoringId: number, event: 'started' | 'completed' | 'abandoned' | 'cleaned',
  scoring: { estimator?: string; name?: string; runs?: readonly string[]; provider?: string; rows?: number } = {},
): Record<string, unknown> {
  return {
    scoring_id: scoringId, event, estimator: scoring.estimator ?? '', name: scoring.name ?? '', runs: [...(scoring.runs ?? [])],
    provider: scoring.provider ?? '', rows: scoring.rows ?? 0, at: clickhouseDateTime(),
  };
}

/** Shard order: host i of the URL is shard i + 1 of the cluster, checked by `checkShards`. */
export function shardOf(rootKey: number, shards: number): number {
  return rootKey % shards;
}

/** Every statement `store init` runs, and where: on every host (each shard's local tables) or on the first. */
export function ddlStatements(database: string, cluster: string | null): { on: 'every host' | 'first host'; sql: string }[] {
  const table = (name: string, def: { columns: string; orderBy: string }): string =>
    `CREATE TABLE IF NOT EXISTS ${database}.${name} (${def.columns.replace(/\s+/g, ' ')}) ENGINE = MergeTree() ORDER BY ${def.orderBy}`;
  return [
    { on: 'every host', sql: `CREATE DATABASE IF NOT EXISTS ${database}` },
    ...Object.entries(SHARDED).map(([name, def]) => ({ on: 'every host' as const, sql: table(`${name}_local`, def) })),
    ...Object.entries(COORDINATOR).map(([name, def]) => ({ on: 'first host' as const, sql: table(name, def) })),
    ...(cluster
      ? SHARDED_TABLES.map((name) => ({
          on: 'first host' as const,
          sql: `CREATE TABLE IF NOT EXISTS ${database}.${name} AS ${database}.${name}_local ENGINE = Distributed(${cluster}, ${database}, ${name}_local, root_key)`,
        }))
      : []),
  ];
}

/**
 * Every host of the URL is a different shard of the named cluster, in shard order, and every shard is listed:
 * rows written straight to host i must be where the Distributed table looks for them.
 */
export async function checkShards(store: ClickHouseStore): Promise<void> {
  if (!store.cluster) return;
  const shards: number[] = [];
  for (const [i, node] of store.nodes.entries()) {
    const rows = await store.query<{ shard_num: number; n: string | number }>(
      'SELECT shard_num, (SELECT count(DISTINCT shard_num) FROM system.clusters WHERE cluster = {c:String}) AS n FROM system.clusters WHERE cluster = {c:String} AND is_local = 1',
      { c: store.cluster },
      node,
    ).catch((e: unknown) => {
      throw new StoreError(`host ${i + 1}: ${(e as Error).message}`);
    });
    if (rows.length === 0) throw new StoreError(`${store.shown}: host ${i + 1} is not a shard of cluster "${store.cluster}" (see its remote_servers)`);
    const total = Number(rows[0]?.n);
    if (total !== store.nodes.length) {
      throw new StoreError(`${store.shown}: cluster "${store.cluster}" has ${total} shards: list each one's HTTP address, in shard order (${store.nodes.length} given)`);
    }
    shards.push(Number(rows[0]?.shard_num));
  }
  shards.forEach((s, i) => {
    if (s !== i + 1) throw new StoreError(`${store.shown}: host ${i + 1} is shard ${s} of "${store.cluster}": list the hosts in shard order`);
  });
}

/** `routelens store init`: creates (or completes) the database and tables; idempotent. */
export async function initStore(store: ClickHouseStore): Promise<{ created: boolean; version: number }> {
  await checkShards(store);
  const before = await schemaVersion(store).catch(() => null);
  if (before !== null && before > STORE_SCHEMA_VERSION) {
    throw new StoreError(`${store.shown}: the store's schema is version ${before}, newer than this RouteLens (${STORE_SCHEMA_VERSION}): upgrade RouteLens`);
  }
  for (const { on, sql } of ddlStatements(store.database, store.cluster)) {
    for (const node of on === 'every host' ? store.nodes : [store.coordinator]) await store.command(sql, node);
  }
  if (before !== null && before < STORE_SCHEMA_VERSION) await addMissingColumns(store);
  if (before === null || before < STORE_SCHEMA_VERSION) {
    await store.insert(store.coordinator, 'schema_version', [{ version: STORE_SCHEMA_VERSION, at: clickhouseDateTime() }]);
  }
  return { created: before === null, version: STORE_SCHEMA_VERSION };
}

/** `name Type` pairs of a table definition (types hold no commas at the top level). */
function columnsOf(def: string): { name: string; type: string }[] {
  const out: { name: string; type: string }[] = [];
  let depth = 0;
  let part = '';
  for (const ch of `${def},`) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      const m = /^\s*(\w+)\s+(.+?)\s*$/s.exec(part);
      if (m) out.push({ name: m[1] as string, type: (m[2] as string).replace(/\s+/g, ' ') });
      part = '';
    } else part += ch;
  }
  return out;
}

/**
 * The migration of an older store: every column this version's tables have and the store's lack is added, at the
 * end, to each shard's local table and to the Distributed table (rows written before read them as NULL).
 */
async function addMissingColumns(store: ClickHouseStore): Promise<void> {
  const missingIn = async (table: string, node: ClickHouseStore['coordinator'], def: string) => {
    const have = new Set((await store.query<{ name: string }>(
      'SELECT name FROM system.columns WHERE database = {d:String} AND table = {t:String}', { d: store.database, t: table }, node,
    )).map((r) => r.name));
    for (const c of columnsOf(def)) if (!have.has(c.name)) await store.command(`ALTER TABLE ${store.database}.${table} ADD COLUMN ${c.name} ${c.type}`, node);
  };
  for (const [name, def] of Object.entries(SHARDED)) {
    for (const node of store.nodes) await missingIn(`${name}_local`, node, def.columns);
    if (store.cluster) await missingIn(name, store.coordinator, def.columns);
  }
}

/** The store's schema version, or null when it has none (not initialised). */
export async function schemaVersion(store: ClickHouseStore): Promise<number | null> {
  const exists = await store.query<{ n: string }>('SELECT count() AS n FROM system.tables WHERE database = {d:String} AND name = \'schema_version\'', { d: store.database });
  if (Number(exists[0]?.n ?? 0) === 0) return null;
  const rows = await store.query<{ v: number | string }>(`SELECT max(version) AS v FROM ${store.database}.schema_version`);
  return Number(rows[0]?.v ?? 0) || null;
}

/** Before any read or write: the store exists and has this RouteLens's schema. */
export async function requireSchema(store: ClickHouseStore): Promise<void> {
  const v = await schemaVersion(store);
  if (v === null) throw new StoreError(`${store.shown}: not a RouteLens store yet (run \`routelens store init --store URL\`)`);
  if (v !== STORE_SCHEMA_VERSION) {
    throw new StoreError(`${store.shown}: schema version ${v}, this RouteLens uses ${STORE_SCHEMA_VERSION}: ${v < STORE_SCHEMA_VERSION ? 'run `routelens store init` to migrate' : 'upgrade RouteLens'}`);
  }
}

/** ClickHouse's DateTime in UTC: 'YYYY-MM-DD hh:mm:ss' (18.16 reads no ISO 'T'/'Z'). */
export function clickhouseDateTime(date = new Date()): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}
