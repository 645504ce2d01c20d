/** The keys that work in every view (renderer/shortcuts.ts GLOBAL_KEYS): the palette, the help, and `/` for search. */
import { useEffect } from 'react';
import { useOverlays } from './overlays.ts';
import { globalKeyOf } from './shortcuts.ts';
import { useAppStore } from './store/index.ts';
import { typingInto } from './views/episode/useTurnKeys.ts';

/** `/`: the Episodes view's search box, opening that view first when another one is shown. */
export function focusEpisodeSearch(): void {
  const { route, navigate } = useAppStore.getState();
  if (route.view !== 'episodes') navigate({ view: 'episodes' });
  useOverlays.getState().wantSearchFocus(true);
}

export function useGlobalKeys(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // The import dialog owns the keyboard while it is open.
      if (e.defaultPrevented || e.repeat || useAppStore.getState().importOpen) return;
      const which = globalKeyOf(e, typingInto(e.target));
      if (!which) return;
      e.preventDefault(); // Ctrl+K would otherwise go to the browser's search bar
      const overlays = useOverlays.getState();
      if (which === 'palette' || which === 'help') overlays.toggle(which);
      else {
        overlays.close();
        focusEpisodeSearch();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
