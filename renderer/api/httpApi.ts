/**
 * The serve-mode adapter: `POST /api/<name>` with the input as JSON, answered by
 * `{"ok":true,"value":…}` or `{"ok":false,"error":{"kind","message"}}`. The access token travels as the
 * HttpOnly cookie the server set when the page was opened from the printed URL.
 */
import { z } from 'zod';
import { ApiError, type RouteLensApi } from '../../shared/api.ts';
import { ApiCallError, contractClient, type Transport } from './contractClient.ts';

const Envelope = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: ApiError }),
]);

export function httpTransport(fetchFn: typeof fetch = (...args) => globalThis.fetch(...args), base = '/api/'): Transport {
  return async (name, input) => {
    let res: Response;
    try {
      res = await fetchFn(`${base}${name}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(input ?? {}),
        credentials: 'same-origin',
      });
    } catch {
      throw new ApiCallError(name, 'transport', 'Cannot reach the RouteLens server. Is `routelens serve` still running?');
    }
    if (res.status === 401) {
      throw new ApiCallError(name, 'transport', 'Not signed in: open the URL that `routelens serve` printed (it carries the access token).');
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      throw new ApiCallError(name, 'transport', `${name}: the server answered HTTP ${res.status} without a JSON body`);
    }
    const envelope = Envelope.safeParse(body);
    if (!envelope.success) throw new ApiCallError(name, 'transport', `${name}: unexpected answer (HTTP ${res.status})`);
    if (!envelope.data.ok) throw new ApiCallError(name, envelope.data.error.kind, envelope.data.error.message);
    return envelope.data.value;
  };
}

export function createHttpApi(fetchFn?: typeof fetch): RouteLensApi {
  return contractClient(httpTransport(fetchFn));
}
