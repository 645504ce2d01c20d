/**
 * The desktop adapter: the preload's `window.routelens` already has one function per call; this wraps it so
 * answers are validated like the HTTP ones and failures arrive as `ApiCallError`s.
 */
import type { RouteLensApi } from '../../shared/api.ts';
import { ApiCallError, contractClient, type Transport } from './contractClient.ts';

export function ipcTransport(bridge: RouteLensApi): Transport {
  return async (name, input) => {
    try {
      return await bridge[name](input);
    } catch (err) {
      // The preload rejects with the ApiError message only; its kind does not cross the context bridge.
      throw new ApiCallError(name, 'internal', err instanceof Error ? err.message : String(err));
    }
  };
}

export function createIpcApi(bridge: RouteLensApi): RouteLensApi {
  return contractClient(ipcTransport(bridge));
}
