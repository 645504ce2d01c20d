/**
 * Where the user is: the current view (mirrored in the URL fragment, so deep links and reloads work) and the
 * run selection that filters every view (an empty selection means all runs). View changes push a history
 * entry; turn steps and selection changes replace it, so Back leaves the episode instead of replaying keys.
 */
import type { StateCreator } from 'zustand';
import { formatHash, parseHash, type Route } from '../routing/route.ts';
import type { AppStore, LocationSlice } from './storeShape.ts';

function writeHash(hash: string, replace: boolean): void {
  if (typeof window === 'undefined' || window.location.hash === hash) return;
  if (replace) window.history.replaceState(null, '', hash);
  else window.history.pushState(null, '', hash);
}

function rememberEpisode(route: Route): LocationSlice['lastEpisode'] | undefined {
  return route.view === 'episode' ? { episodeId: route.episodeId, turn: route.turn } : undefined;
}

/** Moves within a view (turn to turn, episode to episode) keep where the user came from. */
function cameFrom(s: LocationSlice, next: Route): Route['view'] | null {
  return s.route.view === next.view ? s.cameFrom : s.route.view;
}

export const createLocationSlice: StateCreator<AppStore, [], [], LocationSlice> = (set, get) => {
  const initial = parseHash(typeof window === 'undefined' ? '' : window.location.hash);
  return {
    route: initial.route,
    runIds: initial.runIds,
    lastEpisode: rememberEpisode(initial.route) ?? null,
    cameFrom: null,
    navigate: (route, options) => {
      const replace = options?.replace ?? false;
      writeHash(formatHash({ route, runIds: get().runIds }), replace);
      set({ route, lastEpisode: rememberEpisode(route) ?? get().lastEpisode, cameFrom: cameFrom(get(), route) });
    },
    setRunIds: (runIds) => {
      const sorted = [...new Set(runIds)].sort((a, b) => a - b);
      writeHash(formatHash({ route: get().route, runIds: sorted }), true);
      set({ runIds: sorted });
    },
    syncFromHash: (hash) => {
      const { route, runIds } = parseHash(hash);
      set({ route, runIds, lastEpisode: rememberEpisode(route) ?? get().lastEpisode, cameFrom: cameFrom(get(), route) });
      // Normalise what was typed (unknown paths become #/runs) without adding a history entry.
      writeHash(formatHash({ route, runIds }), true);
    },
  };
};
