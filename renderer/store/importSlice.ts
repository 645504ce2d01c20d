/**
 * Importing logs from the window: the files the user chose or dropped, the dialog, and the job's life —
 * read and encode the files, `startImport`, poll `importStatus` until the core is done, then refresh the
 * session so new runs show without a reload. The job lives here rather than in the dialog, so closing the
 * dialog while the core imports neither loses the report nor the refresh.
 */
import type { StateCreator } from 'zustand';
import type { ImportReport } from '../../shared/api.ts';
import { api, errorMessage } from '../api/index.ts';
import { encodeFiles, uploadProblem } from '../views/import/encodeUpload.ts';
import { mergeFiles } from '../views/import/pickedFiles.ts';
import type { AppStore, ImportPhase, ImportSlice } from './storeShape.ts';

/** How often the dialog asks for progress: often enough to look live; a status call is a map lookup in the core. */
export const IMPORT_POLL_MS = 300;

export function importBusy(phase: ImportPhase): boolean {
  return phase.kind === 'reading' || phase.kind === 'sending' || phase.kind === 'running';
}

/** The runs an import's files went into, first seen first; none when nothing was imported. */
export function importedRunsOf(report: ImportReport | null): string[] {
  const files = report?.files.filter((f) => f.status === 'imported') ?? [];
  return [...new Set(files.flatMap((f) => f.runs ?? []))];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const FRESH = {
  importFiles: [],
  importHidden: 0,
  importUnreadable: [],
  importRunName: '',
  importPhase: { kind: 'choosing' },
} satisfies Partial<ImportSlice>;

export const createImportSlice: StateCreator<AppStore, [], [], ImportSlice> = (set, get) => ({
  importOpen: false,
  importedRuns: [],
  ...FRESH,
  openImport: (picked) => {
    const phase = get().importPhase;
    // While an import runs, the dialog shows it; new files wait for the next one.
    if (importBusy(phase)) return set({ importOpen: true });
    if (phase.kind !== 'choosing') set({ ...FRESH });
    set({ importOpen: true });
    if (picked) get().addImportFiles(picked);
  },
  addImportFiles: (picked) => {
    if (get().importPhase.kind !== 'choosing') return;
    set((s) => ({
      importFiles: mergeFiles(s.importFiles, picked.files),
      importHidden: s.importHidden + picked.hidden,
      importUnreadable: [...s.importUnreadable, ...picked.unreadable],
    }));
  },
  removeImportFile: (path) => set((s) => ({ importFiles: s.importFiles.filter((f) => f.path !== path) })),
  setImportRunName: (name) => set({ importRunName: name }),
  resetImport: (options) => {
    if (importBusy(get().importPhase)) return;
    set(options?.keepFiles ? { importPhase: { kind: 'choosing' } } : { ...FRESH });
  },
  closeImport: () => {
    const phase = get().importPhase;
    // Closing before importing cancels the choice; after (or during) an import, reopening shows its report.
    set(phase.kind === 'choosing' ? { importOpen: false, ...FRESH } : { importOpen: false });
  },
  runImport: async () => {
    const { importFiles: files, importRunName, importPhase } = get();
    if (importPhase.kind !== 'choosing' || files.length === 0 || uploadProblem(files) !== null) return;
    const run = importRunName.trim();
    try {
      const uploads = await encodeFiles(files, (p) => set({ importPhase: { kind: 'reading', ...p } }));
      set({ importPhase: { kind: 'sending', bytes: uploads.reduce((a, u) => a + u.data_base64.length, 0) } });
      let job = await api.startImport({ files: uploads, run: run === '' ? undefined : run });
      set({ importPhase: { kind: 'running', job } });
      while (job.state === 'running') {
        await sleep(IMPORT_POLL_MS);
        job = await api.importStatus({ job: job.job });
        set({ importPhase: { kind: 'running', job } });
      }
      let refreshError: string | null = null;
      try {
        await get().refreshSession();
      } catch (err) {
        refreshError = errorMessage(err);
      }
      const importedRuns = importedRunsOf(job.report);
      set({ importPhase: { kind: 'finished', job, refreshError }, ...(importedRuns.length > 0 ? { importedRuns } : {}) });
      // A search typed before would hide what was just imported from the Episodes view.
      if (importedRuns.length > 0) get().setEpisodeFilters({ search: '' });
    } catch (err) {
      set({ importPhase: { kind: 'failed', message: errorMessage(err) } });
    }
  },
});
