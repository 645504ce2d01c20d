/**
 * The window's live state (issue 36): the sessions running now (liveSessions, asked again when the database changes
 * and, while any runs, every 30 s so a quiet one stops being "running"), and the alerts pushed to this window, each
 * shown once. Its own small store: nothing else in the app's store depends on it.
 */
import { create } from 'zustand';
import type { AlertRow, LiveSession } from '../../shared/apiLive.ts';
import { api } from '../api/index.ts';

export interface LiveState {
  sessions: readonly LiveSession[];
  byEpisode: ReadonlyMap<number, LiveSession>;
  /** Run ids with a session running. */
  liveRuns: ReadonlySet<number>;
  /** When `sessions` was read (ms): "40 s ago" is counted from the server's last_at at this moment's clock. */
  readAt: number;
  /** The event stream is up: the window need not ask on a timer whether the database changed. */
  connected: boolean;
  /** Alerts on screen, oldest first. */
  banners: readonly AlertRow[];
  /** Every alert id this window has shown: an alert is shown once per window. */
  shown: ReadonlySet<number>;
  followOpen: boolean;
  refreshSessions(): Promise<void>;
  setConnected(up: boolean): void;
  onAlert(alert: AlertRow): void;
  dismiss(id: number): void;
  setFollowOpen(open: boolean): void;
}

/** At most this many banners at once; older ones give way (each was shown). */
const MAX_BANNERS = 3;

let asking: Promise<void> | null = null;
let again = false;

export const useLiveStore = create<LiveState>()((set, get) => ({
  sessions: [],
  byEpisode: new Map(),
  liveRuns: new Set(),
  readAt: 0,
  connected: false,
  banners: [],
  shown: new Set(),
  followOpen: false,
  refreshSessions: async () => {
    // One question at a time; a change meanwhile asks once more after it.
    if (asking) {
      again = true;
      return asking;
    }
    asking = (async () => {
      do {
        again = false;
        try {
          const sessions = await api.liveSessions({});
          set({
            sessions,
            byEpisode: new Map(sessions.map((s) => [s.episode_id, s])),
            liveRuns: new Set(sessions.map((s) => s.run_id)),
            readAt: Date.now(),
          });
        } catch {
          // Keep what is shown; the next change asks again.
        }
      } while (again);
    })().finally(() => {
      asking = null;
    });
    return asking;
  },
  setConnected: (up) => set({ connected: up }),
  onAlert: (alert) => {
    const { shown, banners } = get();
    if (shown.has(alert.id)) return;
    set({ shown: new Set(shown).add(alert.id), banners: [...banners, alert].slice(-MAX_BANNERS) });
  },
  dismiss: (id) => set({ banners: get().banners.filter((a) => a.id !== id) }),
  setFollowOpen: (open) => set({ followOpen: open }),
}));
