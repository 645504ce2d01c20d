/**
 * The API the whole UI uses. The transport is chosen once at start-up: the Electron preload exposes
 * `window.routelens`; without it we are in a browser talking to `routelens serve` over HTTP.
 */
import type { RouteLensApi } from '../../shared/api.ts';
import { createHttpApi } from './httpApi.ts';
import { createIpcApi } from './ipcApi.ts';

export { ApiCallError } from './contractClient.ts';

export type Transport = 'ipc' | 'http';

export const transport: Transport = typeof window !== 'undefined' && window.routelens ? 'ipc' : 'http';

export const api: RouteLensApi =
  transport === 'ipc' && window.routelens ? createIpcApi(window.routelens) : createHttpApi();

/** The message to show a user for any failure of an API call. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
