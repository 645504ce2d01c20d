/**
 * Values of a log's outcome (a scorer's value and metadata, a target, an answer) made storable as they are: JSON
 * values (`z.json()` in shared/canonical.ts) and texts. A log is untrusted, so a value JSON cannot hold (a number
 * parsed from `1e999`, Python's bare NaN / Infinity) becomes null, and a `__proto__` key is left out: neither may
 * cost the episode its import.
 */
import type { z } from 'zod';
import { isBlankName } from '../../shared/canonical.ts';

export type JsonValue = z.infer<ReturnType<typeof z.json>>;

export function jsonValue(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map(jsonValue);
  if (typeof value === 'object') return jsonRecord(value) ?? null;
  return null;
}

/** An object's entries as JSON values, keys cut to 300 characters (the canonical limit); null for anything else or an empty object. */
export function jsonRecord(value: unknown): Record<string, JsonValue> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const out: Record<string, JsonValue> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === '__proto__' || v === undefined) continue;
    out[key.slice(0, 300)] = jsonValue(v);
  }
  return Object.keys(out).length > 0 ? out : null;
}

/** A target, answer or ground truth as text: a string as logged, a number or boolean written out; null for anything else. */
export function loggedText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
  return null;
}

/** A scorer's name from a log: a name the canonical format refuses (blank, over 200 characters) is shown, not refused. */
export function scorerName(name: string): string {
  return isBlankName(name) ? '(unnamed scorer)' : name.slice(0, 200);
}
