/**
 * Subscribes the window to its database's changes once (App): a 'data' event refreshes what is shown in place (the
 * session's runs and models, then every view keyed on `dataVersion`: the Episodes list, the open episode) and the
 * running sessions; an 'alert' event becomes a banner. While a session runs its "running" badges are checked every
 * 30 s, so one that went quiet stops being shown as running.
 */
import { useEffect } from 'react';
import { useAppStore } from '../store/index.ts';
import { listenLive } from './liveEvents.ts';
import { useLiveStore } from './liveStore.ts';

const AGE_CHECK_MS = 30_000;

export function useLiveEvents(): void {
  const anyRunning = useLiveStore((s) => s.sessions.length > 0);
  const ready = useAppStore((s) => s.status === 'ready');

  useEffect(() => {
    // Nothing follows files into a ClickHouse store and it has no event stream: the window's 3-s check stays.
    if (!ready || useAppStore.getState().dbInfo?.store === 'clickhouse') return;
    const live = useLiveStore.getState();
    // While a watcher commits several times a second, the window reads once per round, not once per event.
    let checking = false;
    let again = false;
    const check = async (): Promise<void> => {
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      try {
        do {
          again = false;
          await useAppStore.getState().checkForChanges().catch(() => undefined);
        } while (again);
      } finally {
        checking = false;
      }
    };
    const changed = (): void => {
      void check();
      void useLiveStore.getState().refreshSessions();
    };
    void live.refreshSessions();
    const connection = listenLive(
      (event) => {
        if (event.type === 'data') changed();
        else useLiveStore.getState().onAlert(event.alert);
      },
      (up) => {
        // Back after a break: what changed meanwhile was not heard.
        if (up && !useLiveStore.getState().connected) changed();
        useLiveStore.getState().setConnected(up);
      },
    );
    return () => {
      connection?.close();
      useLiveStore.getState().setConnected(false);
    };
  }, [ready]);

  useEffect(() => {
    if (!anyRunning) return;
    const timer = setInterval(() => void useLiveStore.getState().refreshSessions(), AGE_CHECK_MS);
    return () => clearInterval(timer);
  }, [anyRunning]);
}
