/**
 * Where the user is: the current view (mirrored in the URL fragment, so deep links and reloads work) and the
 * run selection that filters every view (an empty selection means all runs). View changes push a history
 * entry; turn steps and selection changes replace it, so Back leaves the episode instead of replaying keys.
 */
import type { StateCreator } from 'zustand';
import { formatHash, parseHash, type Route } from '../routing/route.ts';
import type { AppStore } from './types.ts';

export interface LocationSlice {
  route: Route;
  runIds: number[];
  /** The episode last opened in the inspector, for the rail's link back to it. */
  lastEpisode: { episodeId: number; turn: number | null } | null;
  /** The view the user was on before the current one (null at start-up): the inspector steps through the Episodes list only when opened from it. */
  cameFrom: Route['view'] | null;
  navigate(route: Route, options?: { replace?: boolean }): void;
  setRunIds(runIds: number[]): void;
  /** Adopt what the URL says (start-up, Back/Forward, a hand-edited fragment). */
  syncFromHash(hash: string): void;
}

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
