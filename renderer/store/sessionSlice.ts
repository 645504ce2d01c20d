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
  /** Bumped when the database's contents change under the UI (an import), so views re-query what they show. */
  dataVersion: number;
  loadSession(): Promise<void>;
  /** Re-reads info, runs and models without leaving the current view (after an import). */
  refreshSession(): Promise<void>;
  /**
   * Asks the core whether a write committed since the session was read (`dbInfo.data_version`: an import from
   * the CLI, a score job) and refreshes if so. Cheap; App polls it (DATA_POLL_MS). Resolves whether it refreshed.
   */
  checkForChanges(): Promise<boolean>;
}

/** How often the window asks whether the database changed under it. */
export const DATA_POLL_MS = 3000;

async function fetchSession(): Promise<Pick<SessionSlice, 'dbInfo' | 'runs' | 'models'>> {
  const [dbInfo, runs, models] = await Promise.all([api.dbInfo({}), api.listRuns({}), api.listModels({})]);
  return { dbInfo, runs, models };
}

export const createSessionSlice: StateCreator<AppStore, [], [], SessionSlice> = (set, get) => {
  const adopt = ({ dbInfo, runs, models }: Pick<SessionSlice, 'dbInfo' | 'runs' | 'models'>): void => {
    const modelColorIndex = Object.fromEntries(models.map((m) => [m.name, m.color_index]));
    const known = new Set(runs.map((r) => r.id));
    const runIds = get().runIds.filter((id) => known.has(id));
    set({ status: 'ready', loadError: null, dbInfo, runs, models, modelColorIndex });
    if (runIds.length !== get().runIds.length) get().setRunIds(runIds);
  };
  return {
    status: 'loading',
    loadError: null,
    dbInfo: null,
    runs: [],
    models: [],
    modelColorIndex: {},
    dataVersion: 0,
    loadSession: async () => {
      set({ status: 'loading', loadError: null });
      try {
        adopt(await fetchSession());
      } catch (err) {
        set({ status: 'error', loadError: errorMessage(err) });
      }
    },
    refreshSession: async () => {
      // Throws on failure and leaves what is on screen; the caller says so.
      adopt(await fetchSession());
      set({ dataVersion: get().dataVersion + 1 });
    },
    checkForChanges: async () => {
      const known = get().dbInfo;
      if (get().status !== 'ready' || !known) return false;
      const now = await api.dbInfo({});
      if (now.data_version === undefined || now.data_version === known.data_version) return false;
      await get().refreshSession();
      return true;
    },
  };
};
