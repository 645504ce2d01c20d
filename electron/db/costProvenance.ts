/**
 * Where a priced turn's cost came from: the price table (models/pool.json, or @pydantic/genai-prices at the
 * version installed), and the cache-write tier its writes were priced at. Recorded at import beside the cost, since
 * the table and the library change later; turns keep one id into the few distinct provenances (price_provenance).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { CanonicalTurn } from '../../shared/canonical.ts';
import type { Db } from './dbHandle.ts';
import type { ModelPrice } from './models.ts';

export type CacheTier = 'none' | '5m' | '1h' | '5m+1h';

export interface PriceProvenance {
  /** `pool.json`, `genai-prices`, or `models table` (a price set in the database by other means). */
  price_table: string;
  /** The library's version for genai-prices; '' for the pool (versioned with RouteLens itself). */
  version: string;
  cache_tier: CacheTier;
}

let libraryVersion: string | undefined;

/** @pydantic/genai-prices' version from its package.json (its exports do not expose the file, so it is found beside the entry). */
export function genaiPricesVersion(): string {
  if (libraryVersion !== undefined) return libraryVersion;
  libraryVersion = 'unknown';
  try {
    let dir = dirname(createRequire(import.meta.url).resolve('@pydantic/genai-prices'));
    for (let up = 0; up < 4; up++, dir = dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
        if (pkg.name === '@pydantic/genai-prices' && typeof pkg.version === 'string') {
          libraryVersion = pkg.version;
          break;
        }
      } catch {
        // no package.json at this level
      }
    }
  } catch {
    // not resolvable: the version is said to be unknown rather than failing an import
  }
  return libraryVersion;
}

/**
 * The tier cache writes were priced at: `cache_write_1h` is the one-hour part of `cache_write` (2x base input),
 * the rest five-minute (1.25x); 'none' when the turn wrote nothing to a cache. The writes counted are those the
 * pricing counts (priceTurn, listPriceCall): no more than the input that is not a cache read.
 */
export function cacheTier(tokens: CanonicalTurn['tokens']): CacheTier {
  const input = tokens?.in ?? 0;
  const cached = Math.min(tokens?.cached ?? 0, input);
  const written = Math.min(tokens?.cache_write ?? 0, input - cached);
  const hour = Math.min(tokens?.cache_write_1h ?? 0, written);
  if (written <= 0) return 'none';
  if (hour <= 0) return '5m';
  return hour >= written ? '1h' : '5m+1h';
}

/** How a turn priced from its tokens and `model`'s list price was priced. */
export function priceProvenanceOf(model: ModelPrice, tokens: CanonicalTurn['tokens']): PriceProvenance {
  const tier = cacheTier(tokens);
  if (model.price_source === 'genai-prices') return { price_table: 'genai-prices', version: genaiPricesVersion(), cache_tier: tier };
  if (model.price_source === 'pool') return { price_table: 'pool.json', version: '', cache_tier: tier };
  return { price_table: 'models table', version: '', cache_tier: tier };
}

/** `pool.json, cache 5m` / `genai-prices 0.1.8, no cache writes`: one line for the inspector and the CLI. */
export function describeProvenance(p: { price_table: string; version: string; cache_tier: string }): string {
  const table = p.version ? `${p.price_table} ${p.version}` : p.price_table;
  return `${table}, ${p.cache_tier === 'none' ? 'no cache writes' : `cache ${p.cache_tier}`}`;
}

/** Ids of price_provenance rows, created on first use within the caller's transaction. */
export class PriceProvenanceIds {
  private readonly ids = new Map<string, number>();
  private readonly find;
  private readonly insert;

  constructor(db: Db) {
    this.find = db.prepare('SELECT id FROM price_provenance WHERE price_table = ? AND version = ? AND cache_tier = ?').pluck();
    this.insert = db.prepare('INSERT INTO price_provenance (price_table, version, cache_tier) VALUES (?, ?, ?)');
  }

  idOf(p: PriceProvenance): number {
    const key = `${p.price_table}\u0000${p.version}\u0000${p.cache_tier}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = (this.find.get(p.price_table, p.version, p.cache_tier) as number | undefined)
        ?? Number(this.insert.run(p.price_table, p.version, p.cache_tier).lastInsertRowid);
      this.ids.set(key, id);
    }
    return id;
  }

  /** The transaction rolled back: ids created in it are gone. */
  rollback(): void {
    this.ids.clear();
  }
}
