import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { RouteLensApi } from '../../shared/api.ts';
import { useTempDir } from '../testing/tmp.ts';
import { join } from 'node:path';
import { dispatch } from './dispatch.ts';

const tempDir = useTempDir();

describe('dispatch', () => {
  it('answers a real "database is locked" as busy with a message, never as an internal error', async () => {
    const path = join(tempDir(), 'locked.db');
    const holder = new Database(path);
    holder.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x)');
    holder.exec('BEGIN IMMEDIATE');
    const other = new Database(path, { timeout: 0 });
    try {
      const api = { dbInfo: async () => other.exec('INSERT INTO t VALUES (1)') } as unknown as RouteLensApi;
      const r = await dispatch(api, 'dbInfo', {});
      expect(r).toMatchObject({ ok: false, error: { kind: 'busy', message: expect.stringMatching(/^dbInfo: the database is busy with another write/) } });
    } finally {
      other.close();
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('answers damage met by a query as "damaged", pointing at doctor, not as an internal error', async () => {
    const api = {
      dbInfo: async () => {
        throw Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
      },
    } as unknown as RouteLensApi;
    const r = await dispatch(api, 'dbInfo', {});
    expect(r).toMatchObject({ ok: false, error: { kind: 'damaged', message: expect.stringMatching(/^dbInfo: .*damaged database: .*routelens doctor/) } });
  });
});
