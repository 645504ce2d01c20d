/**
 * The desktop window's side of live following (issue 36 items 3, 5): the main process listens to the open
 * database's changes (DataEvents, as `serve` does for its /events stream), hands each event to the window over IPC
 * (LIVE_EVENT_CHANNEL; the preload passes it on as `window.routelensLive`), and shows each new alert as a desktop
 * notification. Electron's parts come in as ports, so this runs in tests without Electron.
 */
import type { AlertRow, LiveEvent } from '../../shared/apiLive.ts';
import type { DataEvents } from '../live/dataEvents.ts';

/** The one channel main sends live events on (the preload listens to it alone). */
export const LIVE_EVENT_CHANNEL = 'routelens-live:event';

/** The parts of Electron's `Notification` used: a class with a static `isSupported`. */
export interface NotificationLike {
  on(event: 'click', listener: () => void): unknown;
  show(): void;
}
export interface NotificationPort {
  isSupported(): boolean;
  new (options: { title: string; body: string; silent?: boolean }): NotificationLike;
}

/** An alert as a notification: the rule's message, under the session it is about. */
export function alertNotice(alert: AlertRow): { title: string; body: string } {
  return { title: `RouteLens alert · ${alert.episode}`, body: `${alert.message}\n${alert.run} · ${alert.rule}` };
}

/**
 * Forwards `events` to `send` (the window's webContents) and notifies each alert once; `onNotificationClick` brings
 * the window forward. Returns the function that stops listening (another database opened, the app quitting).
 */
export function forwardLiveEvents(
  events: DataEvents,
  send: (event: LiveEvent) => void,
  notifications: NotificationPort | null,
  onNotificationClick: (alert: AlertRow) => void,
): () => void {
  const notified = new Set<number>();
  return events.subscribe((event) => {
    send(event);
    if (event.type !== 'alert' || notified.has(event.alert.id)) return;
    notified.add(event.alert.id);
    // Some Linux desktops have no notification daemon: the window's banner still says it.
    if (!notifications?.isSupported()) return;
    const notice = new notifications(alertNotice(event.alert));
    notice.on('click', () => onNotificationClick(event.alert));
    notice.show();
  });
}
