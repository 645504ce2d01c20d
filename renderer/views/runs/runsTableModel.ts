/** What the Runs table shows: runs matching a text filter, sorted by a column. Unknown values sort last either way. */
import type { RunSummary } from '../../../shared/api.ts';
import { formatCost, plural } from '../../format/numbers.ts';

export type RunSortKey = 'name' | 'episodes' | 'turns' | 'cost' | 'success' | 'score' | 'imported';
export type SortDir = 'asc' | 'desc';
export interface RunSort {
  key: RunSortKey;
  dir: SortDir;
}

/** Imported order, newest last: the order the table had before it sorted. */
export const DEFAULT_RUN_SORT: RunSort = { key: 'imported', dir: 'asc' };

/** Numbers read best largest first; names A to Z. */
export const FIRST_DIR: Record<RunSortKey, SortDir> = { name: 'asc', imported: 'asc', episodes: 'desc', turns: 'desc', cost: 'desc', success: 'desc', score: 'desc' };

function value(run: RunSummary, key: RunSortKey): number | string | null {
  switch (key) {
    case 'name':
      return run.name;
    case 'imported':
      return run.id;
    case 'episodes':
      return run.episodes;
    case 'turns':
      return run.turns;
    case 'cost':
      return run.total_cost;
    case 'success':
      return run.success_rate;
    case 'score':
      return run.mean_score_norm;
  }
}

export function sortRuns(runs: readonly RunSummary[], sort: RunSort): RunSummary[] {
  const sign = sort.dir === 'asc' ? 1 : -1;
  return [...runs].sort((a, b) => {
    const va = value(a, sort.key);
    const vb = value(b, sort.key);
    // An unknown cost or rate is not the smallest value: it goes after every known one.
    if (va === null || vb === null) return va === vb ? a.id - b.id : va === null ? 1 : -1;
    const c = typeof va === 'string' ? va.localeCompare(vb as string, undefined, { numeric: true, sensitivity: 'base' }) : va - (vb as number);
    return c !== 0 ? sign * c : a.id - b.id;
  });
}

/**
 * The runs an import from the window just added to (`names`, first seen first) ahead of the others, which keep their
 * order: where the user looks after an import, whatever the table's length.
 */
export function importedFirst(runs: readonly RunSummary[], names: readonly string[]): RunSummary[] {
  const rank = new Map(names.map((n, i) => [n, i]));
  const imported = runs.filter((r) => rank.has(r.name)).sort((a, b) => (rank.get(a.name) ?? 0) - (rank.get(b.name) ?? 0));
  return [...imported, ...runs.filter((r) => !rank.has(r.name))];
}

/** Runs with a session running first (in their order), then the rest: live sessions are what a watcher looks at. */
export function liveFirst(runs: readonly RunSummary[], live: ReadonlySet<number>): RunSummary[] {
  return [...runs.filter((r) => live.has(r.id)), ...runs.filter((r) => !live.has(r.id))];
}

/** The next sort after a click on a column's header: its first direction, then the other one. */
export function nextSort(current: RunSort, key: RunSortKey): RunSort {
  if (current.key !== key) return { key, dir: FIRST_DIR[key] };
  return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' };
}

/**
 * Runs whose name, format, policy or one of whose models contains every word of `query` (any case).
 * Words, so "swe claude" finds the SWE-agent runs on a Claude model.
 */
export function filterRuns(runs: readonly RunSummary[], query: string): RunSummary[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...runs];
  return runs.filter((r) => {
    const hay = [r.name, r.format, r.policy_name ?? '', ...r.models].join('\n').toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/**
 * The cost line of the Runs header for the runs listed. When some runs' cost is unknown the known part is
 * still a fact (a lower bound), so it is said as one with the number of runs it leaves out, never as a bare
 * '—'. `≈` when some turns were priced from token counts, as in the table.
 */
export function costSummary(runs: readonly RunSummary[]): { total: string; unknown: string | null; title: string | undefined } {
  const unknownRuns = runs.filter((r) => r.total_cost === null);
  const known = runs.reduce((a, r) => a + r.known_cost, 0);
  const approx = runs.some((r) => r.priced_turns > 0) ? '≈' : '';
  if (unknownRuns.length === 0) {
    return { total: `${approx}${formatCost(known)} total`, unknown: null, title: approx ? 'Includes turns priced from token counts because the log had no cost' : undefined };
  }
  const episodes = unknownRuns.reduce((a, r) => a + r.unpriced_episodes, 0);
  const why = `${plural(episodes, 'episode')} of ${plural(unknownRuns.length, 'run')} have calls the log gives no cost for and that cannot be priced`;
  const unknown = unknownRuns.length === runs.length ? `cost unknown for ${unknownRuns.length === 1 ? 'the run' : `all ${unknownRuns.length} runs`}` : `${plural(unknownRuns.length, 'run')} with an unknown cost`;
  if (known === 0 && unknownRuns.length === runs.length) return { total: '', unknown, title: why };
  return { total: `at least ${approx}${formatCost(known)} total`, unknown, title: `${formatCost(known)} is known; ${why}` };
}
