import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ImportJob } from '../../shared/api.ts';

const job = (state: ImportJob['state'], filesDone: number, report: ImportJob['report'] = null): ImportJob => ({
  job: 7,
  state,
  progress: { filesDone, filesTotal: 2, episodes: filesDone * 3, turns: filesDone * 20, file: filesDone < 2 ? 'a.jsonl' : '' },
  report,
  error: null,
});

const report: ImportJob['report'] = {
  files: [
    { path: 'a.jsonl', status: 'imported', format: 'canonical', episodes: 3, turns: 20, runs: ['my run'] },
    { path: 'b.jsonl', status: 'skipped', format: 'canonical', episodes: 0, turns: 0, reason: 'already imported' },
  ],
  warnings: [],
  modelsAdded: [],
  ignored: [{ path: 'run/report.json', reason: 'sidecar of mini-swe-agent logs (read with the trajectories beside it, not on its own)' }],
};

const calls = vi.hoisted(() => ({ startImport: [] as unknown[], importStatus: 0, listRuns: 0 }));

vi.mock('../api/index.ts', () => ({
  errorMessage: (err: unknown) => (err instanceof Error ? err.message : String(err)),
  api: {
    startImport: async (input: unknown) => {
      calls.startImport.push(input);
      return job('running', 0);
    },
    importStatus: async () => {
      calls.importStatus++;
      return calls.importStatus < 2 ? job('running', 1) : job('done', 2, report);
    },
    dbInfo: async () => ({ path: '/tmp/x.db', runs: 1, episodes: 3, turns: 20, schema_version: 1 }),
    listRuns: async () => {
      calls.listRuns++;
      return [];
    },
    listModels: async () => [],
  },
}));

const { useAppStore } = await import('./index.ts');

afterEach(() => vi.useRealTimers());

describe('an import from the window', () => {
  it('sends the files, polls until the core is done, then refreshes the runs', async () => {
    vi.useFakeTimers();
    const store = useAppStore.getState();
    store.setEpisodeFilters({ search: 'an earlier search' });
    store.openImport({ files: [{ file: new File(['{}\n'], 'a.jsonl'), path: 'run/a.jsonl' }], hidden: 1, unreadable: [] });
    store.setImportRunName('  my run ');
    expect(useAppStore.getState().importHidden).toBe(1);
    const done = useAppStore.getState().runImport();
    await vi.waitFor(() => expect(useAppStore.getState().importPhase.kind).toBe('running'));
    expect(calls.startImport).toEqual([{ files: [{ path: 'run/a.jsonl', data_base64: 'e30K' }], run: 'my run' }]);
    await vi.advanceTimersByTimeAsync(300);
    const phase = useAppStore.getState().importPhase;
    expect(phase.kind === 'running' && phase.job.progress.filesDone).toBe(1);
    await vi.advanceTimersByTimeAsync(300);
    await done;
    const finished = useAppStore.getState().importPhase;
    expect(finished.kind).toBe('finished');
    expect(finished.kind === 'finished' && finished.job.report).toEqual(report);
    expect(calls.importStatus).toBe(2);
    expect(calls.listRuns).toBe(1);
    expect(useAppStore.getState().dataVersion).toBe(1);
    // The run imported into is named for the Runs view, and the search from before no longer hides it.
    expect(useAppStore.getState().importedRuns).toEqual(['my run']);
    expect(useAppStore.getState().episodeFilters.search).toBe('');

    // Closing keeps the report; opening with new files starts over.
    useAppStore.getState().closeImport();
    expect(useAppStore.getState().importPhase.kind).toBe('finished');
    useAppStore.getState().openImport({ files: [{ file: new File(['x'], 'b.jsonl'), path: 'b.jsonl' }], hidden: 0, unreadable: [] });
    expect(useAppStore.getState().importPhase.kind).toBe('choosing');
    expect(useAppStore.getState().importFiles.map((f) => f.path)).toEqual(['b.jsonl']);
    expect(useAppStore.getState().importRunName).toBe('');
  });
});
