/**
 * The zod schema for a record keyed by names a log wrote (models, splits, tool categories). zod 4's own
 * `z.record` leaves out a `__proto__` key on purpose, so a model of that name lost its candidate score at import
 * and, in every answer the window validated, its usage-by-turn share and its ρ target, without a word (issue 38
 * item 4). This one checks every own key and value as `z.record` does and keeps them all, in a prototype-less
 * record (nameKeyed), so a key such as `constructor` or `toString` that is absent reads as absent, not as a function.
 */
import { z } from 'zod';
import { nameKeyed } from './nameKeyed.ts';

const isPlainRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The key and value schemas of each nameRecord, by the input side of its pipe (which `.superRefine()` keeps). */
const parts = new WeakMap<z.ZodType, { key: z.ZodType<string>; value: z.ZodType }>();

/** The key and value schemas when `input` is the input side of a nameRecord (for fastAccept's compiler). */
export function nameRecordParts(input: unknown): { key: z.ZodType<string>; value: z.ZodType } | undefined {
  return parts.get(input as z.ZodType);
}

/** `z.record(key, value)` that keeps every key, `__proto__` included; the output has no prototype. */
export function nameRecord<V extends z.ZodType>(value: V, key: z.ZodType<string> = z.string()) {
  const input = z.custom<Record<string, z.input<V>>>(isPlainRecord, { message: 'expected an object keyed by name' });
  // The published JSON Schema (routelens-v1.schema.json) describes what a file may hold: the same as z.record's.
  // The hook sits on the input side of the pipe because refinements and `.nullish()` wrap the pipe, never this.
  input._zod.toJSONSchema = () => {
    const { $schema: _, ...schema } = z.toJSONSchema(z.record(key, value), { io: 'input', unrepresentable: 'any' });
    return schema;
  };
  parts.set(input, { key, value });
  return input.transform((entries, ctx) => {
    const out = nameKeyed<z.output<V>>();
    for (const k of Object.keys(entries)) {
      const name = key.safeParse(k);
      const entry = value.safeParse(entries[k]);
      if (name.success && entry.success) {
        out[name.data] = entry.data;
        continue;
      }
      // Issues keep their codes and messages; only the path gains the key, as z.record reports them.
      for (const issue of [...(name.error?.issues ?? []), ...(entry.error?.issues ?? [])]) {
        ctx.addIssue({ ...issue, path: [k, ...issue.path] } as Parameters<typeof ctx.addIssue>[0]);
      }
    }
    return out;
  });
}
