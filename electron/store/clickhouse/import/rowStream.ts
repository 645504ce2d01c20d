/**
 * One INSERT … FORMAT RowBinary kept open while an import writes rows into it, a batch at a time. The server cuts
 * the stream into parts of its own block size (max_insert_block_size, about a million rows) whatever the size of
 * each write: an insert per batch of 100,000 rows made ten times as many parts, and merging them was a third of
 * the servers' CPU. The rows count only once the file's ledger entry is written, after the insert has ended
 * (importToStore.ts), so a stream may carry the rows of several files, or part of one.
 */
import { PassThrough } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import type { ClickHouseStore } from '../schema/connection.ts';
import { COLUMNS, type ShardedTable } from './episodeRows.ts';

export class RowStream {
  private readonly body: PassThrough;
  private readonly done: Promise<void>;
  private failure: { error: unknown } | null = null;
  private ended: Promise<void> | null = null;

  /** `bufferBytes`: what may wait in memory for the server before a write waits for room. */
  constructor(store: ClickHouseStore, node: ClickHouseClient, table: ShardedTable, what: string, bufferBytes: number) {
    this.body = new PassThrough({ highWaterMark: bufferBytes });
    // A write after the insert failed (the client destroys its body) is answered by the failure, not an event.
    this.body.on('error', () => undefined);
    this.done = store.insertRowBinaryStream(node, `${table}_local`, COLUMNS[table], this.body, what);
    this.done.catch((error: unknown) => {
      this.failure = { error };
      this.body.destroy();
    });
  }

  /** Writes `chunks` (whole rows); resolves once the stream has room for more, rejects if the insert failed. */
  async write(chunks: readonly Buffer[]): Promise<void> {
    this.check();
    let room = true;
    for (const c of chunks) room = this.body.write(c);
    if (!room) {
      await new Promise<void>((resolve) => {
        const go = (): void => {
          this.body.off('drain', go);
          this.body.off('close', go);
          resolve();
        };
        this.body.on('drain', go);
        this.body.on('close', go);
      });
    }
    this.check();
  }

  /** Ends the insert: resolves once every row written is in the store. */
  end(): Promise<void> {
    if (!this.ended) {
      this.body.end();
      this.ended = this.done;
    }
    return this.ended;
  }

  /** Stops the insert where it is (the import failed): the server drops the block it was reading. */
  abort(): void {
    this.body.destroy(new Error('the import stopped'));
  }

  private check(): void {
    if (this.failure) throw this.failure.error;
  }
}
