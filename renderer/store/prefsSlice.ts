/** Persisted UI preferences (theme/prefs.ts holds the versioned schema). */
import type { StateCreator } from 'zustand';
import { loadPrefs, savePrefs } from '../theme/prefs.ts';
import { applyTheme, systemTheme, type Theme } from '../theme/theme.ts';
import type { AppStore } from './types.ts';

export interface PrefsSlice {
  theme: Theme;
  setTheme(theme: Theme): void;
  toggleTheme(): void;
}

export const createPrefsSlice: StateCreator<AppStore, [], [], PrefsSlice> = (set, get) => ({
  theme: loadPrefs().theme ?? systemTheme(),
  setTheme: (theme) => {
    applyTheme(theme);
    savePrefs({ version: 1, theme });
    set({ theme });
  },
  toggleTheme: () => get().setTheme(get().theme === 'dark' ? 'light' : 'dark'),
});
