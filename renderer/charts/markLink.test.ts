import { describe, expect, it } from 'vitest';
import type { Route } from '../routing/route.ts';
import type { EpisodesFromFigure } from '../store/storeShape.ts';
import { followMarkLink, linkHint, runIdsByName, type LinkActions } from './markLink.ts';

function recorder() {
  const calls: { navigate: Route[]; episodes: EpisodesFromFigure[]; resolved: unknown[] } = { navigate: [], episodes: [], resolved: [] };
  const store: LinkActions = {
    navigate: (route) => void calls.navigate.push(route),
    openEpisodesFromFigure: (target) => void calls.episodes.push(target),
    runs: [
      { id: 2, name: 'sw-mtrouter' },
      { id: 5, name: 'sw-random' },
    ],
    resolveEpisode: async (ref) => {
      calls.resolved.push(ref);
      if (ref.ext_id !== 'boil_3_e1') throw new Error(`no episode ${ref.ext_id}`);
      return 41;
    },
  };
  return { calls, store };
}

describe('following a mark link', () => {
  it('opens a turn or an episode in the inspector', async () => {
    const { calls, store } = recorder();
    await followMarkLink({ kind: 'turn', episodeId: 12, turn: 3 }, store);
    await followMarkLink({ kind: 'episode', episodeId: 12 }, store);
    expect(calls.navigate).toEqual([
      { view: 'episode', episodeId: 12, turn: 3 },
      { view: 'episode', episodeId: 12, turn: null },
    ]);
    expect(linkHint({ kind: 'turn', episodeId: 12, turn: 3 })).toBe('Click to open turn 3 of the episode');
  });

  it('finds an episode named by the log’s id and its run, then opens the turn', async () => {
    const { calls, store } = recorder();
    await followMarkLink({ kind: 'episode-ref', ext_id: 'boil_3_e1', run: 'sw-random', turn: 4 }, store);
    expect(calls.resolved).toEqual([{ ext_id: 'boil_3_e1', run: 'sw-random' }]);
    expect(calls.navigate).toEqual([{ view: 'episode', episodeId: 41, turn: 4 }]);
    await expect(followMarkLink({ kind: 'episode-ref', ext_id: 'gone' }, store)).rejects.toThrow('no episode gone');
    expect(calls.navigate).toHaveLength(1);
  });

  it('opens the episode list with the mark’s runs (by id or name), models and outcome', async () => {
    const { calls, store } = recorder();
    await followMarkLink({ kind: 'episodes', runs: ['sw-random', 'not-here'], models: ['gpt-5'], outcome: 'success', label: 'gpt-5 on python turns' }, store);
    await followMarkLink({ kind: 'episodes', models: ['kimi-k2'], label: 'kimi-k2' }, store);
    expect(calls.episodes).toEqual([
      { label: 'gpt-5 on python turns', runIds: [5], models: ['gpt-5'], outcome: 'success' },
      { label: 'kimi-k2', runIds: undefined, models: ['kimi-k2'], outcome: undefined },
    ]);
    expect(calls.navigate).toEqual([]);
  });

  it('maps run names to ids, leaving out names it does not know', () => {
    expect(runIdsByName(['sw-random', 'x', 'sw-mtrouter'], recorder().store.runs)).toEqual([5, 2]);
  });
});
