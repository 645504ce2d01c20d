/**
 * The model table: seeded from models/pool.json, resolving the many spellings logs use for one model
 * (`google/gemini-3-pro-preview`, `@google/gemini-3-pro-preview`, `gemini-3-pro-preview`) to one row,
 * and pricing turns whose log carries tokens but no cost.
 */
import type { ModelInfo } from '../../shared/api.ts';
import { modelColorSlots, modelsByRun } from '../../shared/charts/palette.ts';
import { normaliseModelName } from '../../shared/modelNames.ts';
import type { Db } from './dbHandle.ts';
import { listPriceCall, listPriceOf, type CallTokens } from './listPrices.ts';
import { aliasKey, loadPool } from './modelPool.ts';

// The pool's table lives in modelPool.ts, which opening a database needs without the pricing library (listPrices.ts).
export { aliasKey, loadPool, modelPoolIsCurrent, seedModelPool, type PoolModel } from './modelPool.ts';

/** The models the API lists: the pool's, then those some episode used. */
export function listModels(db: Db): ModelInfo[] {
  // Colour order: pool models first, then others by first appearance, so a model keeps its colour as runs are added.
  const rows = db
    .prepare(`SELECT id, name, provider, price_in_per_m, price_out_per_m, tier FROM models
      WHERE in_pool = 1 OR id IN (SELECT DISTINCT model_id FROM episode_models) ORDER BY in_pool DESC, id`)
    .all() as Omit<ModelInfo, 'color_index'>[];
  // No two models of one run alike (palette.ts modelColorSlots).
  const pairs = db
    .prepare('SELECT DISTINCT e.run_id AS run, m.name AS model FROM episode_models em JOIN episodes e ON e.id = em.episode_id JOIN models m ON m.id = em.model_id')
    .all() as { run: number; model: string }[];
  const slots = modelColorSlots(rows.map((r) => r.name), modelsByRun(pairs));
  return rows.map((r, i) => ({ ...r, color_index: slots[i] as number }));
}

export interface ModelPrice {
  id: number;
  name: string;
  price_in_per_m: number | null;
  price_out_per_m: number | null;
  price_cached_per_m: number | null;
  price_cache_write_per_m?: number | null;
  /** 'pool' (models/pool.json), 'genai-prices' (the library prices each call), or null (no price known). */
  price_source?: string | null;
}

/**
 * Resolves model names to rows inside one import. A name not seen before is looked up as logged, then by its
 * normalised form (shared/modelNames.ts); a model still unknown is added under the normalised name, with the
 * library's list prices when it knows them (a warning names it either way).
 */
export class ModelResolver {
  private readonly byAlias = new Map<string, ModelPrice>();
  private readonly find;
  private readonly insert;
  private readonly addAlias;
  private readonly setListPrice;
  readonly added: string[] = [];
  /** Models added or first priced from the price library in this import, for the report. */
  readonly listPriced: string[] = [];
  private addedSinceCommit: string[] = [];
  private listPricedSinceCommit: string[] = [];

  constructor(private readonly db: Db) {
    this.find = db.prepare(`SELECT m.id, m.name, m.price_in_per_m, m.price_out_per_m, m.price_cached_per_m,
        m.price_cache_write_per_m, m.price_source
      FROM model_aliases a JOIN models m ON m.id = a.model_id WHERE a.alias = ?`);
    this.insert = db.prepare('INSERT INTO models (name, provider) VALUES (?, ?) ON CONFLICT(name) DO NOTHING');
    this.addAlias = db.prepare(
      'INSERT OR IGNORE INTO model_aliases (alias, model_id) SELECT ?, id FROM models WHERE name = ?',
    );
    this.setListPrice = db.prepare(`UPDATE models SET price_in_per_m = ?, price_out_per_m = ?, price_cached_per_m = ?,
      price_cache_write_per_m = ?, price_source = 'genai-prices', provider = COALESCE(provider, ?) WHERE id = ?`);
  }

  /** The file's transaction committed: models it added are real now. */
  commit(): void {
    this.added.push(...this.addedSinceCommit);
    this.listPriced.push(...this.listPricedSinceCommit);
    this.addedSinceCommit = [];
    this.listPricedSinceCommit = [];
  }

  /** Models added (and first list-priced) since the last commit or rollback, in the order they were added. */
  uncommitted(): { added: string[]; listPriced: string[] } {
    return { added: [...this.addedSinceCommit], listPriced: [...this.listPricedSinceCommit] };
  }

  /** Models another connection added for this file (the store's import threads): reported once it commits. */
  addedElsewhere(added: readonly string[], listPriced: readonly string[]): void {
    this.addedSinceCommit.push(...added);
    this.listPricedSinceCommit.push(...listPriced);
  }

  /** The file's transaction rolled back: rows it added are gone, so no cached id may outlive them. */
  rollback(): void {
    this.byAlias.clear();
    this.addedSinceCommit = [];
    this.listPricedSinceCommit = [];
  }

  resolve(rawName: string): ModelPrice {
    const key = aliasKey(rawName);
    const hit = this.byAlias.get(key);
    if (hit) return hit;
    const normalised = normaliseModelName(rawName);
    let row = (this.find.get(key) ?? this.find.get(aliasKey(normalised.name))) as ModelPrice | undefined;
    if (!row) {
      this.insert.run(normalised.name, normalised.provider);
      this.addAlias.run(aliasKey(normalised.name), normalised.name);
      row = this.find.get(aliasKey(normalised.name)) as ModelPrice;
      this.addedSinceCommit.push(normalised.name);
    }
    this.addAlias.run(key, row.name);
    // A model without any price (added by an older version, or just now) gets the library's, if it has one.
    if (row.price_source == null && row.price_in_per_m == null && row.price_out_per_m == null) {
      const list = listPriceOf(rawName) ?? listPriceOf(row.name);
      if (list) {
        this.setListPrice.run(list.in_per_m, list.out_per_m, list.cache_read_per_m, list.cache_write_per_m, list.provider, row.id);
        row = this.find.get(key) as ModelPrice;
        this.listPricedSinceCommit.push(row.name);
      }
    }
    this.byAlias.set(key, row);
    return row;
  }
}

/**
 * USD for a turn from its tokens and the model's list price; null when the price or tokens are unknown. Models
 * priced by the library are priced per call by it (tiers, cache writes, price changes over time); pool models
 * by their per-million prices, cache reads and writes at their own price when the pool has one.
 */
/**
 * A model as RouteLens prices it without a database (a ClickHouse store keeps no model table): the pool's prices
 * (its name or an alias), else the price library's, priced per call by the library (the same sources, in the same
 * order, as ModelResolver), else unknown.
 */
export function shippedModelPrice(name: string): ModelPrice {
  const pool = loadPool().find((m) => m.name === name || m.aliases.some((a) => aliasKey(a) === aliasKey(name)));
  if (pool) {
    return {
      id: -1, name, price_in_per_m: pool.price_in_per_m, price_out_per_m: pool.price_out_per_m, price_cached_per_m: pool.price_cached_per_m,
      price_cache_write_per_m: pool.price_cache_write_per_m, price_source: 'pool',
    };
  }
  const list = listPriceOf(name);
  return {
    id: -1, name, price_in_per_m: list?.in_per_m ?? null, price_out_per_m: list?.out_per_m ?? null, price_cached_per_m: list?.cache_read_per_m ?? null,
    price_cache_write_per_m: list?.cache_write_per_m ?? null, price_source: list ? 'genai-prices' : null,
  };
}

/** shippedModelPrice as replay's per-million prices (cache reads at the input price when none is given). */
export function shippedPriceOf(name: string): { pin: number | null; pout: number | null; pcached: number | null } {
  const m = shippedModelPrice(name);
  return { pin: m.price_in_per_m, pout: m.price_out_per_m, pcached: m.price_cached_per_m ?? m.price_in_per_m };
}

export function priceTurn(model: ModelPrice, tokens: CallTokens, timestamp?: string | null): number | null {
  if (model.price_source === 'genai-prices') return listPriceCall(model.name, tokens, timestamp);
  if (model.price_in_per_m == null || model.price_out_per_m == null) return null;
  if (tokens.in == null && tokens.out == null) return null;
  const input = tokens.in ?? 0;
  const cached = Math.min(tokens.cached ?? 0, input);
  const written = Math.min(tokens.cache_write ?? 0, input - cached);
  const hour = Math.min(tokens.cache_write_1h ?? 0, written);
  const cachedPrice = model.price_cached_per_m ?? model.price_in_per_m;
  const writePrice = model.price_cache_write_per_m ?? model.price_in_per_m;
  // A cache-write price is Anthropic-style caching, whose one-hour writes cost 2x base input (the five-minute
  // ones 1.25x, the pool's price); a model without one has no such tiers, and its writes cost what input costs.
  const hourPrice = model.price_cache_write_per_m != null ? 2 * model.price_in_per_m : writePrice;
  const uncached = input - cached - written;
  return (
    (uncached * model.price_in_per_m + cached * cachedPrice + (written - hour) * writePrice + hour * hourPrice + (tokens.out ?? 0) * model.price_out_per_m) /
    1e6
  );
}
