import { describe, expect, it } from 'vitest';
import { DEFAULT_EPISODE_FILTERS } from '../../store/episodeFiltersSlice.ts';
import { episodesListQuery, neighbour, type FetchPage } from './episodeNeighbours.ts';

/** A list of `n` episodes with ids 100, 102, 104…, counting the rows each call asks for. */
function list(n: number, match?: (id: number) => number) {
  const ids = Array.from({ length: n }, (_, i) => 100 + 2 * i);
  const calls: [number, number][] = [];
  const fetch: FetchPage = async (offset, limit) => {
    calls.push([offset, limit]);
    return {
      total: n,
      rows: ids.slice(offset, offset + limit).map((id) => ({ id, match: match ? { t: 0, index: match(id), turns: 1, field: 'action' as const, snippet: [] } : null })),
    };
  };
  return { fetch, calls };
}

describe('neighbour', () => {
  it('finds the next and previous episode in the list order', async () => {
    const { fetch } = list(5);
    expect(await neighbour(fetch, 104, 1)).toEqual({ id: 106, index: 3, matchTurn: null });
    expect(await neighbour(fetch, 104, -1)).toEqual({ id: 102, index: 1, matchTurn: null });
  });

  it('says null at either end and absent for an episode not in the list', async () => {
    const { fetch } = list(3);
    expect(await neighbour(fetch, 104, 1)).toBeNull();
    expect(await neighbour(fetch, 100, -1)).toBeNull();
    expect(await neighbour(fetch, 101, 1)).toBe('absent');
  });

  it('pages through a long list and crosses a page boundary', async () => {
    const { fetch } = list(2500);
    const last = 100 + 2 * 999; // the last row of the first page
    expect(await neighbour(fetch, last, 1)).toEqual({ id: last + 2, index: 1000, matchTurn: null });
    expect(await neighbour(fetch, 100 + 2 * 2400, 1)).toEqual({ id: 100 + 2 * 2401, index: 2401, matchTurn: null });
  });

  it('uses a correct hint without paging, and ignores a stale one', async () => {
    const { fetch, calls } = list(2500);
    expect(await neighbour(fetch, 100 + 2 * 2000, 1, 2000)).toEqual({ id: 100 + 2 * 2001, index: 2001, matchTurn: null });
    expect(calls).toEqual([[2000, 1], [2001, 1]]);
    calls.length = 0;
    expect(await neighbour(fetch, 100 + 2 * 10, -1, 7)).toEqual({ id: 100 + 2 * 9, index: 9, matchTurn: null });
    expect(calls[1]).toEqual([0, 1000]);
  });

  it('opens a searched neighbour at its matching turn', async () => {
    const { fetch } = list(3, (id) => id - 100);
    expect(await neighbour(fetch, 100, 1)).toEqual({ id: 102, index: 1, matchTurn: 2 });
  });
});

describe('episodesListQuery', () => {
  it('asks what the Episodes view shows: all runs when none is selected, a trimmed search', () => {
    expect(episodesListQuery([], { ...DEFAULT_EPISODE_FILTERS, search: '  ' })).toEqual({
      runIds: undefined,
      models: undefined,
      outcome: 'any',
      search: undefined,
      sort: 'id',
      desc: false,
    });
    expect(episodesListQuery([3], { models: ['gpt-5'], outcome: 'failure', search: ' NameError ', sort: 'total_cost', desc: true })).toEqual({
      runIds: [3],
      models: ['gpt-5'],
      outcome: 'failure',
      search: 'NameError',
      sort: 'total_cost',
      desc: true,
    });
  });
});
