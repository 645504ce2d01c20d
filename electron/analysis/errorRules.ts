/**
 * Error detection rules as data (DESIGN §5): each fixtures/error-rules/*.json file is a rule set for the
 * task types it names; one set is the default for any other type.
 *
 * A rule matches an observation when one of its `patterns` occurs in it as a case-sensitive substring, or
 * one of its `regex` does (and its `only_if` regex too, where given). Then the hierarchy runs the way the
 * MTRouter authors' ErrorDetector runs it: a rule that names a `parent` drops that parent when both match,
 * so the specific error is counted instead of the generic one (Traceback + ValueError is one
 * python_value_error). Matches are reported in the file's rule order, as theirs are.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { Severity, type TurnError } from '../../shared/canonical.ts';

const RuleSpec = z
  .object({
    name: z.string().min(1),
    severity: Severity,
    description: z.string().default(''),
    patterns: z.array(z.string().min(1)).default([]),
    regex: z.array(z.string().min(1)).default([]),
    only_if: z.string().optional(),
    parent: z.union([z.string(), z.array(z.string())]).optional(),
  })
  .strict()
  .refine((r) => r.patterns.length + r.regex.length > 0, 'a rule needs at least one pattern or regex');
type RuleSpec = z.infer<typeof RuleSpec>;

const RuleFile = z
  .object({
    $comment: z.union([z.string(), z.array(z.string())]).optional(),
    benchmark: z.string().min(1),
    task_types: z.array(z.string()).default([]),
    default: z.boolean().default(false),
    rules: z.array(RuleSpec).min(1),
  })
  .strict();

interface CompiledRule {
  name: string;
  severity: Severity;
  test: (text: string) => boolean;
  parents: string[];
}

export class RuleSet {
  private readonly compiled: CompiledRule[];
  constructor(
    readonly benchmark: string,
    specs: RuleSpec[],
  ) {
    const names = new Set(specs.map((s) => s.name));
    this.compiled = specs.map((spec) => {
      const parents = spec.parent === undefined ? [] : [spec.parent].flat();
      for (const p of parents) if (!names.has(p)) throw new Error(`rule ${spec.name}: unknown parent ${p}`);
      const regexes = spec.regex.map((r) => new RegExp(r));
      const onlyIf = spec.only_if === undefined ? null : new RegExp(spec.only_if);
      const test = (text: string): boolean =>
        (spec.patterns.some((p) => text.includes(p)) || regexes.some((r) => r.test(text))) &&
        (onlyIf === null || onlyIf.test(text));
      return { name: spec.name, severity: spec.severity, test, parents };
    });
  }

  detect(observation: string | null | undefined): TurnError[] {
    if (!observation) return [];
    const matched = this.compiled.filter((r) => r.test(observation));
    if (matched.length === 0) return [];
    const dropped = new Set(matched.flatMap((r) => r.parents));
    return matched.filter((r) => !dropped.has(r.name)).map((r) => ({ type: r.name, severity: r.severity }));
  }
}

export class ErrorRules {
  constructor(
    readonly sets: RuleSet[],
    private readonly byType: Map<string, RuleSet>,
    private readonly fallback: RuleSet,
  ) {}

  /** The rule set for a task type (case-insensitive); the default set for unknown or missing types. */
  forTaskType(taskType: string | null | undefined): RuleSet {
    return (taskType && this.byType.get(taskType.toLowerCase())) || this.fallback;
  }
}

const defaultDir = fileURLToPath(new URL('../../fixtures/error-rules/', import.meta.url));

export function loadErrorRules(dir: string = defaultDir): ErrorRules {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  const sets: RuleSet[] = [];
  const typeMap = new Map<string, RuleSet>();
  let fallback: RuleSet | undefined;
  for (const file of files) {
    const parsed = RuleFile.safeParse(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      throw new Error(`${join(dir, file)}: ${where}${issue?.message ?? 'invalid rule file'}`);
    }
    const set = new RuleSet(parsed.data.benchmark, parsed.data.rules);
    sets.push(set);
    for (const t of parsed.data.task_types) typeMap.set(t.toLowerCase(), set);
    if (parsed.data.default) fallback = set;
  }
  if (!fallback) throw new Error(`${dir}: no rule file is marked "default": true`);
  return new ErrorRules(sets, typeMap, fallback);
}

let shared: ErrorRules | undefined;
export function defaultErrorRules(): ErrorRules {
  shared ??= loadErrorRules();
  return shared;
}
