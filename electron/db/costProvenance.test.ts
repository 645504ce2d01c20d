// Each priced turn says where its price came from (the table, its version, the cache-write tier), recorded at
// import; logged and unknown costs say nothing of a table; a database from before the record says "not recorded".
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { importPaths } from '../importers/pipeline.ts';
import { createApi } from '../services/api.ts';
import { useTempDir } from '../testing/tmp.ts';
import { cacheTier, genaiPricesVersion } from './costProvenance.ts';
import { openDatabase } from './database.ts';
import { MIGRATIONS, migrationChecksum } from './migrations.ts';
import { runCostSources } from './runCostChecks.ts';

const tempDir = useTempDir();

// One priced turn per price table and cache-write tier, a logged one and an unknown one (its PROVENANCE.md row).
const sample = fileURLToPath(new URL('../../fixtures/samples/canonical/cost-provenance.jsonl', import.meta.url));

describe('cost provenance', () => {
  it('records for each priced turn the table, its version and the cache-write tier, and shows it in the turn detail', async () => {
    const db = openDatabase(join(tempDir(), 'p.db'));
    const report = await importPaths(db, [sample]);
    expect(report.files[0]?.status, report.files[0]?.reason).toBe('imported');
    const detail = await createApi(db).getEpisode({ ext_id: 'e1' });
    const version = genaiPricesVersion();
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(detail.turns.map((t) => [t.cost_source, t.price_provenance])).toEqual([
      ['priced', 'pool.json, no cache writes'],
      ['priced', 'pool.json, cache 5m'],
      ['priced', 'pool.json, cache 1h'],
      ['priced', 'pool.json, cache 5m+1h'],
      ['priced', `genai-prices ${version}, no cache writes`],
      ['logged', null],
      ['none', null],
    ]);
    const [sources] = [...runCostSources(db).values()];
    expect(sources).toEqual([
      { source: 'logged', provenance: null, turns: 1 },
      { source: 'none', provenance: null, turns: 1 },
      { source: 'priced', provenance: `genai-prices ${version}, no cache writes`, turns: 1 },
      { source: 'priced', provenance: 'pool.json, cache 1h', turns: 1 },
      { source: 'priced', provenance: 'pool.json, cache 5m', turns: 1 },
      { source: 'priced', provenance: 'pool.json, cache 5m+1h', turns: 1 },
      { source: 'priced', provenance: 'pool.json, no cache writes', turns: 1 },
    ]);
    // Five distinct provenances, each stored once: turns keep its id.
    expect(db.prepare('SELECT COUNT(*) FROM price_provenance').pluck().get()).toBe(5);
    db.close();
  });

  it('says "not recorded" for turns priced before the provenance was kept, after the upgrade', () => {
    const path = join(tempDir(), 'old.db');
    const mine = MIGRATIONS.find((m) => m.sql.includes('CREATE TABLE price_provenance'));
    expect(mine).toBeDefined();
    const old = new Database(path);
    // schema_version exactly as migrate() creates it (an altered definition is refused on open).
    old.exec(`CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    for (const m of MIGRATIONS.filter((x) => x.version < (mine?.version ?? 0))) {
      old.exec(m.sql);
      old.prepare('INSERT INTO schema_version VALUES (?, ?, ?, ?)').run(m.version, m.name, migrationChecksum(m), '2026-01-01T00:00:00Z');
    }
    old.exec(`INSERT INTO runs (id, name, source_format, imported_at) VALUES (1, 'old', 'canonical', '2026-01-01');
      INSERT INTO models (id, name, price_in_per_m, price_out_per_m) VALUES (1, 'gpt-5', 1.25, 10);
      INSERT INTO episodes (id, run_id, ext_id, total_cost, n_turns) VALUES (1, 1, 'e', 0.002, 1);
      INSERT INTO turns (episode_id, t, model_id, action_type, tokens_in, tokens_out, cost, cost_source) VALUES (1, 0, 1, 'message', 800, 100, 0.002, 'priced');`);
    old.close();
    const db = openDatabase(path);
    expect([...runCostSources(db).values()]).toEqual([[{ source: 'priced', provenance: 'not recorded', turns: 1 }]]);
    db.close();
  });

  it('names the cache tier from the one-hour part of the cache writes, counted as the pricing counts them', () => {
    expect(cacheTier(null)).toBe('none');
    expect(cacheTier({ in: 100, cache_write: 0, cache_write_1h: 0 })).toBe('none');
    expect(cacheTier({ in: 100, cache_write: 10 })).toBe('5m');
    expect(cacheTier({ in: 100, cache_write: 10, cache_write_1h: 10 })).toBe('1h');
    expect(cacheTier({ in: 100, cache_write: 10, cache_write_1h: 4 })).toBe('5m+1h');
    // Writes beyond the input left after cache reads are not priced as writes (priceTurn clamps them).
    expect(cacheTier({ in: 100, cached: 100, cache_write: 10, cache_write_1h: 10 })).toBe('none');
  });
});
