/**
 * The connection's reads: at most `readers` at once, each answered, a failed one freeing its place; ClickHouse
 * 18.16's lost GLOBAL IN table: a read that lost it is sent again, at most three times; every other failure is
 * reported at once, in one line naming the store.
 */
import { describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '@clickhouse/client';
import { parseStoreUrl } from '../../storeUrl.ts';
import { ClickHouseStore, readersFromEnvironment, StoreError } from './connection.ts';

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

  it('runs at most `readers` reads at once, answers each, and a failed read frees its place', async () => {
    const three = new ClickHouseStore(parseStoreUrl('clickhouse://127.0.0.1:1/routelens?cluster=c'), 3);
    let now = 0;
    let most = 0;
    const release: (() => void)[] = [];
    const node = {
      query: async ({ query }: { query: string }) => {
        most = Math.max(most, ++now);
        await new Promise<void>((r) => release.push(r));
        now--;
        if (query.includes('fail')) throw new Error('Code: 62, e.displayText() = DB::Exception: Syntax error');
        return { json: async () => [{ q: query }] };
      },
    } as unknown as ClickHouseClient;
    const reads = Array.from({ length: 10 }, (_x, i) => three.query(i === 1 ? 'SELECT fail' : `SELECT ${i}`, {}, node).catch((e: Error) => e.message));
    let settled = false;
    const all = Promise.all(reads).finally(() => (settled = true));
    // One waiting read answered per tick, oldest first, until every read has its answer.
    while (!settled) {
      await new Promise((r) => setTimeout(r, 1));
      release.shift()?.();
    }
    const answers = await all;
    expect(most).toBe(3);
    expect(answers[1]).toMatch(/Syntax error/);
    expect(answers.filter((a, i) => i !== 1)).toEqual(Array.from({ length: 10 }, (_x, i) => [{ q: `SELECT ${i}` }]).filter((_a, i) => i !== 1));
  });

  it('takes the number of reads at once from ROUTELENS_STORE_READERS, and refuses one that is not a count', () => {
    expect(readersFromEnvironment({})).toBe(8);
    expect(readersFromEnvironment({ ROUTELENS_STORE_READERS: '1' })).toBe(1);
    for (const bad of ['0', '2.5', 'many', '65']) expect(() => readersFromEnvironment({ ROUTELENS_STORE_READERS: bad })).toThrow(/ROUTELENS_STORE_READERS is ".*": give a whole number/);
  });

  it('reports any other error at once', async () => {
    const { node, calls } = flaky(["Code: 60, e.displayText() = DB::Exception: Table routelens.turns doesn't exist.."]);
    await expect(store.query('SELECT 1 AS n', {}, node)).rejects.toThrow(/Table routelens\.turns doesn't exist/);
    expect(calls()).toBe(1);
  });
});
