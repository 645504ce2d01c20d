/**
 * The IPC side of the API contract, in one place so the preload and the main process agree by construction:
 * one channel `routelens:<name>` per entry of `API_NAMES` in shared/api.ts, nothing else.
 */
import { API_NAMES, type ApiName } from '../../shared/api.ts';

export const CHANNEL_PREFIX = 'routelens:';

/** The calls carried over IPC: exactly the contract's. */
export const IPC_API_NAMES: readonly ApiName[] = Object.freeze([...API_NAMES]);

export function channelOf(name: ApiName): string {
  return CHANNEL_PREFIX + name;
}

/**
 * `ipcRenderer.invoke` rejects with "Error invoking remote method 'routelens:x': Error: <message>"; the
 * renderer should see the ApiError message alone, as the HTTP transport gives it.
 */
export function ipcErrorMessage(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  return raw.replace(/^Error invoking remote method '[^']*': /, '').replace(/^(?:[A-Za-z]*Error): /, '');
}
