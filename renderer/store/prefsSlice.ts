/** Persisted UI preferences (theme/prefs.ts holds the versioned schema). */
import type { StateCreator } from 'zustand';
import { loadPrefs, savePrefs, type InspectorLayoutPrefs } from '../theme/prefs.ts';
import { applyTheme, systemTheme, type Theme } from '../theme/theme.ts';
import type { AppStore } from './types.ts';

export interface PrefsSlice {
  theme: Theme;
  setTheme(theme: Theme): void;
  toggleTheme(): void;
  /** The inspector's layout as the user chose it; parts not chosen follow the window's size. */
  inspectorLayout: InspectorLayoutPrefs;
  setInspectorLayout(patch: InspectorLayoutPrefs): void;
}

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
