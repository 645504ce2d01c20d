/**
 * models/pool.json and the model table it seeds: what opening a database needs (database.ts), apart from the
 * pricing of models.ts, so a read-only open loads neither the pricing library nor a schema library.
 */
import { readFileSync } from 'node:fs';
import type { Db } from './dbHandle.ts';

export interface PoolModel {
  name: string;
  provider: string | null;
  aliases: string[];
  price_in_per_m: number | null;
  price_out_per_m: number | null;
  price_cached_per_m: number | null;
  /** Cache writes (Anthropic's cache creation), when the vendor prices them apart from input. */
  price_cache_write_per_m: number | null;
  max_input_tokens: number | null;
  max_output_tokens: number | null;
  knowledge_cutoff: string | null;
  tier: string | null;
  pool: string | null;
}

const NULLABLE_NUMBERS = ['price_in_per_m', 'price_out_per_m', 'price_cached_per_m', 'max_input_tokens', 'max_output_tokens'] as const;
const NULLABLE_STRINGS = ['provider', 'knowledge_cutoff', 'tier', 'pool'] as const;

/** The shipped file, checked field by field (it is ours, but a bad edit must fail loudly, not seed nonsense). */
function parsePool(json: unknown): PoolModel[] {
  const models = (json as { models?: unknown } | null)?.models;
  if (!Array.isArray(models)) throw new Error('models/pool.json: "models" must be an array');
  return models.map((m: Record<string, unknown>, i) => {
    const wrong = (field: string, want: string): never => {
      throw new Error(`models/pool.json: models[${i}].${field} must be ${want}`);
    };
    if (typeof m !== 'object' || m === null) throw new Error(`models/pool.json: models[${i}] must be an object`);
    if (typeof m.name !== 'string') wrong('name', 'a string');
    for (const k of NULLABLE_NUMBERS) if (m[k] !== null && typeof m[k] !== 'number') wrong(k, 'a number or null');
    for (const k of NULLABLE_STRINGS) if (m[k] !== null && typeof m[k] !== 'string') wrong(k, 'a string or null');
    const write = m.price_cache_write_per_m ?? null;
    if (write !== null && typeof write !== 'number') wrong('price_cache_write_per_m', 'a number or null');
    const aliases = m.aliases === undefined ? [] : m.aliases;
    if (!Array.isArray(aliases) || aliases.some((a) => typeof a !== 'string')) wrong('aliases', 'an array of strings');
    // Only the known fields, as they seed the table's columns.
    return {
      name: m.name as string, provider: m.provider as string | null, aliases: aliases as string[],
      price_in_per_m: m.price_in_per_m as number | null, price_out_per_m: m.price_out_per_m as number | null,
      price_cached_per_m: m.price_cached_per_m as number | null, price_cache_write_per_m: write as number | null,
      max_input_tokens: m.max_input_tokens as number | null, max_output_tokens: m.max_output_tokens as number | null,
      knowledge_cutoff: m.knowledge_cutoff as string | null, tier: m.tier as string | null, pool: m.pool as string | null,
    };
  });
}

const poolUrl = new URL('../../models/pool.json', import.meta.url);

let cachedPool: PoolModel[] | undefined;
export function loadPool(): PoolModel[] {
  cachedPool ??= parsePool(JSON.parse(readFileSync(poolUrl, 'utf8')));
  return cachedPool;
}

/** Lower-cased lookup key: logs differ in case and vendor prefixes for the same model. */
export function aliasKey(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * True when the model table already holds models/pool.json exactly (every model's fields and aliases): a
 * read, so opening an up-to-date database writes nothing (issue 16: seeding happens on writes only).
 */
export function modelPoolIsCurrent(db: Db): boolean {
  const exists = db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('models', 'model_aliases')").pluck().get();
  if (exists !== 2) return false;
  const row = db.prepare(`SELECT id, provider, price_in_per_m, price_out_per_m, price_cached_per_m, max_input_tokens,
      max_output_tokens, knowledge_cutoff, tier, in_pool, price_source, price_cache_write_per_m FROM models WHERE name = ?`);
  const aliasOf = db.prepare('SELECT model_id FROM model_aliases WHERE alias = ?').pluck();
  for (const m of loadPool()) {
    const r = row.get(m.name) as Record<string, unknown> | undefined;
    if (!r) return false;
    const want: Record<string, unknown> = { ...m, in_pool: m.pool ? 1 : 0, price_source: 'pool' };
    for (const k of ['provider', 'price_in_per_m', 'price_out_per_m', 'price_cached_per_m', 'price_cache_write_per_m', 'max_input_tokens', 'max_output_tokens', 'knowledge_cutoff', 'tier', 'in_pool', 'price_source']) {
      if (r[k] !== want[k]) return false;
    }
    for (const a of [m.name, ...m.aliases]) if (aliasOf.get(aliasKey(a)) !== r.id) return false;
  }
  return true;
}

export function seedModelPool(db: Db): void {
  const upsert = db.prepare(`INSERT INTO models (name, provider, price_in_per_m, price_out_per_m, price_cached_per_m,
      price_cache_write_per_m, max_input_tokens, max_output_tokens, knowledge_cutoff, tier, in_pool, price_source)
    VALUES (@name, @provider, @price_in_per_m, @price_out_per_m, @price_cached_per_m, @price_cache_write_per_m, @max_input_tokens,
      @max_output_tokens, @knowledge_cutoff, @tier, @in_pool, 'pool')
    ON CONFLICT(name) DO UPDATE SET provider=excluded.provider, price_in_per_m=excluded.price_in_per_m,
      price_out_per_m=excluded.price_out_per_m, price_cached_per_m=excluded.price_cached_per_m,
      price_cache_write_per_m=excluded.price_cache_write_per_m,
      max_input_tokens=excluded.max_input_tokens, max_output_tokens=excluded.max_output_tokens,
      knowledge_cutoff=excluded.knowledge_cutoff, tier=excluded.tier, in_pool=excluded.in_pool, price_source='pool'`);
  const idOf = db.prepare('SELECT id FROM models WHERE name = ?').pluck();
  const alias = db.prepare('INSERT OR REPLACE INTO model_aliases (alias, model_id) VALUES (?, ?)');
  db.transaction(() => {
    for (const m of loadPool()) {
      upsert.run({ ...m, in_pool: m.pool ? 1 : 0 });
      const id = idOf.get(m.name) as number;
      for (const a of [m.name, ...m.aliases]) alias.run(aliasKey(a), id);
    }
  })();
}
