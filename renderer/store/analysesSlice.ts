/**
 * The Analyses pages' controls (min n, reference run, ρ, the episode shown), per analysis, kept in the store
 * so they survive a click through to an episode and Back.
 */
import type { StateCreator } from 'zustand';
import type { AnalysisId } from '../../shared/analysisResults.ts';
import type { AppStore } from './types.ts';

/** An episode as analyses name it: the log's id, and its run (ids repeat across runs). */
export interface EpisodeRef {
  ext_id: string;
  run: string;
}

export interface AnalysisParams {
  minN?: number;
  reference?: string;
  /** pareto: linear or logarithmic cost axis. */
  costAxis?: 'linear' | 'log';
  rho?: Record<string, number>;
  episode?: EpisodeRef;
  /** calibration, embeddings: the database's estimator in use, filled in from the store (no control of its own). */
  estimator?: number;
  /** calibration: ŝ bins. */
  bins?: number;
  /** embeddings: colour of the history points, and how many to map. */
  color?: 'model' | 'outcome';
  sample?: number;
}

export interface AnalysesSlice {
  analysisParams: Partial<Record<AnalysisId, AnalysisParams>>;
  setAnalysisParams(id: AnalysisId, patch: AnalysisParams): void;
}

export const createAnalysesSlice: StateCreator<AppStore, [], [], AnalysesSlice> = (set) => ({
  analysisParams: {},
  setAnalysisParams: (id, patch) => set((s) => ({ analysisParams: { ...s.analysisParams, [id]: { ...s.analysisParams[id], ...patch } } })),
});
