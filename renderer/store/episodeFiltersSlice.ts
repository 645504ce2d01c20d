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

/**
 * Where the list came from when a click on a figure mark opened it ("gpt-5 on python turns"), with the
 * selection that click made. The Episodes view names it only while runs and filters still say exactly that,
 * so a label never describes a list the user has since changed.
 */
export interface EpisodesOrigin {
  label: string;
  runIds: number[];
  models: string[];
  outcome: OutcomeFilter;
}

export interface EpisodesFromFigure {
  label: string;
  /** Omitted: keep the top bar's run selection. */
  runIds?: number[];
  models?: string[];
  outcome?: Exclude<OutcomeFilter, 'any'>;
}

export interface EpisodeFiltersSlice {
  episodeFilters: EpisodeFilters;
  episodesOrigin: EpisodesOrigin | null;
  setEpisodeFilters(patch: Partial<EpisodeFilters>): void;
  resetEpisodeFilters(): void;
  /** Opens the Episodes view filtered to what a figure mark counts (clears any search, keeps the sort). */
  openEpisodesFromFigure(target: EpisodesFromFigure): void;
}

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
