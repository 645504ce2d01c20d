/**
 * A zod schema's parse, with a fast path for the values it accepts unchanged. zod builds a new object for every
 * object it checks and a payload for every field; over a large log that was a quarter of an import's CPU. The
 * fast path is compiled from the schema's own definition (types, bounds, refinements: still one place for each
 * fact) into plain predicates over the value itself, and answers only "zod would accept this and give back an
 * equal value". Anything else — a value zod would refuse, transform or strip (an unknown key), a kind of schema
 * this compiler does not know — goes through zod, so refusals keep zod's messages and outputs stay zod's.
 */
import type { z } from 'zod';
import { nameRecordParts } from './nameRecord.ts';

type Accept = (value: unknown) => boolean;

/** zod's internals as far as the compiler reads them (zod 4: `schema._zod.def`, each check's `_zod.def`). */
interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef; check: (payload: { value: unknown; issues: unknown[] }) => unknown } }[];
  innerType?: ZodLike;
  defaultValue?: unknown;
  shape?: Record<string, ZodLike>;
  catchall?: ZodLike;
  element?: ZodLike;
  keyType?: ZodLike;
  valueType?: ZodLike;
  items?: ZodLike[];
  rest?: ZodLike | null;
  options?: ZodLike[];
  entries?: Record<string, unknown>;
  values?: unknown[];
  in?: ZodLike;
  getter?: () => ZodLike;
}
interface CheckDef {
  check: string;
  value?: unknown;
  inclusive?: boolean;
  format?: string;
  maximum?: number;
  minimum?: number;
  length?: number;
}
interface ZodLike {
  _zod: { def: Def };
}

const never: Accept = () => false;

/** A check zod runs after the type test, as a predicate: bounds inline, anything else through the check itself. */
function compileCheck(check: NonNullable<Def['checks']>[number]): Accept {
  const d = check._zod.def;
  if (d.check === 'less_than' && typeof d.value === 'number') {
    const max = d.value;
    return d.inclusive ? (v) => (v as number) <= max : (v) => (v as number) < max;
  }
  if (d.check === 'greater_than' && typeof d.value === 'number') {
    const min = d.value;
    return d.inclusive ? (v) => (v as number) >= min : (v) => (v as number) > min;
  }
  if (d.check === 'number_format' && d.format === 'safeint') return (v) => Number.isSafeInteger(v);
  if (d.check === 'max_length' && typeof d.maximum === 'number') {
    const max = d.maximum;
    return (v) => (v as { length: number }).length <= max;
  }
  if (d.check === 'min_length' && typeof d.minimum === 'number') {
    const min = d.minimum;
    return (v) => (v as { length: number }).length >= min;
  }
  if (d.check === 'length_equals' && typeof d.length === 'number') {
    const n = d.length;
    return (v) => (v as { length: number }).length === n;
  }
  // A refinement: run as zod runs it, on a payload of its own. Names repeat on every turn, so the last string it
  // passed is remembered.
  let lastPassed: unknown;
  return (v) => {
    if (typeof v === 'string' && v === lastPassed) return true;
    const payload = { value: v, issues: [] as unknown[] };
    const r = check._zod.check(payload);
    if (r instanceof Promise || payload.issues.length > 0) return false;
    if (typeof v === 'string') lastPassed = v;
    return true;
  };
}

function withChecks(type: Accept, def: Def): Accept {
  const checks = (def.checks ?? []).map(compileCheck);
  if (checks.length === 0) return type;
  return (v) => {
    if (!type(v)) return false;
    for (const c of checks) if (!c(v)) return false;
    return true;
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function compileObject(def: Def): Accept {
  // A catchall keeps or checks unknown keys (zod's passthrough/strict); only the default, which strips them, is compiled.
  if (def.catchall !== undefined || !def.shape) return never;
  const fields = new Map<string, Accept>();
  const required: string[] = [];
  const defaults: [string, ZodLike][] = [];
  for (const [key, schema] of Object.entries(def.shape)) {
    fields.set(key, compile(schema));
    const kind = schema._zod.def.type;
    if (kind === 'default') defaults.push([key, schema]);
    else if (kind !== 'optional') required.push(key);
  }
  return (v) => {
    if (!isObject(v)) return false;
    for (const key in v) {
      // An unknown key (`__proto__` among them) is stripped by zod: its output would differ from the input.
      const accept = fields.get(key);
      if (accept === undefined || !accept(v[key])) return false;
    }
    for (const key of required) if (!Object.hasOwn(v, key)) return false;
    // zod fills a missing defaulted field with a fresh copy of its default, unchecked; so does this.
    for (const [key, schema] of defaults) if (v[key] === undefined) v[key] = schema._zod.def.defaultValue;
    return true;
  };
}

function compileRecord(def: Def): Accept {
  if (!def.keyType || !def.valueType || def.keyType._zod.def.type !== 'string') return never;
  const key = compile(def.keyType);
  const value = compile(def.valueType);
  return withChecks((v) => {
    if (!isObject(v)) return false;
    // zod's record never copies a `__proto__` key.
    for (const k in v) if (k === '__proto__' || !key(k) || !value(v[k])) return false;
    return true;
  }, def);
}

/**
 * nameRecord (a record that keeps a `__proto__` key) gives back a prototype-less copy; the value itself, made
 * prototype-less, is equal to it.
 */
function compileNameRecord(def: Def): Accept {
  const named = nameRecordParts(def.in);
  if (!named) return never;
  const key = compile(named.key as unknown as ZodLike);
  const value = compile(named.value as unknown as ZodLike);
  return withChecks((v) => {
    if (!isObject(v)) return false;
    for (const k of Object.keys(v)) if (!key(k) || !value(v[k])) return false;
    if (Object.getPrototypeOf(v) !== null) Object.setPrototypeOf(v, null);
    return true;
  }, def);
}

/** One predicate per lazy schema: z.json() names itself among its own options, so compiling it eagerly never ends. */
const lazyPredicates = new WeakMap<ZodLike, Accept>();

function compileLazy(schema: ZodLike): Accept {
  let accept = lazyPredicates.get(schema);
  if (!accept) {
    const getter = schema._zod.def.getter;
    if (!getter) return never;
    let inner: Accept | undefined;
    accept = (v) => (inner ??= compile(getter()))(v);
    lazyPredicates.set(schema, accept);
  }
  return accept;
}

/** The predicate of `schema`: true only where zod accepts the value and hands back an equal one. */
function compile(schema: ZodLike): Accept {
  const def = schema._zod.def;
  switch (def.type) {
    case 'string':
      return withChecks((v) => typeof v === 'string', def);
    case 'number':
      return withChecks((v) => typeof v === 'number' && Number.isFinite(v), def);
    case 'boolean':
      return withChecks((v) => typeof v === 'boolean', def);
    case 'literal': {
      const values = new Set(def.values);
      return withChecks((v) => values.has(v), def);
    }
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}));
      return withChecks((v) => values.has(v), def);
    }
    case 'optional': {
      const inner = compile(def.innerType as ZodLike);
      return withChecks((v) => v === undefined || inner(v), def);
    }
    case 'nullable': {
      const inner = compile(def.innerType as ZodLike);
      return withChecks((v) => v === null || inner(v), def);
    }
    case 'default': {
      // A value that is there is checked by the inner schema; a missing one is filled by the enclosing object.
      const inner = compile(def.innerType as ZodLike);
      return (v) => v !== undefined && inner(v);
    }
    case 'array': {
      const element = compile(def.element as ZodLike);
      return withChecks((v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      }, def);
    }
    case 'tuple': {
      if (def.rest) return never;
      const items = (def.items ?? []).map(compile);
      return withChecks((v) => Array.isArray(v) && v.length === items.length && items.every((item, i) => item(v[i])), def);
    }
    case 'union': {
      const options = (def.options ?? []).map(compile);
      return withChecks((v) => options.some((o) => o(v)), def);
    }
    case 'object':
      return withChecks(compileObject(def), def);
    case 'record':
      return compileRecord(def);
    case 'pipe':
      return compileNameRecord(def);
    case 'null':
      return (v) => v === null;
    case 'lazy':
      return compileLazy(schema);
    default:
      // pipes, transforms, coercions…: only zod knows their output.
      return never;
  }
}

export type FastParse<T> = (value: unknown) => { success: true; data: T } | { success: false; error: z.ZodError };

/** Each schema's predicate, compiled once. */
const compiled = new WeakMap<z.ZodType, Accept>();

function predicateOf(schema: z.ZodType): Accept {
  let accept = compiled.get(schema);
  if (!accept) compiled.set(schema, (accept = compile(schema as unknown as ZodLike)));
  return accept;
}

/**
 * `schema.safeParse`, answered without zod for a value it would accept unchanged. The value itself is handed back
 * (with missing defaulted fields filled in): the caller must own it, as a value fresh from JSON.parse is owned.
 */
export function fastSafeParse<S extends z.ZodType>(schema: S): FastParse<z.output<S>> {
  const accept = predicateOf(schema);
  return (value) => {
    if (accept(value)) return { success: true, data: value as z.output<S> };
    const parsed = schema.safeParse(value);
    return parsed.success ? { success: true, data: parsed.data } : { success: false, error: parsed.error };
  };
}

/** Whether the fast path alone accepts `value` (for tests: real and simulated logs must not need zod). */
export function acceptedWithoutZod(schema: z.ZodType, value: unknown): boolean {
  return predicateOf(schema)(value);
}
