/**
 * List prices of models outside models/pool.json, from `@pydantic/genai-prices` (its bundled data: no network).
 * The library knows cache-read and cache-write prices, tiered prices (Gemini Pro above 200k input tokens) and
 * prices that changed over time, so a call is priced by the library itself, not by our per-million formula.
 */
import { calcPrice, type Provider, type Usage } from '@pydantic/genai-prices';
import { normaliseModelName } from '../../shared/modelNames.ts';

export interface ListPrice {
  /** The library's id of the model it matched (`claude-sonnet-4-0` for `claude-sonnet-4-20250514`). */
  matched: string;
  provider: string;
  in_per_m: number | null;
  out_per_m: number | null;
  cache_read_per_m: number | null;
  cache_write_per_m: number | null;
}

export interface CallTokens {
  in?: number | null;
  out?: number | null;
  cached?: number | null;
  cache_write?: number | null;
  /** The one-hour part of cache_write (Anthropic's ephemeral_1h_input_tokens). */
  cache_write_1h?: number | null;
}

/** A flat price or the base of a tiered one, per million tokens. */
function basePrice(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'object' && v !== null && typeof (v as { base?: unknown }).base === 'number') return (v as { base: number }).base;
  return null;
}

/** The spellings tried, most specific first: the logged name as the library may know it, then ours. */
function lookupNames(raw: string): { names: string[]; provider: string | null } {
  const { name, provider } = normaliseModelName(raw);
  const trimmed = raw.trim();
  const slash = trimmed.lastIndexOf('/');
  const bare = slash >= 0 ? trimmed.slice(slash + 1) : trimmed;
  return { names: [...new Set([bare, bare.toLowerCase(), name])], provider };
}

/**
 * What the library knows of one logged name: the spelling it matched and its provider, and, for a model with one
 * flat price (no tiers, no price changes over time), the USD per token of each usage kind, read from the library by
 * pricing one million tokens of each kind. The search costs ~50 µs per call (the library matches every model of
 * a provider), so a flat-priced model is priced from those rates; any other call goes through the library.
 */
const KINDS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'] as const;
type Rates = Record<(typeof KINDS)[number] | 'cache_write_1h_tokens', number>;
type Found = { name: string; provider: Provider; rates: Rates | null } | null;
const found = new Map<string, Found>();

function flatRates(name: string, provider: Provider, model: { prices: unknown }, price: Record<string, unknown>): Rates | null {
  if (Array.isArray(model.prices)) return null;
  if (Object.values(price).some((v) => typeof v === 'object' && v !== null)) return null;
  const rates = {} as Rates;
  for (const kind of KINDS) {
    // Cache tokens are part of input_tokens in the library's usage, so each is priced with input to match.
    const usage: Usage = { input_tokens: kind === 'output_tokens' ? 0 : 1e6, output_tokens: 0, [kind]: 1e6 };
    const r = calcPrice(usage, name, { provider });
    if (!r) return null;
    rates[kind] = r.total_price / 1e6;
  }
  rates.cache_write_1h_tokens = hasHourTier(price) ? rateOfHourWrites(name, provider) : HOUR_WRITE_FACTOR * rates.input_tokens;
  return rates;
}

/**
 * One-hour cache writes cost 2x base input at Anthropic. The library prices them (`cache_write_1h_tokens`, part of
 * `cache_write_tokens`) for every model it gives a `cache_write_1h_mtok`; for the rest (0.1.8: every Claude
 * model of Google Vertex, 41 of 43 Bedrock models and all 61 OpenRouter ones with a cache-write price) it charges
 * them the five-minute price, 37.5% short of 2x, so for those 2x base input is applied here.
 */
const HOUR_WRITE_FACTOR = 2;

function hasHourTier(price: Record<string, unknown>): boolean {
  return price.cache_write_1h_mtok != null;
}

function rateOfHourWrites(name: string, provider: Provider): number {
  const r = calcPrice({ input_tokens: 1e6, output_tokens: 0, cache_write_tokens: 1e6, cache_write_1h_tokens: 1e6 }, name, { provider });
  return r ? r.total_price / 1e6 : 0;
}

function search(raw: string): Found {
  const { names, provider } = lookupNames(raw);
  for (const name of names) {
    for (const options of provider ? [{ providerId: provider }, {}] : [{}]) {
      try {
        const r = calcPrice({ input_tokens: 1, output_tokens: 1 }, name, options);
        if (r) return { name, provider: r.provider, rates: flatRates(name, r.provider, r.model, r.model_price as Record<string, unknown>) };
      } catch {
        // The library throws on names it cannot parse: such a name has no price.
      }
    }
  }
  return null;
}

function lookup(raw: string): Found {
  let hit = found.get(raw);
  if (hit === undefined) {
    hit = search(raw);
    found.set(raw, hit);
  }
  return hit;
}

function calc(raw: string, usage: Usage, timestamp?: Date) {
  const hit = lookup(raw);
  if (!hit) return null;
  try {
    return calcPrice(usage, hit.name, { provider: hit.provider, ...(timestamp ? { timestamp } : {}) });
  } catch {
    return null;
  }
}

/** The model's list prices per million tokens, or null when the library does not know it. */
export function listPriceOf(raw: string): ListPrice | null {
  const r = calc(raw, { input_tokens: 1, output_tokens: 1 });
  if (!r) return null;
  const p = r.model_price as Record<string, unknown>;
  return {
    matched: r.model.id,
    provider: r.provider.id,
    in_per_m: basePrice(p.input_mtok),
    out_per_m: basePrice(p.output_mtok),
    cache_read_per_m: basePrice(p.cache_read_mtok),
    cache_write_per_m: basePrice(p.cache_write_mtok),
  };
}

/**
 * USD for one call, or null when it cannot be known: the model is not in the library, or the input or output
 * count is missing (pricing a missing count as 0 would show a partial cost as the whole).
 */
export function listPriceCall(raw: string, tokens: CallTokens, timestamp?: string | null): number | null {
  if (tokens.in == null || tokens.out == null) return null;
  const cached = Math.min(tokens.cached ?? 0, tokens.in);
  const written = Math.min(tokens.cache_write ?? 0, tokens.in - cached);
  const hour = Math.min(tokens.cache_write_1h ?? 0, written);
  const usage: Usage = { input_tokens: tokens.in, output_tokens: tokens.out, cache_read_tokens: cached, cache_write_tokens: written };
  if (hour > 0) usage.cache_write_1h_tokens = hour;
  const rates = lookup(raw)?.rates;
  if (rates) {
    // rates.cache_* were measured as 1M input tokens that are all cache: the input part is already in them.
    const plain = tokens.in - cached - written;
    return (
      plain * rates.input_tokens + cached * rates.cache_read_tokens + (written - hour) * rates.cache_write_tokens +
      hour * rates.cache_write_1h_tokens + tokens.out * rates.output_tokens
    );
  }
  const when = timestamp ? new Date(timestamp) : undefined;
  const r = calc(raw, usage, when && !Number.isNaN(when.getTime()) ? when : undefined);
  if (!r) return null;
  const price = r.model_price as Record<string, unknown>;
  if (hour === 0 || hasHourTier(price)) return r.total_price;
  // The library charged these at the five-minute price: the rest of 2x base input is added.
  const base = basePrice(price.input_mtok);
  const fiveMinutes = basePrice(price.cache_write_mtok);
  return base === null || fiveMinutes === null ? r.total_price : r.total_price + (hour * (HOUR_WRITE_FACTOR * base - fiveMinutes)) / 1e6;
}
