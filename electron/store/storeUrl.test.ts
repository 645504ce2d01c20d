import { describe, expect, it } from 'vitest';
import { describeStore, parseStoreUrl, storeUrlOf, StoreUrlError } from './storeUrl.ts';
import { bindParams, sqlString } from './clickhouse/schema/connection.ts';

describe('store URLs', () => {
  it('reads hosts, database, cluster and credentials; shows none of the credentials', () => {
    const u = parseStoreUrl('clickhouse://bob:p%40ss@10.0.0.1:8123,10.0.0.2:8124/rl?cluster=two');
    expect(u).toMatchObject({ hosts: [{ host: '10.0.0.1', port: 8123 }, { host: '10.0.0.2', port: 8124 }], database: 'rl', cluster: 'two', username: 'bob', password: 'p@ss' });
    expect(describeStore(u)).toBe('clickhouse://10.0.0.1:8123,10.0.0.2:8124/rl?cluster=two');
    const env = parseStoreUrl('clickhouse://localhost:8123/rl', { ROUTELENS_STORE_USER: 'svc', ROUTELENS_STORE_PASSWORD: 'pw' });
    expect([env.username, env.password, env.cluster]).toEqual(['svc', 'pw', null]);
  });

  it('refuses what is not a store URL, in words without the password', () => {
    for (const bad of ['clickhouse://h/db', 'clickhouse://h:99999/db', 'clickhouse://h:1/db-1', 'clickhouse://h:1/db?shard=2', 'clickhouse://x:secret@h:1,g:2/db', 'postgres://h:1/db']) {
      expect(() => parseStoreUrl(bad)).toThrow(StoreUrlError);
      try {
        parseStoreUrl(bad);
      } catch (e) {
        expect((e as Error).message).not.toContain('secret');
      }
    }
  });

  it('takes --store, else ROUTELENS_STORE when no --db is given', () => {
    expect(storeUrlOf({ db: 'x.db' }, { ROUTELENS_STORE: 'clickhouse://h:1/d' })).toBeNull();
    expect(storeUrlOf({}, { ROUTELENS_STORE: 'clickhouse://h:1/d' })?.database).toBe('d');
    expect(() => storeUrlOf({ db: 'x.db', store: 'clickhouse://h:1/d' }, {})).toThrow('not both');
  });
});

describe('query parameters bound on our side (ClickHouse 18.16 has none)', () => {
  it('a string never ends its literal, whatever it holds', () => {
    expect(sqlString("it's \\' ; DROP TABLE x; --")).toBe("'it\\'s \\\\\\' ; DROP TABLE x; --'");
    expect(bindParams('SELECT {a:String}, {n:UInt64}, {l:Array(String)}', { a: "x'", n: 5, l: ['p', "q'"] })).toBe("SELECT 'x\\'', 5, ['p', 'q\\'']");
  });
  it('a number that is not a whole number, or a missing parameter, is refused before any query', () => {
    expect(() => bindParams('SELECT {n:UInt64}', { n: '1; DROP' })).toThrow('not a whole number');
    expect(() => bindParams('SELECT {n:UInt64}', {})).toThrow('missing');
  });
  it('a set for IN is a parenthesised list of checked values, never empty', () => {
    expect(bindParams('x IN {k:Set(UInt64)}', { k: [3, 1] })).toBe('x IN (3, 1)');
    expect(() => bindParams('x IN {k:Set(UInt64)}', { k: [] })).toThrow('non-empty');
    expect(() => bindParams('x IN {k:Set(UInt64)}', { k: ['1) OR (1'] })).toThrow('not a whole number');
  });
});
