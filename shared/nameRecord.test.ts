import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CanonicalEpisode, parseCanonicalEpisode } from './canonical.ts';
import { acceptedWithoutZod } from './fastAccept.ts';
import { nameRecord } from './nameRecord.ts';

// JSON.parse makes `__proto__` an own key, as every log and every API answer arrives.
const WORDS = JSON.parse('{"__proto__": 0.5, "constructor": 0.25, "toString": 0.25}') as Record<string, number>;

describe('nameRecord', () => {
  it('keeps every key, __proto__ included, in a record without a prototype', () => {
    const shares = nameRecord(z.number()).parse(WORDS);
    expect(Object.keys(shares)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getPrototypeOf(shares)).toBeNull();
    expect(Object.values(shares).reduce((a, b) => a + b, 0)).toBe(1);
    expect(nameRecord(z.number()).parse({}).toString).toBeUndefined();
  });

  it('checks each key and value as z.record does, the key in the issue path', () => {
    const schema = z.object({ rho: nameRecord(z.number().max(1), z.string().min(1)) });
    const bad = schema.safeParse({ rho: JSON.parse('{"__proto__": 2, "": 0.5, "x": "y"}') });
    expect(bad.error?.issues.map((i) => [i.path, i.code])).toEqual([
      [['rho', '__proto__'], 'too_big'],
      [['rho', ''], 'too_small'],
      [['rho', 'x'], 'invalid_type'],
    ]);
    for (const notRecord of [null, [1], 'x', 3]) expect(schema.safeParse({ rho: notRecord }).success, String(notRecord)).toBe(false);
  });

  it('publishes the JSON Schema of the z.record it stands for', () => {
    const key = z.string().max(300);
    const value = z.number().min(0);
    expect(z.toJSONSchema(nameRecord(value, key), { io: 'input' })).toEqual(z.toJSONSchema(z.record(key, value), { io: 'input' }));
  });
});

describe('a canonical episode whose candidates are named like JavaScript words', () => {
  // The bundled example's first episode (MTRouter-style candidate scores), its candidates renamed.
  const line = readFileSync(new URL('../fixtures/canonical/example.jsonl', import.meta.url), 'utf8').split('\n')[0] as string;
  const renamed = line.replaceAll('"gpt-5"', '"__proto__"').replaceAll('"deepseek-v3.2"', '"constructor"').replaceAll('"minimax-m2"', '"toString"');

  it('keeps every candidate, on the fast path and through zod alike', () => {
    const expected = (JSON.parse(renamed) as { turns: { candidates: Record<string, number> }[] }).turns[0]?.candidates;
    expect(Object.keys(expected ?? {})).toContain('__proto__');
    const fast = JSON.parse(renamed) as unknown;
    expect(acceptedWithoutZod(CanonicalEpisode, fast)).toBe(true);
    const viaZod = CanonicalEpisode.parse(JSON.parse(renamed));
    const parsed = parseCanonicalEpisode(JSON.parse(renamed));
    if (!parsed.success) throw parsed.error;
    for (const ep of [parsed.data, viaZod]) {
      const candidates = ep.turns[0]?.candidates ?? {};
      expect({ ...candidates }).toEqual(expected);
      expect(Object.getPrototypeOf(candidates)).toBeNull();
    }
  });
});
