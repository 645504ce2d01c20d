/**
 * `routelens import PATH… --store URL`: the same importers and writer as a SQLite import, streamed into the
 * ClickHouse store. Each file is written to a private staging SQLite database (inside its transaction, then
 * taken out again, so staging never grows past one file), reshaped (stagedRows.ts) and buffered per shard;
 * buffers go out as inserts of at least `batchRows` turn rows. A file's rows count only once its 'completed'
 * event is in the import ledger, written after all its rows: a file that fails midway, or an import killed
 * before its ledger entry, is never seen by any query (`routelens store clean` removes such rows).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../db/database.ts';
import { importPaths, type ImportOptions, type ImportReport } from '../../importers/pipeline.ts';
import { ImportError } from '../../importers/types.ts';
import type { ClickHouseStore, Row } from './connection.ts';
import { nowSeconds, requireSchema, SHARDED_TABLES, shardOf, visibleImports, checkShards } from './schema.ts';
import { stagedRows, type FileRows, type SessionEntry, type SessionIndex } from './stagedRows.ts';

export const DEFAULT_BATCH_ROWS = 100_000;

/** A fresh import id: time-ordered, random in its low bits, below 2^53 until the year 2248. */
export function newImportId(): number {
  return Date.now() * 1024 + Math.floor(Math.random() * 1024);
}

interface PendingFile {
  importId: number;
  hash: string;
  path: string;
  format: string;
  episodes: number;
  turns: number;
  supersedes: number[];
}

/** Rows waiting for the next insert, per sharded table and shard. */
class ShardBuffers {
  readonly tables = new Map<string, Row[][]>();
  turns = 0;
  files: PendingFile[] = [];
  runs: Row[] = [];
  readonly keys = new Set<number>();
  constructor(readonly shards: number) {
    for (const t of SHARDED_TABLES) this.tables.set(t, Array.from({ length: shards }, () => []));
  }
  add(rows: FileRows): void {
    for (const t of SHARDED_TABLES) {
      const per = this.tables.get(t) as Row[][];
      for (const r of rows[t as keyof FileRows] as Row[]) (per[shardOf(r.root_key as number, this.shards)] as Row[]).push(r);
    }
    for (const e of rows.episodes) this.keys.add(e.episode_key as number);
    this.runs.push(...rows.runs);
    this.turns += rows.nTurns;
  }
  clear(): void {
    for (const per of this.tables.values()) per.forEach((rows) => (rows.length = 0));
    this.turns = 0;
    this.files = [];
    this.runs = [];
    this.keys.clear();
  }
}

export interface StoreImportOptions extends ImportOptions {
  batchRows?: number;
}

export async function importToStore(store: ClickHouseStore, paths: string[], options: StoreImportOptions = {}): Promise<ImportReport> {
  await requireSchema(store);
  await checkShards(store);
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
  const dir = mkdtempSync(join(tmpdir(), 'routelens-staging-'));
  const staging = openDatabase(join(dir, 'staging.db'));
  const buffers = new ShardBuffers(store.nodes.length);
  const db = store.database;
  const visible = visibleImports(store);

  const index: SessionIndex = {
    known: new Map<string, SessionEntry>(),
    async lookup(run, extIds) {
      const rows = await store.query<{ ext_id: string; episode_key: string; root_key: string; split: string | null }>(
        `SELECT ext_id, episode_key, root_key, split FROM ${store.table('episodes')}
         WHERE run = {run:String} AND has({ids:Array(String)}, ext_id) AND import_id ${store.globalIn} (${visible})`,
        { run, ids: extIds },
      );
      return new Map(rows.map((r) => [r.ext_id, { key: Number(r.episode_key), rootKey: Number(r.root_key), split: r.split }]));
    },
  };

  const flush = async (): Promise<void> => {
    if (buffers.files.length === 0) return;
    for (const [table, per] of buffers.tables) {
      await Promise.all(per.map((rows, shard) => store.insert(store.nodes[shard] as never, `${table}_local`, rows)));
    }
    await store.insert(store.coordinator, 'runs', buffers.runs);
    // One insert, one block: the files' completions and the imports they replace become visible together.
    const at = nowSeconds();
    await store.insert(store.coordinator, 'imports', buffers.files.flatMap((f) => [
      { import_id: f.importId, event: 'completed', content_hash: f.hash, path: f.path, format: f.format, episodes: f.episodes, turns: f.turns, at },
      ...f.supersedes.map((old) => ({ import_id: old, event: 'superseded', content_hash: '', path: f.path, format: f.format, episodes: 0, turns: 0, at })),
    ]));
    buffers.clear();
  };

  /** Episodes of this file already in the store: whole earlier files it replaces, or a refusal. */
  const replaced = async (rows: FileRows, shown: string): Promise<number[]> => {
    const keys = rows.episodes.map((e) => e.episode_key as number);
    if (keys.some((k) => buffers.keys.has(k))) await flush();
    const hits = await store.query<{ import_id: string; n: string }>(
      `SELECT import_id, count() AS n FROM ${store.table('episodes')}
       WHERE has({keys:Array(UInt64)}, episode_key) AND import_id ${store.globalIn} (${visible}) GROUP BY import_id`,
      { keys },
    );
    if (hits.length === 0) return [];
    const ledger = new Map((await store.query<{ import_id: string; total: string; path: string }>(
      `SELECT import_id, any(episodes) AS total, any(path) AS path FROM ${db}.imports
       WHERE event = 'completed' AND has({ids:Array(UInt64)}, import_id) GROUP BY import_id`,
      { ids: hits.map((h) => Number(h.import_id)) },
    )).map((r) => [r.import_id, r]));
    for (const h of hits) {
      const l = ledger.get(h.import_id);
      if (Number(h.n) !== Number(l?.total)) {
        throw new ImportError(shown, 1, `${h.n} of its episodes are already in the store from ${l?.path ?? 'an earlier import'}, which holds ${l?.total ?? '?'}: a ClickHouse store replaces whole files only`);
      }
    }
    return hits.map((h) => Number(h.import_id));
  };

  try {
    return await importPaths(staging, paths, {
      ...options,
      async knownSource(hash) {
        const rows = await store.query<{ path: string }>(
          `SELECT any(path) AS path FROM ${db}.imports WHERE content_hash = {h:String} AND import_id IN (${visible}) HAVING count() > 0`,
          { h: hash },
        );
        return rows[0]?.path;
      },
      async beforeCommit(file) {
        const importId = newImportId();
        const rows = await stagedRows(staging, file.sourceId, importId, index);
        const supersedes = await replaced(rows, file.shown);
        // The file leaves staging inside its own transaction: staging holds one file at most.
        staging.prepare('DELETE FROM episodes WHERE source_id = ?').run(file.sourceId);
        await store.insert(store.coordinator, 'imports', [
          { import_id: importId, event: 'started', content_hash: file.hash, path: file.shown, format: file.format, episodes: 0, turns: 0, at: nowSeconds() },
        ]);
        buffers.add(rows);
        buffers.files.push({ importId, hash: file.hash, path: file.shown, format: file.format, episodes: rows.episodes.length, turns: rows.nTurns, supersedes });
        if (buffers.turns >= batchRows) await flush();
      },
    }).then(async (report) => {
      await flush();
      return report;
    });
  } finally {
    staging.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
