/**
 * The connection's handling of ClickHouse 18.16's lost GLOBAL IN table: a read that lost it is sent again, at
 * most three times; every other failure is reported at once, in one line naming the store.
 */
import { describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '@clickhouse/client';
import { parseStoreUrl } from '../storeUrl.ts';
import { chunked, ClickHouseStore, StoreError } from './connection.ts';

const LOST = "Code: 60, e.displayText() = DB::Exception: Received from 127.0.0.1:36069. DB::Exception: Table default._data1 doesn't exist.., e.what() = DB::Exception";

/** A client whose reads fail with `failures` in turn, then answer one row. */
function flaky(failures: string[]): { node: ClickHouseClient; calls: () => number } {
  let calls = 0;
  const node = {
    query: async () => {
      const failure = failures[calls++];
      if (failure !== undefined) throw new Error(failure);
      return { json: async () => [{ n: 1 }] };
    },
  } as unknown as ClickHouseClient;
  return { node, calls: () => calls };
}

describe('ClickHouseStore.query', () => {
  const store = new ClickHouseStore(parseStoreUrl('clickhouse://127.0.0.1:1/routelens?cluster=c'));

  it('sends a read again when a shard lost its GLOBAL IN table', async () => {
    const { node, calls } = flaky([LOST, LOST]);
    expect(await store.query('SELECT 1 AS n', {}, node)).toEqual([{ n: 1 }]);
    expect(calls()).toBe(3);
  });

  it('gives up after three such failures, in one line', async () => {
    const { node, calls } = flaky([LOST, LOST, LOST, LOST]);
    const e = await store.query('SELECT 1 AS n', {}, node).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StoreError);
    expect((e as Error).message).toMatch(/^clickhouse:\/\/127\.0\.0\.1:1\/routelens.*Table default\._data1 doesn't exist\.\.$/);
    expect(calls()).toBe(3);
  });

  it('reports any other error at once', async () => {
    const { node, calls } = flaky(["Code: 60, e.displayText() = DB::Exception: Table routelens.turns doesn't exist.."]);
    await expect(store.query('SELECT 1 AS n', {}, node)).rejects.toThrow(/Table routelens\.turns doesn't exist/);
    expect(calls()).toBe(1);
  });
});

describe('chunked', () => {
  it('joins lines into chunks of about 64 KiB, in order, losing none', () => {
    const lines = Array.from({ length: 5000 }, (_v, i) => `${i}\t${'x'.repeat(i % 97)}\n`);
    const chunks = [...chunked(lines)];
    expect(chunks.join('')).toBe(lines.join(''));
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks.slice(0, -1)) expect(c.length).toBeGreaterThanOrEqual(64 * 1024);
    for (const c of chunks) expect(c.length).toBeLessThan(64 * 1024 + 200);
    expect([...chunked([])]).toEqual([]);
  });
});
