import type { RouteLensApi } from '../shared/api.ts';

declare global {
  interface Window {
    /** Set by the Electron preload (contextBridge); absent in a browser talking to `routelens serve`. */
    routelens?: RouteLensApi;
    /** Set by the Electron preload: the main process's live events (issue 36), each payload still to be validated. */
    routelensLive?: { onEvent(listener: (payload: unknown) => void): () => void };
  }
}

export {};
