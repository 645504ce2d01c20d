import fc from 'fast-check';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PRESET_NAMES, simulate } from '../fixtures/simulator/index.ts';
import { detectImporter, readHead } from '../electron/importers/pipeline.ts';
import { ImportError } from '../electron/importers/types.ts';
import { CanonicalEpisode, parseCanonicalEpisode } from './canonical.ts';
import { acceptedWithoutZod, fastSafeParse } from './fastAccept.ts';

const REAL_LOGS = fileURLToPath(new URL('../../shared/data/', import.meta.url));

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A few episodes of every simulated preset, as JSON text (each test parses its own copy). */
const EPISODES: string[] = PRESET_NAMES.flatMap((preset) => [...simulate({ preset, episodes: 6, seed: 5 })].map((ep) => JSON.stringify(ep)));

/** Every place in a JSON value: the container and the key or index of each value in it. */
function places(root: Json): { parent: Json[] | Record<string, Json>; key: string | number }[] {
  const out: { parent: Json[] | Record<string, Json>; key: string | number }[] = [];
  const walk = (v: Json): void => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        out.push({ parent: v, key: i });
        walk(x);
      });
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        out.push({ parent: v, key: k });
        walk(v[k] as Json);
      }
    }
  };
  walk(root);
  return out;
}

/** Values on and around each of the schema's bounds, of each type, and the hostile ones. */
const REPLACEMENTS: (() => unknown)[] = [
  () => null, () => true, () => false, () => 0, () => -0, () => -1, () => 1, () => 1.5, () => 0.5, () => 2, () => 1e15, () => 1e15 + 2, () => -1e15, () => -1e15 - 2,
  () => 1e6, () => 1e6 + 0.01, () => 1e9, () => 1e9 + 1, () => 1e10, () => 1e10 + 1, () => 2 ** 53, () => 2 ** 53 - 1, () => Infinity, () => Number.NaN,
  () => '', () => ' ', () => '\u200b', () => '\u0000', () => 'x', () => 'stop', () => 'continue', () => 'low', () => 'high', () => 'routelens/v1', () => '__proto__',
  ...[100, 101, 200, 201, 300, 301, 1000, 1001].map((n) => () => 'é'.repeat(n)),
  () => [], () => [1], () => [1, 2], () => [2, 1], () => [0, 0], () => ['a'], () => [{}], () => {}, () => ({ '': 1 }), () => ({ ' ': 1 }), () => ({ x: 1 }),
  () => JSON.parse('{"__proto__":{"x":1}}'), () => JSON.parse('{"__proto__":0.5}'), () => ({ constructor: 1 }), () => ({ toString: 'x' }),
  () => Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`m${i}`, 0.1])), () => Array.from({ length: 1001 }, () => ({ name: 'bash' })),
];

/** One change to a parsed episode: a value replaced or removed, a key renamed, or an unknown key added. */
const mutation = fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.nat({ max: REPLACEMENTS.length - 1 }));

function mutate(ep: Json, [pick, kind, value]: [number, number, number]): void {
  const all = places(ep);
  const { parent, key } = all[pick % all.length] as (typeof all)[number];
  const replacement = (REPLACEMENTS[value] as () => unknown)();
  if (Array.isArray(parent)) {
    if (kind === 0) parent.splice(key as number, 1);
    else parent[key as number] = replacement as Json;
    return;
  }
  if (kind === 0) delete parent[key];
  else if (kind === 1) {
    // A record's key renamed (a candidate model name), or an object's key misspelt.
    const name = typeof replacement === 'string' ? replacement : `${String(key)}_`;
    const v = parent[key] as Json;
    delete parent[key];
    Object.defineProperty(parent, name, { value: v, enumerable: true, writable: true, configurable: true });
  } else if (kind === 2) parent.extra = replacement as Json;
  else parent[key] = replacement as Json;
}

describe('fastSafeParse', () => {
  it('accepts every simulated episode without zod, as zod parses it', () => {
    for (const line of EPISODES) {
      const zod = CanonicalEpisode.parse(JSON.parse(line));
      const value: unknown = JSON.parse(line);
      expect(acceptedWithoutZod(CanonicalEpisode, value)).toBe(true);
      expect(value).toStrictEqual(zod);
    }
  });

  it('accepts a value only where zod accepts it and gives back an equal value; refusals keep zod’s issues', () => {
    fc.assert(
      fc.property(fc.nat({ max: EPISODES.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), (which, changes) => {
        const ep = JSON.parse(EPISODES[which] as string) as Json;
        for (const c of changes) mutate(ep, c);
        const zod = CanonicalEpisode.safeParse(structuredClone(ep));
        const input = structuredClone(ep);
        const fast = acceptedWithoutZod(CanonicalEpisode, input);
        if (fast) {
          expect(zod.success).toBe(true);
          expect(input).toStrictEqual(zod.data);
        }
        // Where zod hands back the input unchanged, the fast path must not need it.
        if (zod.success && !fast) expect(zod.data).not.toStrictEqual(ep);
        const parsed = parseCanonicalEpisode(structuredClone(ep));
        expect(parsed.success).toBe(zod.success);
        if (!parsed.success && !zod.success) expect(parsed.error.issues).toEqual(zod.error.issues);
      }),
      { numRuns: 4000, seed: 19 },
    );
  });

  it('fills a missing defaulted field with a fresh copy of its default', () => {
    const ep = JSON.parse(EPISODES[0] as string) as Record<string, unknown>;
    delete ep.task;
    delete ep.outcome;
    const a = parseCanonicalEpisode(structuredClone(ep));
    const b = parseCanonicalEpisode(structuredClone(ep));
    expect(a.success && b.success).toBe(true);
    if (a.success && b.success) {
      expect(a.data.task).toEqual({});
      expect(a.data.task).not.toBe(b.data.task);
    }
  });

  it('accepts JSON values (z.json(), a scorer value as logged) as zod does, nested through its own lazy schema', () => {
    const json = z.json();
    const values: unknown[] = ['C', 0.5, true, null, [1, ['x', { a: null }]], { score: { nested: [false, 2] } }, {}, []];
    for (const v of values) {
      expect(acceptedWithoutZod(json, structuredClone(v))).toBe(true);
      expect(json.safeParse(v)).toEqual({ success: true, data: v });
    }
    for (const v of [undefined, Number.NaN, () => 1, { a: undefined }, [1, undefined]]) {
      expect(acceptedWithoutZod(json, v), String(v)).toBe(false);
    }
  });

  it('leaves to zod what it cannot compile: transforms, pipes, passthrough objects', () => {
    const trimmed = fastSafeParse(z.object({ name: z.string().transform((s) => s.trim()) }));
    expect(trimmed({ name: ' a ' })).toEqual({ success: true, data: { name: 'a' } });
    const loose = fastSafeParse(z.looseObject({ a: z.number() }));
    expect(loose({ a: 1, b: 2 })).toEqual({ success: true, data: { a: 1, b: 2 } });
    expect(acceptedWithoutZod(z.looseObject({ a: z.number() }), { a: 1 })).toBe(false);
    const refused = fastSafeParse(z.object({ n: z.number().int().max(3) }))({ n: 4 });
    expect(refused.success).toBe(false);
  });

  it('accepts the real logs, as their importers make them and as canonical JSON Lines, without zod', async () => {
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name));
        else files.push(join(d, e.name));
      }
    };
    walk(REAL_LOGS);
    let episodes = 0;
    for (const f of files) {
      const importer = detectImporter(readHead(f), basename(f));
      if (!importer) continue;
      try {
        for await (const ep of importer.read(f, { root: REAL_LOGS, warn: () => undefined })) {
          // The episode as `routelens export` writes it, read back.
          const value: unknown = JSON.parse(JSON.stringify(ep));
          const zod = CanonicalEpisode.parse(structuredClone(value));
          expect(acceptedWithoutZod(CanonicalEpisode, value), f).toBe(true);
          expect(value).toStrictEqual(zod);
          episodes++;
        }
      } catch (e) {
        if (!(e instanceof ImportError)) throw e;
      }
    }
    expect(episodes).toBeGreaterThan(50);
  });
});
