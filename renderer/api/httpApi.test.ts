import { describe, expect, it } from 'vitest';
import { ApiCallError } from './contractClient.ts';
import { createHttpApi } from './httpApi.ts';
import { createIpcApi } from './ipcApi.ts';
import type { RouteLensApi } from '../../shared/api.ts';

const dbInfo = { path: '/tmp/x.db', runs: 1, episodes: 2, turns: 3, schema_version: 1 };

function fakeFetch(status: number, body: unknown, seen: { url?: string; init?: RequestInit } = {}): typeof fetch {
  return async (url, init) => {
    seen.url = String(url);
    seen.init = init;
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  };
}

describe('the HTTP adapter', () => {
  it('POSTs the input as JSON to /api/<name> and returns the validated value', async () => {
    const seen: { url?: string; init?: RequestInit } = {};
    const api = createHttpApi(fakeFetch(200, { ok: true, value: dbInfo }, seen));
    expect(await api.dbInfo({})).toEqual(dbInfo);
    expect(seen.url).toBe('/api/dbInfo');
    expect(seen.init?.method).toBe('POST');
    expect(seen.init?.credentials).toBe('same-origin');
  });

  it('rejects with the core’s error kind and message', async () => {
    const api = createHttpApi(fakeFetch(404, { ok: false, error: { kind: 'not_found', message: 'no episode with id 9' } }));
    const err = await api.getEpisode({ id: 9 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiCallError);
    expect(err).toMatchObject({ kind: 'not_found', message: 'no episode with id 9', call: 'getEpisode' });
  });

  it('explains a missing token and a server that is gone', async () => {
    await expect(createHttpApi(fakeFetch(401, 'nope')).listRuns({})).rejects.toThrow(/open the URL that `routelens serve` printed/);
    const down: typeof fetch = async () => {
      throw new TypeError('Failed to fetch');
    };
    await expect(createHttpApi(down).listRuns({})).rejects.toThrow(/Cannot reach the RouteLens server/);
  });

  it('refuses an answer that does not match the contract', async () => {
    const api = createHttpApi(fakeFetch(200, { ok: true, value: { ...dbInfo, runs: 'many' } }));
    await expect(api.dbInfo({})).rejects.toThrow(/does not match the API contract.*runs/);
  });
});

describe('the IPC adapter', () => {
  it('validates what the preload returns and passes its error messages on', async () => {
    const bridge = {
      dbInfo: async () => dbInfo,
      listRuns: async () => {
        throw new Error('database is locked');
      },
      listModels: async () => [{ name: 'no id' }],
    } as unknown as RouteLensApi;
    const api = createIpcApi(bridge);
    expect(await api.dbInfo({})).toEqual(dbInfo);
    await expect(api.listRuns({})).rejects.toThrow('database is locked');
    await expect(api.listModels({})).rejects.toThrow(/does not match the API contract/);
  });
});
