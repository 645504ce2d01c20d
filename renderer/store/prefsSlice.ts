/** Persisted UI preferences (theme/prefs.ts holds the versioned schema). */
import type { StateCreator } from 'zustand';
import { loadPrefs, savePrefs } from '../theme/prefs.ts';
import { applyTheme, systemTheme } from '../theme/theme.ts';
import type { AppStore, PrefsSlice } from './storeShape.ts';

export const createPrefsSlice: StateCreator<AppStore, [], [], PrefsSlice> = (set, get) => {
  const stored = loadPrefs();
  return {
    theme: stored.theme ?? systemTheme(),
    setTheme: (theme) => {
      applyTheme(theme);
      savePrefs({ version: 1, theme, inspector: get().inspectorLayout });
      set({ theme });
    },
    toggleTheme: () => get().setTheme(get().theme === 'dark' ? 'light' : 'dark'),
    inspectorLayout: stored.inspector,
    setInspectorLayout: (patch) => {
      const inspectorLayout = { ...get().inspectorLayout, ...patch };
      // The theme is written only once chosen: until then it keeps following the system's.
      savePrefs({ version: 1, theme: loadPrefs().theme, inspector: inspectorLayout });
      set({ inspectorLayout });
    },
  };
};
