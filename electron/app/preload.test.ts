import { beforeAll, describe, expect, it, vi } from 'vitest';
import { API_NAMES } from '../../shared/api.ts';

const bridge = vi.hoisted(() => ({
  exposed: new Map<string, unknown>(),
  invoke: vi.fn(async (_channel: string, _input: unknown): Promise<unknown> => ({ ok: true })),
  on: vi.fn(),
  removeListener: vi.fn(),
}));

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, value: unknown) => bridge.exposed.set(key, value) },
  ipcRenderer: { invoke: bridge.invoke, send: vi.fn(), on: bridge.on, removeListener: bridge.removeListener },
}));

let routelens: Record<string, (input?: unknown) => Promise<unknown>>;

beforeAll(async () => {
  await import('./preload.ts');
  routelens = bridge.exposed.get('routelens') as typeof routelens;
});

describe('preload', () => {
  it('exposes window.routelens and the live events, nothing else', () => {
    expect([...bridge.exposed.keys()]).toEqual(['routelens', 'routelensLive']);
  });

  it('hands the window live events on their one channel, the payload without the IPC event, until it stops listening', () => {
    const live = bridge.exposed.get('routelensLive') as { onEvent(l: (p: unknown) => void): () => void };
    expect(Object.keys(live)).toEqual(['onEvent']);
    expect(Object.isFrozen(live)).toBe(true);
    const heard: unknown[] = [];
    const stop = live.onEvent((p) => heard.push(p));
    const [channel, forward] = bridge.on.mock.calls.at(-1) as unknown as [string, (event: unknown, payload: unknown) => void];
    expect(channel).toBe('routelens-live:event');
    forward({ sender: 'ipc internals' }, { type: 'data', version: 3 });
    expect(heard).toEqual([{ type: 'data', version: 3 }]);
    stop();
    expect(bridge.removeListener).toHaveBeenCalledWith('routelens-live:event', forward);
  });

  it('exposes exactly one function per API call, no ipcRenderer, no generic invoke', () => {
    expect(Object.keys(routelens).sort()).toEqual([...API_NAMES].sort());
    for (const name of API_NAMES) expect(typeof routelens[name]).toBe('function');
    for (const forbidden of ['ipcRenderer', 'invoke', 'send', 'on']) expect(forbidden in routelens).toBe(false);
    expect(Object.isFrozen(routelens)).toBe(true);
  });

  it('sends each call on its own channel, with {} for a missing input', async () => {
    await routelens.queryEpisodes?.({ limit: 5 });
    expect(bridge.invoke).toHaveBeenLastCalledWith('routelens:queryEpisodes', { limit: 5 });
    await routelens.listRuns?.();
    expect(bridge.invoke).toHaveBeenLastCalledWith('routelens:listRuns', {});
  });

  it("rejects with the ApiError message alone, without Electron's wrapping", async () => {
    bridge.invoke.mockRejectedValueOnce(new Error("Error invoking remote method 'routelens:getEpisode': Error: no episode with id 5"));
    await expect(routelens.getEpisode?.({ id: 5 })).rejects.toThrow(/^no episode with id 5$/);
  });
});
