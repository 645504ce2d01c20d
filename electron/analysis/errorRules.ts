/**
 * Error detection rules as data (DESIGN §5): each fixtures/error-rules/*.json file is a rule set for the
 * task types it names; one set is the default for any other type. A rule matches an observation when any
 * of its substrings or regexes occurs (and its `only_if` regex too, where given); a matching rule drops
 * the rules that name it as their parent, so one exception is not counted twice.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { Severity, type TurnError } from '../../shared/canonical.ts';

const RuleSpec = z.object({
  name: z.string().min(1),
  severity: Severity,
  description: z.string().default(''),
  patterns: z.array(z.string().min(1)).default([]),
  regex: z.array(z.string().min(1)).default([]),
  ignore_case: z.boolean().default(false),
  only_if: z.string().optional(),
  parent: z.union([z.string(), z.array(z.string())]).optional(),
});

const RuleFile = z.object({
  benchmark: z.string().min(1),
  task_types: z.array(z.string()).default([]),
  default: z.boolean().default(false),
  rules: z.array(RuleSpec).min(1),
});

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
    specs: z.infer<typeof RuleSpec>[],
  ) {
    const names = new Set(specs.map((s) => s.name));
    this.compiled = specs.map((spec) => {
      const parents = spec.parent === undefined ? [] : [spec.parent].flat();
      for (const p of parents) if (!names.has(p)) throw new Error(`rule ${spec.name}: unknown parent ${p}`);
      const flags = spec.ignore_case ? 'i' : '';
      const lowered = spec.ignore_case ? spec.patterns.map((p) => p.toLowerCase()) : spec.patterns;
      const regexes = spec.regex.map((r) => new RegExp(r, flags));
      const onlyIf = spec.only_if === undefined ? null : new RegExp(spec.only_if, flags);
      const test = (text: string): boolean => {
        const hay = spec.ignore_case ? text.toLowerCase() : text;
        const hit = lowered.some((p) => hay.includes(p)) || regexes.some((r) => r.test(text));
        return hit && (onlyIf === null || onlyIf.test(text));
      };
      return { name: spec.name, severity: spec.severity, test, parents };
    });
  }

  detect(observation: string | null | undefined): TurnError[] {
    if (!observation) return [];
    const matched = this.compiled.filter((r) => r.test(observation));
    if (matched.length === 0) return [];
    const hit = new Set(matched.map((r) => r.name));
    return matched.filter((r) => !r.parents.some((p) => hit.has(p))).map((r) => ({ type: r.name, severity: r.severity }));
  }
}

export class ErrorRules {
  private readonly byType = new Map<string, RuleSet>();
  constructor(
    readonly sets: RuleSet[],
    typeMap: Map<string, RuleSet>,
    private readonly fallback: RuleSet,
  ) {
    this.byType = typeMap;
  }

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
    if (!parsed.success) throw new Error(`${join(dir, file)}: ${parsed.error.issues[0]?.message ?? 'invalid rule file'}`);
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
