/** The Episodes view's filters and sort, kept in the store so they survive a trip to the inspector and back. */
import type { StateCreator } from 'zustand';
import type { AppStore, EpisodeFilters, EpisodeFiltersSlice, EpisodesOrigin } from './storeShape.ts';

export const DEFAULT_EPISODE_FILTERS: EpisodeFilters = { models: [], outcome: 'any', search: '', sort: 'id', desc: false };

/** True while the current selection and filters are still the ones a figure click set. */
export function originStillHolds(origin: EpisodesOrigin | null, runIds: number[], filters: EpisodeFilters): origin is EpisodesOrigin {
  if (!origin) return false;
  const same = (a: readonly (string | number)[], b: readonly (string | number)[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  return same(origin.runIds, runIds) && same(origin.models, filters.models) && origin.outcome === filters.outcome && filters.search.trim() === '';
}

export const createEpisodeFiltersSlice: StateCreator<AppStore, [], [], EpisodeFiltersSlice> = (set, get) => ({
  episodeFilters: DEFAULT_EPISODE_FILTERS,
  episodesOrigin: null,
  setEpisodeFilters: (patch) => set((s) => ({ episodeFilters: { ...s.episodeFilters, ...patch } })),
  resetEpisodeFilters: () => set({ episodeFilters: DEFAULT_EPISODE_FILTERS }),
  openEpisodesFromFigure: (target) => {
    if (target.runIds) get().setRunIds(target.runIds);
    const models = [...new Set(target.models ?? [])].sort();
    const outcome = target.outcome ?? 'any';
    set((s) => ({
      episodeFilters: { ...s.episodeFilters, models, outcome, search: '' },
      episodesOrigin: { label: target.label, runIds: get().runIds, models, outcome },
    }));
    get().navigate({ view: 'episodes' });
  },
});
