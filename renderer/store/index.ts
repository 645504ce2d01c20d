/** The UI store (zustand): typed slices combined into one hook. Components select narrowly. */
import { useCallback } from 'react';
import { create } from 'zustand';
import { paletteColor } from '../../shared/charts/palette.ts';
import { createAnalysesSlice } from './analysesSlice.ts';
import { createEpisodeFiltersSlice } from './episodeFiltersSlice.ts';
import { createEstimatorSlice } from './estimatorSlice.ts';
import { createImportSlice } from './importSlice.ts';
import { createLocationSlice } from './locationSlice.ts';
import { createPrefsSlice } from './prefsSlice.ts';
import { createSessionSlice } from './sessionSlice.ts';
import type { AppStore } from './storeShape.ts';

export type { AppStore } from './storeShape.ts';

export const useAppStore = create<AppStore>()((...a) => ({
  ...createSessionSlice(...a),
  ...createLocationSlice(...a),
  ...createEpisodeFiltersSlice(...a),
  ...createPrefsSlice(...a),
  ...createImportSlice(...a),
  ...createAnalysesSlice(...a),
  ...createEstimatorSlice(...a),
}));

/** The palette colour of a model, by name (grey for a model listModels did not report). */
/** The window reads a ClickHouse store (serve --store), where estimator-based views and importing are not built yet. */
export function useOnStore(): boolean {
  return useAppStore((s) => s.dbInfo?.store === 'clickhouse');
}

export function useModelColor(name: string): string {
  return useAppStore((s) => paletteColor(s.modelColorIndex[name]));
}

/** A stable function from model name to colour for components that colour many models at once. */
export function useModelColors(): (name: string) => string {
  const index = useAppStore((s) => s.modelColorIndex);
  return useCallback((name: string) => paletteColor(index[name]), [index]);
}
