/**
 * `routelens import PATH… --store URL`: the same importers and writer as a SQLite import, streamed into the
 * ClickHouse store. Each episode the writer resolves (models, prices, error rules, switches, AEC targets: one place
 * for each fact) becomes its rows at once (directRows.ts); a file that needs a whole-file view (an episode twice, a
 * parent after its child) is written to a private staging SQLite database instead and read back (stagedRows.ts).
 * Rows are buffered per table and shard and written every `batchRows` rows (the text table every `batchBytes`
 * bytes) into an insert per table and shard kept open across batches (rowStream.ts). A file's rows count only once its 'completed' event
 * is in the import ledger, written after all its rows are in: a file that fails midway, or an import killed before
 * its ledger entry, is never seen by any query (`routelens store clean` removes such rows).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openDatabase } from '../../../db/database.ts';
import { importPaths, StageInstead, type ImportedFile, type ImportOptions, type ImportReport } from '../../../importers/pipeline.ts';
import { ImportError } from '../../../importers/types.ts';
import type { ClickHouseClient } from '@clickhouse/client';
import type { ClickHouseStore } from '../schema/connection.ts';
import { checkShards, clickhouseDateTime, ledgerRow, requireSchema, shardOf, visibleImports, visibleRows } from '../schema/schema.ts';
import { DirectFile } from './directRows.ts';
import { COLUMNS, type FileSummary, type SessionIndex, type ShardedTable } from './episodeRows.ts';
import { stagedRows } from './stagedRows.ts';
import { RowBinaryBatch, RowValueError, rowEncoder, unstorable } from './rowBinary.ts';
import { RowStream } from './rowStream.ts';
import { DEFAULT_PIECE_BYTES, DEFAULT_THREADED_MIN_BYTES, importThreadsFromEnvironment, RangeThreads, ThreadedFile, type EncodedSink } from './threadedFile.ts';

export const DEFAULT_BATCH_ROWS = 100_000;
/** Bytes of a table's rows gathered before they go into its open inserts (half as much more may wait there). */
export const DEFAULT_BATCH_BYTES = 8 * 2 ** 20;
/** Keys per query (a query may be at most 256 KiB long, max_query_size): about 14,000 fit. */
const KEYS_PER_QUERY = 10_000;

let lastImportId = 0;

/**
 * A fresh import id: time-ordered (within this process strictly increasing, so files keep their import order,
 * which the Episodes list and a run's first file go by), random in its low bits, below 2^53 until the year 2248.
 */
export function newImportId(): number {
  lastImportId = Math.max(lastImportId + 1, Date.now() * 1024 + Math.floor(Math.random() * 1024));
  return lastImportId;
}

/**
 * V8's full collection, got at run time (`--expose-gc` then the context's `gc`), or null where the runtime refuses.
 * An import turns every row into strings that are garbage once sent; left to itself V8 grows the heap by that
 * garbage (a 5M-turn file peaked at 1.1 GiB with ~250 MiB live). A flush that leaves more than GC_ABOVE on the heap
 * ends with a collection, which keeps the peak near what is live whatever the file's size; collecting after every
 * flush cost 18% of the import's CPU.
 */
const collectGarbage: (() => void) | null = (() => {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    return null;
  }
})();

const GC_ABOVE = 160 * 2 ** 20;

interface PendingFile {
  importId: number;
  hash: string;
  path: string;
  format: string;
  summary: FileSummary;
  supersedes: number[];
}

export interface StoreImportOptions extends ImportOptions {
  batchRows?: number;
  batchBytes?: number;
  /** False: every file through the staging database (the path a file takes when the direct one cannot finish it). */
  direct?: boolean;
  /** Range threads for a big canonical file (threadedFile.ts); 1: none. Default ROUTELENS_IMPORT_THREADS, else one per core up to 4. */
  threads?: number;
  /** Canonical files at least this big use the range threads. */
  threadedMinBytes?: number;
  pieceBytes?: number;
  /** Episode keys per query when looking for the earlier imports a file replaces (tests make it small). */
  keysPerQuery?: number;
}

/**
 * Rows waiting to be sent, per sharded table and shard, the open inserts they go into, and the files whose rows
 * are all sent or among them. A table's rows go out alone when they reach `batchRows` rows or `batchBytes` bytes
 * (the text table fills by size long before the numeric tables by rows), into that table's open insert on each
 * shard (rowStream.ts). When the complete files hold `batchRows` turns, and at the end, everything goes out, the
 * open inserts end, and the files' ledger entries follow once they have; rows read meanwhile open new inserts.
 */
class ShardBuffers implements EncodedSink {
  private readonly batches = new Map<ShardedTable, RowBinaryBatch[]>();
  /** The open insert of each table on each shard (`table/shard`). */
  private streams = new Map<string, RowStream>();
  /** Files whose every row has been added: their ledger entries are written once the inserts they are in end. */
  pending: PendingFile[] = [];
  readonly pendingKeys = new Set<number>();
  /** The inserts that ended last and the ledger entries after them, while they finish: one such at a time. */
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: ClickHouseStore,
    private readonly batchRows: number,
    private readonly batchBytes: number,
  ) {
    for (const t of Object.keys(COLUMNS) as ShardedTable[]) {
      const encoders = rowEncoder(t, COLUMNS[t]);
      this.batches.set(t, store.nodes.map(() => new RowBinaryBatch(encoders)));
    }
  }

  add(table: ShardedTable, rootKey: number, values: unknown[]): void {
    (this.batches.get(table) as RowBinaryBatch[])[shardOf(rootKey, this.store.nodes.length)]?.add(values);
  }

  addEncoded(table: ShardedTable, shard: number, rows: number, chunks: Buffer[]): void {
    (this.batches.get(table) as RowBinaryBatch[])[shard]?.addEncoded(chunks, rows);
  }

  private isFull(t: ShardedTable): boolean {
    const shards = this.batches.get(t) as RowBinaryBatch[];
    return shards.reduce((a, b) => a + b.rows, 0) >= this.batchRows || shards.reduce((a, b) => a + b.bytes, 0) >= this.batchBytes;
  }

  full(): boolean {
    return [...this.batches.keys()].some((t) => this.isFull(t));
  }

  /** A file's rows are all added; when the complete files hold a batch of turns, everything goes out. */
  async fileDone(file: PendingFile): Promise<void> {
    this.pending.push(file);
    for (const k of file.summary.episodeKeys) this.pendingKeys.add(k);
    if (this.pending.reduce((a, f) => a + f.summary.turns, 0) >= this.batchRows) await this.flush(true);
    else if (this.full()) await this.flush();
  }

  /** Called as each flush begins: a moment the import's reading pauses, every batch of rows. */
  beforeFlush: (() => void) | null = null;

  /**
   * Writes the full tables (or all) into their open inserts and waits until those have room for more; with
   * `all`, the inserts then end, and the complete files' ledger entries are written after them while the next rows
   * are read (waiting first for the entries before them).
   */
  async flush(all = false): Promise<void> {
    this.beforeFlush?.();
    const writes: Promise<void>[] = [];
    for (const [table, perShard] of this.batches) {
      if (!all && !this.isFull(table)) continue;
      perShard.forEach((batch, shard) => {
        const chunks = batch.take();
        if (chunks.length > 0) writes.push(this.streamOf(table, shard).write(chunks));
      });
    }
    await Promise.all(writes);
    if (collectGarbage && getHeapStatistics().used_heap_size > GC_ABOVE) collectGarbage();
    if (!all) return;
    const streams = [...this.streams.values()];
    this.streams = new Map();
    const files = this.pending;
    this.pending = [];
    await this.inFlight;
    this.inFlight = this.complete(streams, files);
    // Its failure is reported by whoever waits for it next (flush, drain); never as an unhandled rejection.
    this.inFlight.catch(() => undefined);
  }

  /** Everything buffered is in the store, with its ledger entries. */
  async drain(): Promise<void> {
    await this.flush(true);
    await this.inFlight;
    this.pendingKeys.clear();
  }

  /** The import failed: the open inserts stop where they are (their rows were never going to count). */
  abort(): void {
    for (const s of this.streams.values()) s.abort();
    this.streams.clear();
  }

  private streamOf(table: ShardedTable, shard: number): RowStream {
    const name = `${table}/${shard}`;
    let stream = this.streams.get(name);
    if (!stream) {
      // A write waits while more than half a batch is on its way to the server: reading goes on while the server
      // takes the batch before it, and memory stays bounded by the batch size.
      stream = new RowStream(this.store, this.store.nodes[shard] as ClickHouseClient, table, `inserting into ${table} on shard ${shard + 1}`, Math.max(1, this.batchBytes / 2));
      this.streams.set(name, stream);
    }
    return stream;
  }

  /** The inserts that hold `files`' rows end; then the files' ledger entries make them visible. */
  private async complete(streams: RowStream[], files: PendingFile[]): Promise<void> {
    const { store } = this;
    await Promise.all(streams.map((s) => s.end()));
    if (files.length === 0) return;
    const at = clickhouseDateTime();
    await store.insert(store.coordinator, 'runs', files.flatMap((f) => f.summary.runs.map((r) => ({ import_id: f.importId, ...r }))));
    // One insert, one block: the files' completions and the imports they replace become visible together.
    await store.insert(store.coordinator, 'imports', files.flatMap((f) => [
      ledgerRow(f.importId, 'completed', { hash: f.hash, path: f.path, format: f.format, episodes: f.summary.episodes, turns: f.summary.turns }, at),
      ...f.supersedes.map((old) => ledgerRow(old, 'superseded', { path: f.path, format: f.format }, at)),
    ]));
  }
}

/**
 * A value that a SQLite database holds but the store's column cannot (a turn budget past Int32, say) refuses its file,
 * naming the episode, as any other fault of the file is refused.
 */
async function storable<T>(file: ImportedFile, episode: string | null, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (!(e instanceof RowValueError)) throw e;
    throw unstorable(file.shown, episode, e.message);
  }
}

export async function importToStore(store: ClickHouseStore, paths: string[], options: StoreImportOptions = {}): Promise<ImportReport> {
  const threadCount = options.threads ?? importThreadsFromEnvironment();
  await requireSchema(store);
  await checkShards(store);
  const dir = mkdtempSync(join(tmpdir(), 'routelens-staging-'));
  const staging = openDatabase(join(dir, 'staging.db'));
  // Staging's transactions are rolled back, never read again: no syncs. Its page cache and sorts stay modest
  // (a file of millions of turns spills to the staging folder, not into memory).
  staging.pragma('synchronous = OFF');
  staging.pragma('cache_size = -32768');
  const buffers = new ShardBuffers(store, options.batchRows ?? DEFAULT_BATCH_ROWS, options.batchBytes ?? DEFAULT_BATCH_BYTES);
  const db = store.database;
  const visible = visibleImports(store);
  const visibleRow = visibleRows(store);
  /** Content hashes read in this import: staging forgets them (its transactions are rolled back). */
  const seen = new Map<string, string>();

  const index: SessionIndex = {
    known: new Map(),
    async lookup(run, extIds) {
      const rows = await store.query<{ ext_id: string; episode_key: string; root_key: string; split: string | null }>(
        `SELECT ext_id, episode_key, root_key, split FROM ${store.table('episodes')}
         WHERE run = {run:String} AND has({ids:Array(String)}, ext_id) AND ${visibleRow}`,
        { run, ids: extIds },
      );
      return new Map(rows.map((r) => [r.ext_id, { key: Number(r.episode_key), rootKey: Number(r.root_key), split: r.split }]));
    },
  };

  const ledger = async (importId: number, event: 'started' | 'abandoned', file: ImportedFile): Promise<void> =>
    store.insert(store.coordinator, 'imports', [ledgerRow(importId, event, { hash: file.hash, path: file.shown, format: file.format })]);

  /** The file whose episodes are being sent; one left here when another begins was rejected midway. */
  let direct: DirectFile | ThreadedFile | null = null;
  let threads: RangeThreads | null = null;
  const nextErrorTypeId = staging.prepare('SELECT coalesce(max(id), 0) + 1 FROM error_types').pluck();
  const abandonDirect = async (): Promise<void> => {
    if (!direct) return;
    const { importId, file } = direct;
    direct.forget();
    direct = null;
    await ledger(importId, 'abandoned', file);
  };

  /** Earlier imports' episodes among `keys`, per import. */
  const countStored = (keys: number[]): Promise<{ import_id: string; n: string }[]> => store.query(
    `SELECT import_id, count() AS n FROM ${store.table('episodes')}
     WHERE episode_key IN {keys:Set(UInt64)} AND ${visibleRow} GROUP BY import_id`,
    { keys },
  );
  /**
   * Those counts for the file being sent, a slice of `perQuery` keys at a time, asked while the rest of the file
   * is read (at 1.7M turns, asked only at the end they kept the import waiting 3 s). A slice holding a key of a
   * complete file whose ledger entry is not yet written is asked only at the end, after that entry.
   */
  let early: { file: DirectFile | ThreadedFile; slices: Promise<{ import_id: string; n: string }[]>[]; stopped: boolean } | null = null;
  const perQuery = options.keysPerQuery ?? KEYS_PER_QUERY;
  const askEarly = (): void => {
    if (!direct) return;
    if (early?.file !== direct) early = { file: direct, slices: [], stopped: false };
    const { slices } = early;
    const keys = direct.summary.episodeKeys;
    while (!early.stopped && (slices.length + 1) * perQuery <= keys.length) {
      const slice = keys.slice(slices.length * perQuery, (slices.length + 1) * perQuery);
      if (slice.some((k) => buffers.pendingKeys.has(k))) early.stopped = true;
      else {
        const asked = countStored(slice);
        // A failure is reported when the file's counts are read; never as an unhandled rejection.
        asked.catch(() => undefined);
        slices.push(asked);
      }
    }
  };
  buffers.beforeFlush = askEarly;

  /** The earlier imports this file's episodes replace (whole files only), or a refusal. */
  const replaced = async (keys: number[], shown: string, sent: DirectFile | ThreadedFile | null): Promise<number[]> => {
    const asked = sent !== null && early?.file === sent ? early.slices : [];
    early = null;
    if (keys.some((k) => buffers.pendingKeys.has(k))) await buffers.drain();
    const counts = new Map<string, number>();
    for (let i = 0; i < keys.length; i += perQuery) {
      for (const h of await (asked[i / perQuery] ?? countStored(keys.slice(i, i + perQuery)))) {
        counts.set(h.import_id, (counts.get(h.import_id) ?? 0) + Number(h.n));
      }
    }
    const hits = [...counts].map(([import_id, n]) => ({ import_id, n }));
    if (hits.length === 0) return [];
    const files = new Map((await store.query<{ import_id: string; total: string; path: string }>(
      `SELECT import_id, any(episodes) AS total, any(path) AS path FROM ${db}.imports
       WHERE event = 'completed' AND has({ids:Array(UInt64)}, import_id) GROUP BY import_id`,
      { ids: hits.map((h) => Number(h.import_id)) },
    )).map((r) => [r.import_id, r]));
    for (const h of hits) {
      const f = files.get(h.import_id);
      if (Number(h.n) !== Number(f?.total)) {
        throw new ImportError(shown, 1, `${h.n} of its episodes are already in the store from ${f?.path ?? 'an earlier import'}, which holds ${f?.total ?? '?'}: a ClickHouse store replaces whole files only`);
      }
    }
    // Replacing is never silent (issue 34): the user learns which earlier file's episodes this one took over.
    for (const h of hits) {
      const from = files.get(h.import_id)?.path;
      replacedNotes.push(`${shown}: replaces the ${h.n} episode(s) imported earlier from ${from === shown ? 'this file' : from}`);
    }
    return hits.map((h) => Number(h.import_id));
  };
  const replacedNotes: string[] = [];

  try {
    const report = await importPaths(staging, paths, {
      ...options,
      fullText: false,
      async knownSource(hash) {
        const earlier = seen.get(hash);
        if (earlier !== undefined) return earlier;
        const rows = await store.query<{ path: string }>(
          `SELECT any(path) AS path FROM ${db}.imports WHERE content_hash = {h:String} AND import_id IN (${visible}) HAVING count() > 0`,
          { h: hash },
        );
        return rows[0]?.path;
      },
      readWhole: options.direct === false || threadCount < 2 || options.rules ? undefined : async (path, file, how) => {
        // Only canonical files are cut into pieces of whole lines; the error rules the threads use are the defaults.
        if (how.importer.format !== 'canonical' || statSync(path).size < (options.threadedMinBytes ?? DEFAULT_THREADED_MIN_BYTES)) return undefined;
        await abandonDirect();
        const importId = newImportId();
        await ledger(importId, 'started', file);
        threads ??= new RangeThreads(threadCount, { shards: store.nodes.length, expectedSteps: options.expectedSteps });
        const into = new ThreadedFile(importId, file, threads, index, buffers, nextErrorTypeId.get() as number, options.pieceBytes ?? DEFAULT_PIECE_BYTES);
        direct = into;
        try {
          return await into.read(path, how);
        } catch (e) {
          if (e instanceof StageInstead) await abandonDirect();
          throw e;
        }
      },
      emit: options.direct === false ? undefined : async (episode, file) => {
        let into = direct instanceof DirectFile && direct.file === file ? direct : null;
        if (!into) {
          await abandonDirect();
          const importId = newImportId();
          await ledger(importId, 'started', file);
          direct = into = new DirectFile(importId, file, index, buffers, options.batchRows ?? DEFAULT_BATCH_ROWS);
        }
        try {
          const adding = into;
          await storable(file, episode.ep.episode_id, () => adding.add(episode));
        } catch (e) {
          if (e instanceof StageInstead) await abandonDirect();
          throw e;
        }
      },
      async beforeCommit(file) {
        const sent = file.direct && direct?.file.hash === file.hash && direct.file.shown === file.shown ? direct : null;
        direct = null;
        const importId = sent?.importId ?? newImportId();
        if (!sent) await ledger(importId, 'started', file);
        let summary: FileSummary;
        let supersedes: number[];
        try {
          summary = await storable(file, null, () => (sent ? sent.finish() : stagedRows(staging, file.sourceId, importId, index, buffers)));
          supersedes = await replaced(summary.episodeKeys, file.shown, sent);
        } catch (e) {
          // Rows of it may be on the shards already: never counted, and `store clean` may delete them at once; its
          // episodes are no parents for later files.
          sent?.forget();
          if (e instanceof ImportError) await ledger(importId, 'abandoned', file);
          throw e;
        }
        seen.set(file.hash, file.shown);
        await buffers.fileDone({ importId, hash: file.hash, path: file.shown, format: file.format, summary, supersedes });
        return 'discard';
      },
    });
    await abandonDirect();
    await buffers.drain();
    report.warnings.push(...replacedNotes);
    return report;
  } catch (e) {
    // A bug or a lost connection stops the import: the file being sent is abandoned when the store still answers.
    buffers.abort();
    await abandonDirect().catch(() => undefined);
    throw e;
  } finally {
    // Assigned in a callback, which the compiler does not follow.
    await (threads as RangeThreads | null)?.close();
    staging.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
