/**
 * The connection to a ClickHouse store: one HTTP client per shard host (the first also answers queries), the
 * names of the tables queries read (Distributed over the cluster, or the local tables on one server), and
 * errors turned into one line that names the store without its credentials.
 */
import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { describeStore, StoreError, type ClickHouseStoreUrl } from '../../storeUrl.ts';

export { StoreError };

export type Row = Record<string, unknown>;

/**
 * ClickHouse 18.16 now and then runs a GLOBAL IN on a shard without the temporary table the coordinator sent with
 * it (seen once in a CI run, with reads one at a time, among thousands of such reads). A read changes
 * nothing, so it is sent again; any other error, or this one a third time, is the user's answer.
 */
const LOST_GLOBAL_TABLE = /Table \S+\._data\d+ doesn't exist/;
const READ_ATTEMPTS = 3;

export class ClickHouseStore {
  readonly nodes: ClickHouseClient[];
  readonly database: string;
  readonly cluster: string | null;
  readonly shown: string;

  constructor(readonly url: ClickHouseStoreUrl, readers = readersFromEnvironment()) {
    this.readers = readers;
    this.database = url.database;
    this.cluster = url.cluster;
    this.shown = describeStore(url);
    this.nodes = url.hosts.map((h) =>
      createClient({
        url: `http://${h.host}:${h.port}`,
        username: url.username,
        password: url.password,
        // The client's own log lines carry request details; RouteLens reports errors itself, in one line.
        log: { level: ClickHouseLogLevel.OFF },
        request_timeout: 600_000,
        // No idle sockets kept: an import's staging holds the event loop for long stretches, the client's idle-socket
        // timer fires late, and it then writes to a socket the server closed after its keep-alive timeout (EPIPE).
        keep_alive: { enabled: false },
        compression: { request: false, response: false },
        // An import keeps an insert per table open on each server (two sets while one ends) beside its reads.
        max_open_connections: 32,
      }),
    );
  }

  /** The first host: it runs the queries (over the Distributed tables) and keeps the import ledger. */
  get coordinator(): ClickHouseClient {
    return this.nodes[0] as ClickHouseClient;
  }

  /** The table a query reads: `db.turns` (Distributed) on a cluster, `db.turns_local` on one server. */
  table(name: string): string {
    return this.cluster ? `${this.database}.${name}` : `${this.database}.${name}_local`;
  }

  /** `IN` across shards: GLOBAL sends the subquery's rows from the coordinator to every shard once. */
  get globalIn(): string {
    return this.cluster ? 'GLOBAL IN' : 'IN';
  }

  /**
   * At most `readers` reads at once (eight by default; `ROUTELENS_STORE_READERS` sets it, 1 sends them one at a time).
   * One window's page load asks for several things at once, and a server has several windows: one long read (a
   * lift bootstrap) must not hold up the rest. ClickHouse 18.16 sometimes loses a GLOBAL IN's temporary table on a
   * shard ("Table default._data1 doesn't exist"); such a read is sent again.
   */
  readonly readers: number;
  private reading = 0;
  private waiting: (() => void)[] = [];

  private async slot<T>(f: () => Promise<T>): Promise<T> {
    while (this.reading >= this.readers) await new Promise<void>((wake) => this.waiting.push(wake));
    this.reading++;
    try {
      return await f();
    } finally {
      this.reading--;
      this.waiting.shift()?.();
    }
  }

  async query<T extends Row>(sql: string, params: Record<string, unknown> = {}, node: ClickHouseClient = this.coordinator): Promise<T[]> {
    const bound = bindParams(sql, params);
    return this.slot(() =>
      this.wrap(async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await rowsOf<T>(node, bound);
          } catch (e) {
            if (attempt >= READ_ATTEMPTS || !LOST_GLOBAL_TABLE.test(e instanceof Error ? e.message : String(e))) throw e;
          }
        }
      }),
    );
  }

  /**
   * The same query on every shard's own tables at once (`local(name)` names them), one result per shard in shard
   * order. For queries that read a shard's rows alone (no GLOBAL IN, no Distributed table): a session's rows all
   * live on one shard, so per-session work runs where they are and only the shards' sums travel. `settings` are
   * the query's own, on top of the servers'.
   */
  async queryEachShard<T extends Row>(
    sql: (local: (name: string) => string) => string,
    params: Record<string, unknown> = {},
    settings: Record<string, string> = {},
  ): Promise<T[][]> {
    const bound = bindParams(sql((name) => `${this.database}.${name}_local`), params);
    return this.slot(() => this.wrap(() => Promise.all(this.nodes.map((node) => rowsOf<T>(node, bound, settings)))));
  }

  async command(sql: string, node: ClickHouseClient = this.coordinator): Promise<void> {
    await this.wrap(() => node.command({ query: sql, clickhouse_settings: sizeSettings(sql) }));
  }

  async insert(node: ClickHouseClient, table: string, rows: Row[]): Promise<void> {
    if (rows.length === 0) return;
    await this.wrap(() => node.insert({ table: `${this.database}.${table}`, values: rows, format: 'JSONEachRow' }));
  }

  /** RowBinary rows (rowBinary.ts), `columns` in the order their values were written, into `table` on one host. */
  async insertRowBinary(node: ClickHouseClient, table: string, columns: readonly string[], chunks: Buffer[], what: string): Promise<void> {
    if (chunks.length === 0) return;
    await this.insertRowBinaryStream(node, table, columns, Readable.from(chunks), what);
  }

  /** An insert of the RowBinary rows `body` carries; resolves once the body has ended and every row is stored. */
  async insertRowBinaryStream(node: ClickHouseClient, table: string, columns: readonly string[], body: Readable, what: string): Promise<void> {
    await this.wrap(async () => {
      const r = await node.exec({ query: `INSERT INTO ${this.database}.${table} (${columns.join(', ')}) FORMAT RowBinary`, values: body });
      r.stream.resume();
    }, what);
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.close()));
  }

  private async wrap<T>(f: () => Promise<T>, what?: string): Promise<T> {
    try {
      return await f();
    } catch (e) {
      throw new StoreError(`${this.shown}: ${what ? `${what}: ` : ''}${storeMessage(e)}`);
    }
  }
}

export function readersFromEnvironment(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.ROUTELENS_STORE_READERS;
  if (given === undefined || given === '') return 8;
  const n = Number(given);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new StoreError(`ROUTELENS_STORE_READERS is "${given}": give a whole number of reads at once, 1 to 64`);
  return n;
}

/** ClickHouse's default max_query_size (256 KiB), less room for the client's own additions. */
const DEFAULT_QUERY_BYTES = 240 * 1024;

/**
 * A query longer than the server's default limit (a literal list of every visible import, on a store of tens of
 * thousands of files) raises the limit for itself alone; every other query runs with the server's settings.
 */
export function sizeSettings(sql: string): { max_query_size?: string } {
  const bytes = Buffer.byteLength(sql);
  return bytes <= DEFAULT_QUERY_BYTES ? {} : { max_query_size: String(bytes + 64 * 1024) };
}

/** One read on one host, its rows as objects. */
async function rowsOf<T extends Row>(node: ClickHouseClient, sql: string, settings: Record<string, string> = {}): Promise<T[]> {
  return (await (await node.query({ query: sql, format: 'JSONEachRow', clickhouse_settings: { ...settings, ...sizeSettings(sql) } })).json()) as T[];
}

/** A string as a ClickHouse literal: quotes and backslashes escaped, so no value can end the literal. */
export function sqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function literal(value: unknown, type: string, name: string): string {
  // `x IN {name:Set(T)}`: a parenthesised list, which ClickHouse turns into a hash set. `has()` on an array literal
  // compares every row with every element: a file's episode keys against the store's episodes, 10,000 at a time,
  // grew with the square of the file's size.
  const set = /^Set\((.+)\)$/.exec(type);
  if (set) {
    if (!Array.isArray(value) || value.length === 0) throw new TypeError(`query parameter ${name}: not a non-empty array`);
    return `(${value.map((v) => literal(v, set[1] as string, name)).join(', ')})`;
  }
  const array = /^Array\((.+)\)$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) throw new TypeError(`query parameter ${name}: not an array`);
    return `[${value.map((v) => literal(v, array[1] as string, name)).join(', ')}]`;
  }
  if (type === 'String') {
    if (typeof value !== 'string') throw new TypeError(`query parameter ${name}: not a string`);
    return sqlString(value);
  }
  if (/^U?Int(8|16|32|64)$/.test(type)) {
    if (!Number.isSafeInteger(value)) throw new TypeError(`query parameter ${name}: not a whole number`);
    return String(value);
  }
  throw new TypeError(`query parameter ${name}: type ${type} is not bound here`);
}

/**
 * `{name:Type}` placeholders filled with literals on our side: ClickHouse 18.16 has no server-side query
 * parameters. Only String, integers, arrays of them and sets (`Set(T)`, for IN), each escaped or checked, so a
 * value is never SQL.
 */
export function bindParams(sql: string, params: Record<string, unknown>): string {
  return sql.replace(/\{(\w+):([A-Za-z0-9()]+)\}/g, (_m, name: string, type: string) => {
    if (!(name in params)) throw new TypeError(`query parameter ${name} is missing`);
    return literal(params[name], type, name);
  });
}

/** The first line of ClickHouse's message, without its `e.what()` tail, or the network error's code. */
function storeMessage(e: unknown): string {
  const code = (e as { code?: string }).code;
  if (code === 'ECONNREFUSED') return 'connection refused (is ClickHouse running there? the port is its HTTP port)';
  const text = e instanceof Error ? e.message : String(e);
  const first = text.split('\n').find((l) => l.trim() !== '') ?? text;
  return first.replace(/^Code: \d+, e\.displayText\(\) = DB::\w+: /, '').replace(/, e\.what\(\) = .*$/, '').slice(0, 400);
}
