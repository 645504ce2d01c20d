// The one estimator in use: picked, else the one that scored last, else the newest; a removed pick falls back.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { estimatorInUse, setEstimatorInUse } from './inUse.ts';

let db: Db;
const add = (name: string, created: string, scored: string | null): number =>
  Number(
    db.prepare("INSERT INTO estimators (name, created_at, encoder, config_json, scored_at) VALUES (?, ?, 'hash-1024', '{}', ?)").run(name, created, scored)
      .lastInsertRowid,
  );

beforeEach(() => {
  db = openDatabase(':memory:');
});
afterEach(() => db.close());

describe('estimatorInUse', () => {
  it('is null without estimators', () => {
    expect(estimatorInUse(db)).toBeNull();
  });

  it('falls back to the one that scored last, then to the newest', () => {
    const old = add('old', '2026-01-01', '2026-03-01');
    add('newer-unscored', '2026-02-01', null);
    expect(estimatorInUse(db)).toEqual({ id: old, name: 'old', chosen: false });
    const later = add('later', '2026-01-15', '2026-04-01');
    expect(estimatorInUse(db)?.id).toBe(later);
    db.prepare('UPDATE estimators SET scored_at = NULL').run();
    expect(estimatorInUse(db)?.name).toBe('newer-unscored');
  });

  it('is the picked one whatever scored last, until that estimator is removed', () => {
    const picked = add('picked', '2026-01-01', null);
    add('scored', '2026-01-02', '2026-03-01');
    setEstimatorInUse(db, picked);
    expect(estimatorInUse(db)).toEqual({ id: picked, name: 'picked', chosen: true });
    db.prepare('DELETE FROM estimators WHERE id = ?').run(picked);
    expect(estimatorInUse(db)).toMatchObject({ name: 'scored', chosen: false });
  });
});
