/**
 * The Analyses pages' controls (min n, reference run, ρ, the episode shown), per analysis, and the runs every
 * figure draws, kept in the store so they survive a click through to an episode and Back.
 */
import type { StateCreator } from 'zustand';
import type { AnalysesSlice, AppStore } from './storeShape.ts';

export const createAnalysesSlice: StateCreator<AppStore, [], [], AnalysesSlice> = (set) => ({
  analysisParams: {},
  setAnalysisParams: (id, patch) => set((s) => ({ analysisParams: { ...s.analysisParams, [id]: { ...s.analysisParams[id], ...patch } } })),
  drawnRuns: [],
  setDrawnRuns: (runs) => set({ drawnRuns: [...new Set(runs)].sort((a, b) => a.localeCompare(b)) }),
});
