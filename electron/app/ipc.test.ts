import { beforeEach, describe, expect, it, vi } from 'vitest';
import { API_NAMES, type RouteLensApi } from '../../shared/api.ts';
import { NotFoundError } from '../services/serviceErrors.ts';
import { channelOf, ipcErrorMessage } from './channels.ts';
import { ApiCallError, createSenderCheck, registerApiHandlers, type IpcInvokeEventLike, type IpcMainLike } from './ipc.ts';

function fakeIpc() {
  const handlers = new Map<string, (event: IpcInvokeEventLike, ...args: unknown[]) => unknown>();
  const ipc: IpcMainLike = {
    handle: (channel, listener) => void handlers.set(channel, listener),
    removeHandler: (channel) => void handlers.delete(channel),
  };
  return { ipc, handlers };
}

const api: RouteLensApi = {
  dbInfo: vi.fn(async () => ({ path: 'x.db', runs: 0, episodes: 0, turns: 0, schema_version: 1 })),
  listRuns: vi.fn(async () => []),
  listModels: vi.fn(async () => []),
  queryEpisodes: vi.fn(async () => ({ total: 0, rows: [] })),
  getEpisode: vi.fn(async () => {
    throw new NotFoundError('no episode with id 3');
  }),
  getTurns: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  startImport: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  importStatus: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  replay: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  policyDiff: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  compare: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  exportCompareFigure: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  exportFrontierFigure: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  episodePolicyChoices: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  runAnalysis: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  exportFigure: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  listEstimators: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  startEstimatorJob: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  estimatorJobStatus: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  cancelEstimatorJob: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  whatIf: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  setEstimatorInUse: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  renameEstimator: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  shareCase: vi.fn(async () => {
    throw new NotFoundError('not under test');
  }),
  liveSessions: vi.fn(async () => []),
  followedFolders: vi.fn(async () => []),
  followFolders: vi.fn(async () => []),
  unfollowFolder: vi.fn(async () => []),
  alertRules: vi.fn(async () => []),
  setAlertRule: vi.fn(async () => []),
  removeAlertRule: vi.fn(async () => []),
  alerts: vi.fn(async () => []),
};

const ours = (id = 1): IpcInvokeEventLike => ({ sender: { id }, senderFrame: { url: 'app://routelens/index.html#/runs', parent: null } });

describe('IPC handlers', () => {
  beforeEach(() => vi.clearAllMocks());

  it('registers one handler per API name and removes them all', () => {
    const { ipc, handlers } = fakeIpc();
    const unregister = registerApiHandlers(ipc, () => api, () => true);
    expect([...handlers.keys()].sort()).toEqual(API_NAMES.map(channelOf).sort());
    unregister();
    expect(handlers.size).toBe(0);
  });

  it('validates the payload before the service runs, and carries the error kind', async () => {
    const { ipc, handlers } = fakeIpc();
    registerApiHandlers(ipc, () => api, () => true);
    await expect(handlers.get('routelens:queryEpisodes')?.(ours(), { sort: 'DROP TABLE' })).rejects.toThrow(/^queryEpisodes: /);
    await expect(handlers.get('routelens:queryEpisodes')?.(ours(), 'not an object')).rejects.toBeInstanceOf(ApiCallError);
    expect(api.queryEpisodes).not.toHaveBeenCalled();
    const err = await Promise.resolve(handlers.get('routelens:getEpisode')?.(ours(), { id: 3 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiCallError);
    expect((err as ApiCallError).kind).toBe('not_found');
    expect((err as ApiCallError).message).toBe('no episode with id 3');
    await expect(handlers.get('routelens:listRuns')?.(ours(), {})).resolves.toEqual([]);
  });

  it('refuses untrusted senders before validating or calling anything', async () => {
    const { ipc, handlers } = fakeIpc();
    registerApiHandlers(ipc, () => api, () => false);
    await expect(handlers.get('routelens:listRuns')?.(ours(), {})).rejects.toThrow(/not a RouteLens window/);
    expect(api.listRuns).not.toHaveBeenCalled();
  });

  it('trusts only the top frame of our own window on our own origin', () => {
    const check = createSenderCheck((id) => id === 1);
    expect(check(ours(1))).toBe(true);
    expect(check(ours(2))).toBe(false);
    const frame = (url: string, parent: unknown = null) => ({ sender: { id: 1 }, senderFrame: { url, parent } });
    expect(check(frame('app://routelens/'))).toBe(true);
    expect(check(frame('app://other/index.html'))).toBe(false);
    expect(check(frame('https://routelens/index.html'))).toBe(false);
    expect(check(frame('file:///work/dist/renderer/index.html'))).toBe(false);
    expect(check(frame('not a url'))).toBe(false);
    expect(check(frame('app://routelens/index.html', {}))).toBe(false);
    expect(check({ sender: { id: 1 }, senderFrame: null })).toBe(false);
  });
});

describe('ipcErrorMessage', () => {
  it("strips Electron's remote-method wrapper and the error name", () => {
    expect(ipcErrorMessage(new Error("Error invoking remote method 'routelens:x': Error: bad input"))).toBe('bad input');
    expect(ipcErrorMessage(new Error("Error invoking remote method 'routelens:x': TypeError: boom"))).toBe('boom');
    expect(ipcErrorMessage(new Error('plain'))).toBe('plain');
    expect(ipcErrorMessage('text')).toBe('text');
  });
});
