import type { RouteLensApi } from '../shared/api.ts';

declare global {
  interface Window {
    /** Set by the Electron preload (contextBridge); absent in a browser talking to `routelens serve`. */
    routelens?: RouteLensApi;
  }
}

export {};
