/**
 * Light and dark themes are two sets of CSS variables (styles/theme.css) selected by `data-theme` on <html>.
 * The choice is a persisted preference (prefs.ts); without one we follow the system setting.
 */
export type Theme = 'light' | 'dark';

export function systemTheme(): Theme {
  return typeof window !== 'undefined' && window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
}
