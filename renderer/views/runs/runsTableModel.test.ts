import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../shared/api.ts';
import { costSummary, DEFAULT_RUN_SORT, filterRuns, importedFirst, nextSort, sortRuns } from './runsTableModel.ts';

function run(id: number, name: string, over: Partial<RunSummary> = {}): RunSummary {
  return {
    id, name, format: 'mtrouter', source_path: null, imported_at: '2026-01-01', policy_name: null, episodes: 10, turns: 100, models: ['gpt-5'],
    total_cost: 1, known_cost: 1, success_rate: 0.5, mean_score_norm: 0.5, unknown_outcome: 0, unpriced_turns: 0, unpriced_episodes: 0, child_episodes: 0, priced_turns: 0,
    log_totals: { status: 'no totals in the log', episodes_with_totals: 0, episodes_differing: 0, episodes_not_comparable: 0, worst_rel: null, log_cost: null, counted_cost: null }, ...over,
  };
}

const runs = [
  run(1, 'sw-random', { total_cost: 3, success_rate: 0.2, episodes: 300 }),
  run(2, 'swe-claude', { format: 'swe-agent', models: ['claude-sonnet-4-5'], total_cost: null, success_rate: null, episodes: 20 }),
  run(3, 'sw-mtrouter', { total_cost: 1.5, success_rate: 0.6, episodes: 300 }),
  run(4, 'run-10', { format: 'inspect', total_cost: 0, success_rate: 1, episodes: 5 }),
  run(5, 'run-9', { format: 'inspect', models: ['gpt-5', 'kimi-k2'], episodes: 6 }),
];
const names = (rs: RunSummary[]) => rs.map((r) => r.name);

describe('importedFirst', () => {
  it('puts the runs just imported into first, in the order the import met them, the rest as they were', () => {
    expect(names(importedFirst(runs, ['run-9', 'sw-random', 'not-shown']))).toEqual(['run-9', 'sw-random', 'swe-claude', 'sw-mtrouter', 'run-10']);
    expect(names(importedFirst(runs, []))).toEqual(names(runs));
  });
});

describe('sortRuns', () => {
  it('keeps the imported order by default', () => {
    expect(names(sortRuns(runs, DEFAULT_RUN_SORT))).toEqual(['sw-random', 'swe-claude', 'sw-mtrouter', 'run-10', 'run-9']);
  });
  it('sorts names naturally (run-9 before run-10)', () => {
    expect(names(sortRuns(runs, { key: 'name', dir: 'asc' }))).toEqual(['run-9', 'run-10', 'sw-mtrouter', 'sw-random', 'swe-claude']);
  });
  it('puts an unknown cost last in both directions, and a $0 cost among the known ones', () => {
    expect(names(sortRuns(runs, { key: 'cost', dir: 'desc' }))).toEqual(['sw-random', 'sw-mtrouter', 'run-9', 'run-10', 'swe-claude']);
    expect(names(sortRuns(runs, { key: 'cost', dir: 'asc' }))).toEqual(['run-10', 'run-9', 'sw-mtrouter', 'sw-random', 'swe-claude']);
  });
  it('breaks ties by imported order', () => {
    expect(names(sortRuns(runs, { key: 'episodes', dir: 'desc' })).slice(0, 2)).toEqual(['sw-random', 'sw-mtrouter']);
  });
  it('starts numbers largest first and flips on a second click', () => {
    expect(nextSort(DEFAULT_RUN_SORT, 'success')).toEqual({ key: 'success', dir: 'desc' });
    expect(nextSort({ key: 'success', dir: 'desc' }, 'success')).toEqual({ key: 'success', dir: 'asc' });
    expect(nextSort({ key: 'success', dir: 'desc' }, 'name')).toEqual({ key: 'name', dir: 'asc' });
  });
});

describe('filterRuns', () => {
  it('matches name, format and model, any case, every word', () => {
    expect(names(filterRuns(runs, 'SW'))).toEqual(['sw-random', 'swe-claude', 'sw-mtrouter']);
    expect(names(filterRuns(runs, 'sw-'))).toEqual(['sw-random', 'sw-mtrouter']);
    expect(names(filterRuns(runs, 'inspect'))).toEqual(['run-10', 'run-9']);
    expect(names(filterRuns(runs, 'kimi'))).toEqual(['run-9']);
    expect(names(filterRuns(runs, 'swe claude'))).toEqual(['swe-claude']);
    expect(names(filterRuns(runs, '  '))).toHaveLength(5);
    expect(filterRuns(runs, 'nothing-like-this')).toEqual([]);
  });
});

describe('costSummary', () => {
  it('says the total when every run has a known cost, ≈ when some turns were priced from tokens', () => {
    expect(costSummary([run(1, 'a', { total_cost: 1, known_cost: 1 }), run(2, 'b', { total_cost: 2.5, known_cost: 2.5 })])).toMatchObject({ total: '$3.50 total', unknown: null });
    expect(costSummary([run(1, 'a', { total_cost: 1, known_cost: 1, priced_turns: 3 })]).total).toBe('≈$1.00 total');
  });
  it('says the known part as a lower bound and how many runs it leaves out, never a bare dash', () => {
    const s = costSummary([
      run(1, 'a', { total_cost: 10, known_cost: 10 }),
      run(2, 'b', { total_cost: null, known_cost: 2.4, unpriced_episodes: 3 }),
      run(3, 'c', { total_cost: null, known_cost: 0, unpriced_episodes: 1 }),
    ]);
    expect(s.total).toBe('at least $12.40 total');
    expect(s.unknown).toBe('2 runs with an unknown cost');
    expect(s.title).toContain('4 episodes of 2 runs');
  });
  it('says the cost is unknown when nothing of it is known', () => {
    expect(costSummary([run(1, 'a', { total_cost: null, known_cost: 0, unpriced_episodes: 2 })])).toMatchObject({ total: '', unknown: 'cost unknown for the run' });
    expect(costSummary([run(1, 'a', { total_cost: null, known_cost: 0 }), run(2, 'b', { total_cost: null, known_cost: 0 })]).unknown).toBe('cost unknown for all 2 runs');
  });
});
