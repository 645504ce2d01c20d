/** What the open database holds at the top level: its info, runs and models (with their palette slots). */
import type { StateCreator } from 'zustand';
import { api, errorMessage } from '../api/index.ts';
import type { AppStore, SessionSlice } from './storeShape.ts';

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
