import { describe, expect, it, vi } from 'vitest';

/** What the core answers: `version` moves when a write commits elsewhere (a CLI import, a score job). */
const core = vi.hoisted(() => ({ version: 1, episodes: 13, dbInfo: 0, listRuns: 0 }));

vi.mock('../api/index.ts', () => ({
  errorMessage: (err: unknown) => (err instanceof Error ? err.message : String(err)),
  api: {
    dbInfo: async () => {
      core.dbInfo++;
      return { path: '/tmp/x.db', runs: 1, episodes: core.episodes, turns: 20, schema_version: 1, data_version: core.version };
    },
    listRuns: async () => {
      core.listRuns++;
      return [];
    },
    listModels: async () => [],
  },
}));

const { useAppStore } = await import('./index.ts');

describe('the window follows commits made elsewhere', () => {
  it('refreshes the session and bumps dataVersion only when the data version moved', async () => {
    const store = useAppStore.getState();
    await store.loadSession();
    const shown = useAppStore.getState().dataVersion;
    const runsReads = core.listRuns;

    expect(await useAppStore.getState().checkForChanges()).toBe(false);
    expect(useAppStore.getState().dataVersion).toBe(shown);
    expect(core.listRuns).toBe(runsReads);

    core.version = 2;
    core.episodes = 6013;
    expect(await useAppStore.getState().checkForChanges()).toBe(true);
    expect(useAppStore.getState().dataVersion).toBe(shown + 1);
    expect(useAppStore.getState().dbInfo).toMatchObject({ episodes: 6013, data_version: 2 });

    expect(await useAppStore.getState().checkForChanges()).toBe(false);
    expect(useAppStore.getState().dataVersion).toBe(shown + 1);
  });
});
