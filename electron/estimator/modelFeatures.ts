/**
 * The 8 model metadata features f_a of the model encoder (weights.ts MODEL_FEATURES, MTRouter §3.2 "structured
 * attributes"): list prices, context and output limits and knowledge cut-off from the `models` table, plus the
 * mean output tokens and mean latency each model shows in the logged turns. Each feature is log1p-transformed
 * (prices, limits and counts are heavy-tailed) and z-scored over the candidate pool; a value the table or the
 * logs lack becomes the mean of the models that have it, i.e. 0 after standardisation. The statistics are
 * returned so the model card can state exactly how a new model would be encoded.
 */
import type { Db } from '../db/dbHandle.ts';
import { MODEL_FEATURES } from './weights.ts';

export interface ModelFeatureStats {
  features: readonly string[];
  /** Mean and standard deviation of log1p(value) over the pool's models that have the value (std 1 when 0 or unknown). */
  mean: number[];
  std: number[];
  /** Raw values per model (before log1p), null where unknown, in the order of `models`. */
  raw: Record<string, (number | null)[]>;
}

export interface ModelFeatureResult {
  models: string[];
  /** [K × 8] standardised features. */
  features: Float32Array;
  stats: ModelFeatureStats;
}

/** Months from 2020-01 to a cut-off given as YYYY, YYYY-MM or YYYY-MM-DD; null when unparseable. */
export function cutoffMonths(cutoff: string | null): number | null {
  if (!cutoff) return null;
  const m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?/.exec(cutoff.trim());
  if (!m) return null;
  const year = Number(m[1]);
  const month = m[2] ? Number(m[2]) : 1;
  const day = m[3] ? Number(m[3]) : 1;
  return Math.max(0, (year - 2020) * 12 + (month - 1) + (day - 1) / 31);
}

/** log1p then z-score per feature over the pool; missing → the feature's mean (0 after z-scoring). */
export function standardiseModelFeatures(raw: readonly (readonly (number | null)[])[]): { features: Float32Array; mean: number[]; std: number[] } {
  const k = raw.length;
  const f = MODEL_FEATURES.length;
  const features = new Float32Array(k * f);
  const mean: number[] = [];
  const std: number[] = [];
  for (let j = 0; j < f; j++) {
    const known: number[] = [];
    for (const row of raw) {
      const v = row[j];
      if (v != null && Number.isFinite(v)) known.push(Math.log1p(Math.max(0, v)));
    }
    const mu = known.length ? known.reduce((a, b) => a + b, 0) / known.length : 0;
    const variance = known.length ? known.reduce((a, b) => a + (b - mu) ** 2, 0) / known.length : 0;
    const sd = variance > 1e-12 ? Math.sqrt(variance) : 1;
    mean.push(mu);
    std.push(sd);
    raw.forEach((row, i) => {
      const v = row[j];
      features[i * f + j] = v != null && Number.isFinite(v) ? (Math.log1p(Math.max(0, v)) - mu) / sd : 0;
    });
  }
  return { features, mean, std };
}

/** A model's row of facts: what the `models` table (or, on a store, the shipped pool and price library) says. */
export interface ModelMeta {
  price_in_per_m: number | null;
  price_out_per_m: number | null;
  price_cached_per_m: number | null;
  max_input_tokens: number | null;
  max_output_tokens: number | null;
  knowledge_cutoff: string | null;
}

/**
 * Where the model features' facts come from: a SQLite database (`modelFactsOf`) or a ClickHouse store
 * (storeTraining.ts), so both stores encode a model alike.
 */
export interface ModelFacts {
  /** The model's row, or null when the store does not know it. */
  meta(name: string): ModelMeta | null;
  /** Mean output tokens and latency over every logged turn of the model. */
  logMeans(name: string): { mean_out: number | null; mean_latency: number | null } | undefined;
}

/** A database's model facts: the `models` table and one pass over its turns for the log means. */
export function modelFactsOf(db: Db): ModelFacts {
  const byName = db.prepare(`SELECT price_in_per_m, price_out_per_m, price_cached_per_m, max_input_tokens,
      max_output_tokens, knowledge_cutoff FROM models WHERE name = ?`);
  // One pass over turns for the log means (~0.1 s at 500k turns); grouped by the model_id index.
  const means = db
    .prepare('SELECT m.name, AVG(t.tokens_out) AS mean_out, AVG(t.latency_ms) AS mean_latency FROM turns t JOIN models m ON m.id = t.model_id GROUP BY t.model_id')
    .all() as { name: string; mean_out: number | null; mean_latency: number | null }[];
  const meanOf = new Map(means.map((r) => [r.name, r]));
  return {
    meta: (name) => (byName.get(name) as ModelMeta | undefined) ?? null,
    logMeans: (name) => meanOf.get(name),
  };
}

/** The raw (unstandardised) 8 features per model, in MODEL_FEATURES order; null where unknown. */
export function rawModelFeatures(facts: ModelFacts, models: readonly string[]): (number | null)[][] {
  return models.map((name) => {
    const row = facts.meta(name);
    if (!row) return MODEL_FEATURES.map(() => null);
    const logs = facts.logMeans(name);
    return [
      row.price_in_per_m,
      row.price_out_per_m,
      row.price_cached_per_m,
      row.max_input_tokens,
      row.max_output_tokens,
      cutoffMonths(row.knowledge_cutoff),
      logs?.mean_out ?? null,
      logs?.mean_latency ?? null,
    ];
  });
}

export function modelFeatures(facts: ModelFacts, models: readonly string[]): ModelFeatureResult {
  const raw = rawModelFeatures(facts, models);
  const { features, mean, std } = standardiseModelFeatures(raw);
  return {
    models: [...models],
    features,
    stats: { features: MODEL_FEATURES, mean, std, raw: Object.fromEntries(models.map((m, i) => [m, raw[i] as (number | null)[]])) },
  };
}

// ---------------------------------------------------------------- the mtrouter profile's features

/**
 * The reference's 8 model attributes (MTRouter research/training/model_encoder.py): five read from the model
 * config, three derived. Our `models` table holds the same facts (models/pool.json carries the authors'
 * values for the paper's pool); a value it lacks takes the reference's default, as a model missing from the
 * authors' config does.
 */
export const MTROUTER_MODEL_FEATURES = [
  'max_input_tokens',
  'max_output_tokens',
  'input_cost_per_million',
  'output_cost_per_million',
  'knowledge_cutoff_days_since_2026_01_01',
  'context_total', // max_input + max_output
  'cost_ratio', // output / (input + 1e-6)
  'cost_total', // input + output
] as const;

/** The reference's values for an attribute the config does not give. */
export const MTROUTER_META_DEFAULTS = {
  max_input_tokens: 128_000,
  max_output_tokens: 4096,
  input_cost_per_million: 1.0,
  output_cost_per_million: 5.0,
  knowledge_cutoff: '2024-01-01',
} as const;
/** Cut-offs are counted in days from this date (negative before it). */
export const MTROUTER_CUTOFF_BASE = '2026-01-01';
/** Columns that get log1p: every one but the cut-off days, which can be negative. */
const MTROUTER_LOG_COLUMNS = new Set([0, 1, 2, 3, 5, 6, 7]);
/** Added to the population standard deviation, as the reference does (so a constant column gives 0). */
const MTROUTER_STD_EPS = 1e-6;
const DAY_MS = 86_400_000;

/** Days from 2026-01-01 to a YYYY-MM-DD (or YYYY-MM, YYYY) date; null when unparseable. */
export function cutoffDays(cutoff: string): number | null {
  const m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$/.exec(cutoff.trim());
  if (!m) return null;
  const [by, bm, bd] = MTROUTER_CUTOFF_BASE.split('-').map(Number) as [number, number, number];
  const at = Date.UTC(Number(m[1]), (m[2] ? Number(m[2]) : 1) - 1, m[3] ? Number(m[3]) : 1);
  return Math.round((at - Date.UTC(by, bm - 1, bd)) / DAY_MS);
}


/** The 8 raw attributes of one model, defaults filled in (MTROUTER_MODEL_FEATURES order). */
export function mtrouterRawFeatures(meta: ModelMeta | null): number[] {
  const d = MTROUTER_META_DEFAULTS;
  const maxIn = meta?.max_input_tokens ?? d.max_input_tokens;
  const maxOut = meta?.max_output_tokens ?? d.max_output_tokens;
  const costIn = meta?.price_in_per_m ?? d.input_cost_per_million;
  const costOut = meta?.price_out_per_m ?? d.output_cost_per_million;
  const days = (meta?.knowledge_cutoff ? cutoffDays(meta.knowledge_cutoff) : null) ?? (cutoffDays(d.knowledge_cutoff) as number);
  return [maxIn, maxOut, costIn, costOut, days, maxIn + maxOut, costOut / (costIn + 1e-6), costIn + costOut];
}

/** log1p on the positive columns, then z-score over the pool with the population std + 1e-6. */
export function standardiseMtrouterFeatures(raw: readonly (readonly number[])[]): { features: Float32Array; mean: number[]; std: number[] } {
  const f = MTROUTER_MODEL_FEATURES.length;
  const k = raw.length;
  const features = new Float32Array(k * f);
  const mean: number[] = [];
  const std: number[] = [];
  for (let j = 0; j < f; j++) {
    const col = raw.map((row) => (MTROUTER_LOG_COLUMNS.has(j) ? Math.log1p(row[j] as number) : (row[j] as number)));
    const mu = k ? col.reduce((a, b) => a + b, 0) / k : 0;
    const sd = Math.sqrt(k ? col.reduce((a, b) => a + (b - mu) ** 2, 0) / k : 0) + MTROUTER_STD_EPS;
    mean.push(mu);
    std.push(sd);
    col.forEach((v, i) => {
      features[i * f + j] = (v - mu) / sd;
    });
  }
  return { features, mean, std };
}

/** The mtrouter profile's model features for `models`, from the models' facts. */
export function mtrouterModelFeatures(facts: ModelFacts, models: readonly string[]): ModelFeatureResult {
  const raw = models.map((name) => mtrouterRawFeatures(facts.meta(name)));
  const { features, mean, std } = standardiseMtrouterFeatures(raw);
  return {
    models: [...models],
    features,
    stats: { features: MTROUTER_MODEL_FEATURES, mean, std, raw: Object.fromEntries(models.map((m, i) => [m, raw[i] as number[]])) },
  };
}
