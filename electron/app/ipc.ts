/**
 * The API contract over Electron IPC (main side). Takes an `IpcMainLike` port rather than `ipcMain` itself, so
 * it runs in tests without Electron (Bruno's pattern). One `handle` per contract call; each checks that the
 * sender is our own window showing our own origin, validates the payload through `dispatch` (the same zod
 * schemas as every transport), and rejects with an Error carrying the ApiError message.
 */
import type { ApiError, RouteLensApi } from '../../shared/api.ts';
import { dispatch } from '../services/dispatch.ts';
import { channelOf, IPC_API_NAMES } from './channels.ts';
import { isAppUrl } from './protocol.ts';

/** The parts of Electron's `IpcMainInvokeEvent` the handlers read. */
export interface IpcInvokeEventLike {
  sender: { id: number };
  senderFrame: { url: string; parent: unknown } | null;
}

/** The parts of Electron's `ipcMain` the handlers use. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

export type SenderCheck = (event: IpcInvokeEventLike) => boolean;

/** An ApiError as a throwable; over IPC only its message survives, and the preload hands that on. */
export class ApiCallError extends Error {
  readonly kind: ApiError['kind'];
  constructor(error: ApiError) {
    super(error.message);
    this.kind = error.kind;
  }
}

/**
 * Trusts a call only from the top frame of one of our windows (`isOurWindow` by webContents id) that is
 * showing our `app://routelens` origin: not a subframe, not a page that somehow navigated elsewhere.
 */
export function createSenderCheck(isOurWindow: (webContentsId: number) => boolean): SenderCheck {
  return (event) => {
    const frame = event.senderFrame;
    return frame !== null && frame.parent === null && isAppUrl(frame.url) && isOurWindow(event.sender.id);
  };
}

/**
 * Registers a handler per contract call. `getApi` is read on each call, so opening another database swaps the
 * services under the same handlers. Returns a function that removes them.
 */
export function registerApiHandlers(ipc: IpcMainLike, getApi: () => RouteLensApi, isTrusted: SenderCheck): () => void {
  for (const name of IPC_API_NAMES) {
    const channel = channelOf(name);
    ipc.handle(channel, async (event, payload) => {
      if (!isTrusted(event)) {
        throw new ApiCallError({ kind: 'input', message: `${name}: refused, the caller is not a RouteLens window` });
      }
      const result = await dispatch(getApi(), name, payload);
      if (!result.ok) throw new ApiCallError(result.error);
      return result.value;
    });
  }
  return () => {
    for (const name of IPC_API_NAMES) ipc.removeHandler(channelOf(name));
  };
}
