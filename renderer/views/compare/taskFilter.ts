/** Which per-task rows the Compare table shows: all, those A won, those B won, or those both sides failed. */
import type { CompareTask } from '../../../shared/apiCompare.ts';

export const TASK_FILTERS = ['all', 'a', 'b', 'both-fail'] as const;
export type TaskFilter = (typeof TASK_FILTERS)[number];

export const TASK_FILTER_LABELS: Record<TaskFilter, string> = { all: 'All', a: 'A wins', b: 'B wins', 'both-fail': 'Both fail' };

/** A side failed a task when at most half its episodes succeeded (the contract's rule for success); unknown is not a failure. */
const failed = (success: number | null): boolean => success !== null && success <= 0.5;

export function keepTask(task: CompareTask, filter: TaskFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'a':
    case 'b':
      return task.winner === filter;
    case 'both-fail':
      return failed(task.a_success) && failed(task.b_success);
  }
}

export function filterCounts(tasks: readonly CompareTask[]): Record<TaskFilter, number> {
  const counts = { all: 0, a: 0, b: 0, 'both-fail': 0 };
  for (const t of tasks) for (const f of TASK_FILTERS) if (keepTask(t, f)) counts[f]++;
  return counts;
}
