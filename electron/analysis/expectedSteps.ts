/**
 * N, the expected number of steps of a task, for the AEC targets (DESIGN §5).
 *
 * The built-in table is fixtures/expected-steps.json: N per task type (the benchmark), and within a type per
 * task category, so the categories of two benchmarks never meet. `routelens import --expected-steps SPEC`
 * swaps in other values for the task types SPEC names (each named type's entry is replaced whole, the rest stay):
 * SPEC is a table name from the built-in file's `tables` (`mtrouter-yaml`: the authors' per-task ScienceWorld
 * table), a JSON or YAML file in our format (`{"by_task_type": {"scienceworld": {"default": 27, "by_category":
 * {...}}}}`), or the authors' config/research/error_rules.yaml itself, whose `aec.expected_steps` section is read
 * as their code reads it (a benchmark without a `default` falls back to 20).
 *
 * N is decided once, at import, and stored in episodes.expected_steps: targets, training and replay read it
 * from there (storedExpectedSteps.ts), so they agree with what the import wrote whatever table was used.
 */
import { readFileSync } from 'node:fs';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { nameKeyed } from '../../shared/nameKeyed.ts';
import { nameRecord } from '../../shared/nameRecord.ts';
import { ImportError } from '../importers/types.ts';
import { BUILTIN_EXPECTED_STEPS, expectedSteps as lookUp, type ExpectedStepsTable } from './storedExpectedSteps.ts';

export type { ExpectedStepsTable } from './storedExpectedSteps.ts';

// Task types and categories are names from logs and users' files: nameRecord keeps one called `__proto__`, which
// z.record drops.
const Steps = z.number().int().positive();
const Comment = z.union([z.string(), z.array(z.string())]).optional();

const TypeEntry = z
  .object({ $comment: Comment, default: Steps, by_category: nameRecord(Steps).default(() => nameKeyed<number>()) })
  .strict();
type TypeEntry = z.infer<typeof TypeEntry>;

/** What a table file or a named table may set: whole entries for some task types, and the default for all others. */
const Overrides = z
  .object({ $comment: Comment, default: Steps.optional(), by_task_type: nameRecord(TypeEntry) })
  .strict();
type Overrides = z.infer<typeof Overrides>;

const BuiltinFile = Overrides.extend({ default: Steps, tables: z.record(z.string(), Overrides).default({}) }).strict();

/** The authors' YAML: `aec.expected_steps` maps a benchmark to `{default?, <category>: N}`. */
const ReferenceYaml = z.object({
  aec: z.object({ expected_steps: nameRecord(nameRecord(Steps)) }),
});
/** What their AECConfig.get_expected_steps answers when a benchmark's table has no `default`. */
const REFERENCE_FALLBACK = 20;

function withOverrides(base: ExpectedStepsTable | null, over: Overrides): ExpectedStepsTable {
  const byTaskType = new Map(base?.byTaskType ?? []);
  for (const [type, entry] of Object.entries(over.by_task_type)) byTaskType.set(type.toLowerCase(), entry);
  const fallback = over.default ?? base?.default;
  if (fallback === undefined) throw new Error('an expected-steps table needs a default');
  return { default: fallback, byTaskType };
}

let builtinFile: z.infer<typeof BuiltinFile> | undefined;
function builtin(): z.infer<typeof BuiltinFile> {
  builtinFile ??= BuiltinFile.parse(JSON.parse(readFileSync(BUILTIN_EXPECTED_STEPS, 'utf8')));
  return builtinFile;
}

let defaultTable: ExpectedStepsTable | undefined;
/** The built-in table: the authors' code for HLE and ScienceWorld, our own values for every other task type. */
export function defaultExpectedSteps(): ExpectedStepsTable {
  defaultTable ??= withOverrides(null, builtin());
  return defaultTable;
}

/** Names accepted by `--expected-steps` besides a file. */
export function expectedStepsTableNames(): string[] {
  return Object.keys(builtin().tables);
}

/** N for a task: the log's own task.expected_steps, else its (type, category), else its type's default, else the default. */
export function expectedSteps(
  task: { expected_steps?: number | null; category?: string | null; type?: string | null },
  table: ExpectedStepsTable = defaultExpectedSteps(),
): number {
  return lookUp(task, table);
}

/** Line of the deepest key of `path` present in the document (1 when none is). */
function lineOfPath(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): number {
  let node: unknown = doc.contents;
  let line = 1;
  for (const key of path) {
    if (!isMap(node)) break;
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(key));
    if (!pair) break;
    const offset = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
    if (offset !== undefined) line = lines.linePos(offset).line;
    node = pair.value;
  }
  return line;
}

/**
 * The table `--expected-steps SPEC` asks for: a built-in table name, or a file (our format or the authors'
 * error_rules.yaml). A SPEC that is neither throws RangeError; a file the user got wrong throws ImportError
 * (`file:line: what`).
 */
export function loadExpectedSteps(spec: string): ExpectedStepsTable {
  const named = builtin().tables[spec];
  if (named) return withOverrides(defaultExpectedSteps(), named);
  let text: string;
  try {
    text = readFileSync(spec, 'utf8');
  } catch {
    throw new RangeError(`--expected-steps ${spec}: no such file, and no built-in table of that name (${expectedStepsTableNames().join(', ')})`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const syntax = doc.errors[0];
  if (syntax) throw new ImportError(spec, syntax.linePos?.[0].line ?? 1, `not JSON or YAML: ${syntax.message.split(/ at line \d+|\n/)[0]}`);
  const value: unknown = doc.toJS();
  const fail = (issue: z.core.$ZodIssue | undefined): never => {
    const path = issue?.path ?? [];
    const where = path.length > 0 ? `${path.join('.')}: ` : '';
    throw new ImportError(spec, lineOfPath(doc, lines, path), `${where}${issue?.message ?? 'not an expected-steps table'}`);
  };
  if (value !== null && typeof value === 'object' && 'aec' in value) {
    const ref = ReferenceYaml.safeParse(value);
    if (!ref.success) return fail(ref.error.issues[0]);
    const byTaskType: Record<string, TypeEntry> = {};
    for (const [benchmark, table] of Object.entries(ref.data.aec.expected_steps)) {
      const { default: fallback, ...byCategory } = table;
      byTaskType[benchmark] = { default: fallback ?? REFERENCE_FALLBACK, by_category: byCategory };
    }
    return withOverrides(defaultExpectedSteps(), { by_task_type: byTaskType });
  }
  const ours = Overrides.safeParse(value);
  if (!ours.success) return fail(ours.error.issues[0]);
  return withOverrides(defaultExpectedSteps(), ours.data);
}
