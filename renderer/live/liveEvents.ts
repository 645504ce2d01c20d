/**
 * Where the window hears that the database changed (issue 36 item 3): the desktop preload's `routelensLive`, or, in a
 * browser, serve's Server-Sent Events at /events (the cookie carries the token). Every payload is checked against the
 * contract's LiveEvent before anyone sees it.
 */
import { LiveEvent } from '../../shared/apiLive.ts';

export interface LiveConnection {
  /** Stops listening. */
  close(): void;
}

/**
 * `onEvent` hears each event; `onConnected` hears whether the stream is up (a browser's stream comes back by itself
 * after a break; on reconnecting the window asks what it missed). Returns null where there is nothing to listen to.
 */
export function listenLive(onEvent: (event: LiveEvent) => void, onConnected: (up: boolean) => void): LiveConnection | null {
  const accept = (payload: unknown): void => {
    const parsed = LiveEvent.safeParse(payload);
    if (parsed.success) onEvent(parsed.data);
  };
  if (typeof window === 'undefined') return null;
  if (window.routelens) {
    const live = window.routelensLive;
    if (!live) return null;
    onConnected(true);
    return { close: live.onEvent(accept) };
  }
  if (typeof EventSource === 'undefined') return null;
  const source = new EventSource('/events');
  source.onopen = () => onConnected(true);
  source.onerror = () => onConnected(false);
  source.onmessage = (message: MessageEvent<string>) => {
    try {
      accept(JSON.parse(message.data));
    } catch {
      // not JSON: not ours to show
    }
  };
  return { close: () => source.close() };
}
