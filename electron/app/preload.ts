/**
 * The preload: exposes `window.routelens`, one async function per contract call (names from channels.ts),
 * each invoking its own `routelens:<name>` channel. Never exposes `ipcRenderer` or a generic invoke.
 * Runs sandboxed, where `require` knows only 'electron' and a few built-ins, so scripts/build-electron.mjs
 * bundles this file with everything it imports into one self-contained CJS file.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { RouteLensApi } from '../../shared/api.ts';
import { channelOf, IPC_API_NAMES, ipcErrorMessage } from './channels.ts';
import { LIVE_EVENT_CHANNEL } from './liveEvents.ts';

export type Invoke = (channel: string, input: unknown) => Promise<unknown>;

/** The object exposed as `window.routelens`: exactly the contract's calls. */
export function createBridge(invoke: Invoke): RouteLensApi {
  const entries = IPC_API_NAMES.map((name) => {
    const call = async (input?: unknown): Promise<unknown> => {
      try {
        return await invoke(channelOf(name), input ?? {});
      } catch (err) {
        // Errors cross the context bridge as their message only: give the renderer the ApiError message.
        throw new Error(ipcErrorMessage(err), { cause: err });
      }
    };
    return [name, call] as const;
  });
  // The map above builds one function per ApiName; their input/output types are checked in main by dispatch.
  return Object.freeze(Object.fromEntries(entries)) as RouteLensApi;
}

/** The parts of `ipcRenderer` the live bridge uses. */
export interface LiveIpc {
  on(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
}

/**
 * `window.routelensLive`: what the main process says when the database changes (liveEvents.ts), on its one channel.
 * The renderer gets the payload alone, never the IPC event (it would carry `sender`), and validates it itself.
 */
export function createLiveBridge(ipc: LiveIpc): { onEvent(listener: (payload: unknown) => void): () => void } {
  return Object.freeze({
    onEvent(listener: (payload: unknown) => void) {
      const forward = (_event: unknown, payload: unknown): void => listener(payload);
      ipc.on(LIVE_EVENT_CHANNEL, forward);
      return () => void ipc.removeListener(LIVE_EVENT_CHANNEL, forward);
    },
  });
}

contextBridge.exposeInMainWorld('routelens', createBridge((channel, input) => ipcRenderer.invoke(channel, input)));
contextBridge.exposeInMainWorld('routelensLive', createLiveBridge(ipcRenderer));
