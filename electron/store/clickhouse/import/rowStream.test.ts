/** An insert kept open across writes, against a real server: one insert whatever the writes, failures reported. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseSkipReason, startTestCluster, type TestCluster } from '../../../../test/clickhouseCluster.ts';
import { parseStoreUrl } from '../../storeUrl.ts';
import { ClickHouseStore } from '../schema/connection.ts';
import { COLUMNS } from './episodeRows.ts';
import { RowBinaryBatch, rowEncoder } from './rowBinary.ts';
import { RowStream } from './rowStream.ts';
import { initStore } from '../schema/schema.ts';

const skip = clickhouseSkipReason();
if (skip) console.log(skip);

describe.skipIf(skip !== null)('RowStream', () => {
  let cluster: TestCluster;
  let store: ClickHouseStore;

  beforeAll(async () => {
    cluster = await startTestCluster(2);
    store = new ClickHouseStore(parseStoreUrl(cluster.url('rows')));
    await initStore(store);
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  const candidates = (from: number, n: number): Buffer[] => {
    const batch = new RowBinaryBatch(rowEncoder('turn_candidates', COLUMNS.turn_candidates));
    for (let i = from; i < from + n; i++) batch.add([7, i, i, 'run', i % 30, `model-${i % 6}`, i / 1000]);
    return batch.take();
  };
  const node = () => store.nodes[0] as NonNullable<ClickHouseStore['nodes'][number]>;

  it('carries many writes as one insert: every row stored, and one part made, once it ends', async () => {
    const stream = new RowStream(store, node(), 'turn_candidates', 'inserting candidates', 64 * 1024);
    for (let w = 0; w < 20; w++) await stream.write(candidates(w * 5000, 5000));
    await stream.end();
    await stream.end();
    const [rows] = await store.query<{ n: string; s: string }>('SELECT count() AS n, sum(episode_key) AS s FROM rows.turn_candidates_local', {}, node());
    expect(rows).toEqual({ n: '100000', s: String((99_999 * 100_000) / 2) });
    // Twenty inserts would have made twenty parts (merges come later); one insert below the block size makes one.
    const [parts] = await store.query<{ n: string }>("SELECT count() AS n FROM system.parts WHERE database = 'rows' AND table = 'turn_candidates_local' AND active", {}, node());
    expect(parts?.n).toBe('1');
  });

  it('an aborted insert stores nothing of a block it had not finished, and ends with a failure, not a hang', async () => {
    const stream = new RowStream(store, node(), 'turn_errors', 'inserting errors', 1024);
    const batch = new RowBinaryBatch(rowEncoder('turn_errors', COLUMNS.turn_errors));
    for (let i = 0; i < 1000; i++) batch.add([7, i, i, 'run', 0, 'timeout', 2, 'log']);
    await stream.write(batch.take());
    stream.abort();
    await expect(stream.end()).rejects.toThrow(/inserting errors: /);
    const [rows] = await store.query<{ n: string }>('SELECT count() AS n FROM rows.turn_errors_local', {}, node());
    expect(rows?.n).toBe('0');
  });

  it('reports an insert the server refuses, naming it, on the next write or at the end', async () => {
    const stream = new RowStream(store, node(), 'turn_candidates', 'inserting candidates on shard 1', 1024);
    // Half a row: the server cannot read it.
    await stream.write([candidates(0, 1)[0]?.subarray(0, 20) as Buffer]);
    await expect(stream.end()).rejects.toThrow(/inserting candidates on shard 1: /);
    await expect(stream.write(candidates(0, 10))).rejects.toThrow(/inserting candidates on shard 1: /);
  });
});
