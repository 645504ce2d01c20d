/** The Episodes view's filters and sort, kept in the store so they survive a trip to the inspector and back. */
import type { StateCreator } from 'zustand';
import type { EpisodeSortColumn } from '../../shared/api.ts';
import type { AppStore } from './types.ts';

export type OutcomeFilter = 'any' | 'success' | 'failure' | 'unknown';

export interface EpisodeFilters {
  models: string[];
  outcome: OutcomeFilter;
  /** What the user typed; the view debounces it before querying. */
  search: string;
  sort: EpisodeSortColumn;
  desc: boolean;
}

export interface EpisodeFiltersSlice {
  episodeFilters: EpisodeFilters;
  setEpisodeFilters(patch: Partial<EpisodeFilters>): void;
  resetEpisodeFilters(): void;
}

export const DEFAULT_EPISODE_FILTERS: EpisodeFilters = { models: [], outcome: 'any', search: '', sort: 'id', desc: false };

export const createEpisodeFiltersSlice: StateCreator<AppStore, [], [], EpisodeFiltersSlice> = (set) => ({
  episodeFilters: DEFAULT_EPISODE_FILTERS,
  setEpisodeFilters: (patch) => set((s) => ({ episodeFilters: { ...s.episodeFilters, ...patch } })),
  resetEpisodeFilters: () => set({ episodeFilters: DEFAULT_EPISODE_FILTERS }),
});
