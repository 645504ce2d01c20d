/**
 * N, the expected number of steps of a task (DESIGN §5), where it is read rather than decided: the lookup in a
 * table, and an imported episode's stored N. The tables themselves (the built-in file checked field by field, a
 * user's JSON or YAML, the authors' error_rules.yaml) are read by expectedSteps.ts for the import; targets,
 * training, replay and what-if only read the N an import stored, and load none of that (zod and YAML were ~180 ms
 * of a 0.45 s `routelens analyze`).
 */
import { readFileSync } from 'node:fs';
import { nameKeyed } from '../../shared/nameKeyed.ts';

/** One task type's N: its default, and N per category (a record without a prototype: categories are log text). */
export interface TypeEntry {
  default: number;
  by_category: Record<string, number>;
}

export interface ExpectedStepsTable {
  readonly default: number;
  /** Keyed by lower-cased task type. */
  readonly byTaskType: ReadonlyMap<string, TypeEntry>;
}

/** N for a task: the log's own task.expected_steps, else its (type, category), else its type's default, else the default. */
export function expectedSteps(
  task: { expected_steps?: number | null; category?: string | null; type?: string | null },
  table: ExpectedStepsTable,
): number {
  if (task.expected_steps) return task.expected_steps;
  const entry = task.type ? table.byTaskType.get(task.type.toLowerCase()) : undefined;
  if (!entry) return table.default;
  const byCategory = task.category != null && Object.hasOwn(entry.by_category, task.category) ? entry.by_category[task.category] : undefined;
  return byCategory ?? entry.default;
}

export const BUILTIN_EXPECTED_STEPS = new URL('../../fixtures/expected-steps.json', import.meta.url);

let shipped: ExpectedStepsTable | undefined;
/**
 * The built-in table as shipped, for rows that stored no N. Read without re-checking its fields: expectedSteps.ts
 * checks the same file with its schema on every import, and expectedSteps.test.ts holds this reading equal to that one.
 */
function shippedTable(): ExpectedStepsTable {
  if (shipped) return shipped;
  const file = JSON.parse(readFileSync(BUILTIN_EXPECTED_STEPS, 'utf8')) as { default: number; by_task_type: Record<string, { default: number; by_category?: Record<string, number> }> };
  const byTaskType = new Map<string, TypeEntry>();
  for (const [type, entry] of Object.entries(file.by_task_type)) {
    byTaskType.set(type.toLowerCase(), { default: entry.default, by_category: Object.assign(nameKeyed<number>(), entry.by_category) });
  }
  shipped = { default: file.default, byTaskType };
  return shipped;
}

/**
 * N of an imported episode: the value its import stored. Rows without one (none are written so; a store's rows from
 * before its schema 2 have none) get the built-in table's answer rather than a guess of the caller's.
 */
export function storedExpectedSteps(row: { expected_steps: number | null; task_type?: string | null; task_category?: string | null }): number {
  return row.expected_steps ?? expectedSteps({ type: row.task_type, category: row.task_category }, shippedTable());
}
