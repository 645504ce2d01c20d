import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, SchemaError } from './database.ts';
import { LATEST_SCHEMA_VERSION } from './migrations.ts';
import { priceTurn } from './models.ts';
import { useTempDir } from '../testing/tmp.ts';

const tempDir = useTempDir();

describe('database', () => {
  it('creates the schema, WAL mode and foreign keys', () => {
    const db = openDatabase(join(tempDir(), 'a.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type='table'").pluck().all();
    for (const t of ['runs', 'models', 'episodes', 'turns', 'turn_text', 'turn_candidates', 'plan_nodes', 'plan_edges', 'estimators', 'estimates', 'targets']) {
      expect(tables).toContain(t);
    }
    expect(db.prepare('SELECT MAX(version) FROM schema_version').pluck().get()).toBe(LATEST_SCHEMA_VERSION);
    db.close();
  });

  it('seeds the MTRouter pool with the paper prices', () => {
    const db = openDatabase(join(tempDir(), 'a.db'));
    const prices = db.prepare('SELECT name, price_in_per_m AS i, price_out_per_m AS o FROM models WHERE in_pool = 1 ORDER BY name').all();
    expect(prices).toEqual([
      { name: 'deepseek-v3.2', i: 0.27, o: 0.42 },
      { name: 'gemini-2.5-flash-lite', i: 0.1, o: 0.4 },
      { name: 'gpt-5', i: 1.25, o: 10 },
      { name: 'gpt-oss-120b', i: 0.09, o: 0.36 },
      { name: 'kimi-k2', i: 0.39, o: 1.9 },
      { name: 'minimax-m2', i: 0.2, o: 1.0 },
    ]);
    db.close();
  });

  it('reopens an existing database without re-running migrations, and keeps data', () => {
    const path = join(tempDir(), 'a.db');
    const db = openDatabase(path);
    db.prepare("INSERT INTO runs (name, source_format, imported_at) VALUES ('r', 'canonical', 'now')").run();
    db.close();
    const again = openDatabase(path);
    expect(again.prepare('SELECT name FROM runs').pluck().all()).toEqual(['r']);
    again.close();
  });

  it('refuses a database from a newer RouteLens', () => {
    const path = join(tempDir(), 'a.db');
    openDatabase(path).close();
    const raw = new Database(path);
    raw.prepare("INSERT INTO schema_version VALUES (999, 'future', 'x', 'now')").run();
    raw.close();
    expect(() => openDatabase(path)).toThrow(SchemaError);
  });

  it('refuses a database whose migration history differs', () => {
    const path = join(tempDir(), 'a.db');
    openDatabase(path).close();
    const raw = new Database(path);
    raw.prepare("UPDATE schema_version SET checksum = 'tampered' WHERE version = 1").run();
    raw.close();
    expect(() => openDatabase(path)).toThrow(/checksum/);
  });
});

describe('pricing', () => {
  const gpt5 = { id: 1, name: 'gpt-5', price_in_per_m: 1.25, price_out_per_m: 10, price_cached_per_m: 0.125 };
  it('prices tokens at the list price, cached input at the cached price', () => {
    // 1000 in (200 cached), 100 out: 800·1.25 + 200·0.125 + 100·10 = 1000 + 25 + 1000 = 2025 per 1e6
    expect(priceTurn(gpt5, { in: 1000, out: 100, cached: 200 })).toBeCloseTo(0.002025, 12);
  });
  it('prices one-hour cache writes at 2x base input when the model has a cache-write price (Anthropic-style caching)', () => {
    const sonnet = { id: 2, name: 'claude-sonnet-4', price_in_per_m: 3, price_out_per_m: 15, price_cached_per_m: 0.3, price_cache_write_per_m: 3.75 };
    // 10,000 in: 6,000 cache reads, 3,000 writes (1,000 of them one-hour), 1,000 plain; 100 out.
    // 1,000·3 + 6,000·0.3 + 2,000·3.75 + 1,000·6 + 100·15 = 3,000 + 1,800 + 7,500 + 6,000 + 1,500 = 19,800 per 1e6
    expect(priceTurn(sonnet, { in: 10_000, out: 100, cached: 6_000, cache_write: 3_000, cache_write_1h: 1_000 })).toBeCloseTo(0.0198, 12);
    // Without the split (older logs) every write is priced as a five-minute one: 3,000·3.75 in place of 2,000·3.75 + 1,000·6.
    expect(priceTurn(sonnet, { in: 10_000, out: 100, cached: 6_000, cache_write: 3_000 })).toBeCloseTo(0.01755, 12);
    // A model without cache-write prices has no tiers: its writes cost what input costs.
    expect(priceTurn(gpt5, { in: 1_000, out: 0, cache_write: 1_000, cache_write_1h: 1_000 })).toBeCloseTo(0.00125, 12);
  });
  it('gives null without a price or without tokens', () => {
    expect(priceTurn({ ...gpt5, price_in_per_m: null }, { in: 1, out: 1 })).toBeNull();
    expect(priceTurn(gpt5, {})).toBeNull();
  });
});
