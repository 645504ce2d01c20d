/** What the open database holds at the top level: its info, runs and models (with their palette slots). */
import type { StateCreator } from 'zustand';
import type { DbInfo, ModelInfo, RunSummary } from '../../shared/api.ts';
import { api, errorMessage } from '../api/index.ts';
import type { AppStore } from './types.ts';

export type SessionStatus = 'loading' | 'ready' | 'error';

export interface SessionSlice {
  status: SessionStatus;
  loadError: string | null;
  dbInfo: DbInfo | null;
  runs: RunSummary[];
  models: ModelInfo[];
  /** model name → color_index from listModels */
  modelColorIndex: Record<string, number>;
  loadSession(): Promise<void>;
}

export const createSessionSlice: StateCreator<AppStore, [], [], SessionSlice> = (set, get) => ({
  status: 'loading',
  loadError: null,
  dbInfo: null,
  runs: [],
  models: [],
  modelColorIndex: {},
  loadSession: async () => {
    set({ status: 'loading', loadError: null });
    try {
      const [dbInfo, runs, models] = await Promise.all([api.dbInfo({}), api.listRuns({}), api.listModels({})]);
      const modelColorIndex = Object.fromEntries(models.map((m) => [m.name, m.color_index]));
      const known = new Set(runs.map((r) => r.id));
      const runIds = get().runIds.filter((id) => known.has(id));
      set({ status: 'ready', dbInfo, runs, models, modelColorIndex });
      if (runIds.length !== get().runIds.length) get().setRunIds(runIds);
    } catch (err) {
      set({ status: 'error', loadError: errorMessage(err) });
    }
  },
});
