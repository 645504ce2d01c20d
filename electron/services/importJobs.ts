/**
 * Imports started from the UI: the files the user chose or dropped arrive whole (a browser cannot hand
 * over paths), are written under a private temporary folder with their relative layout kept — so sidecars
 * such as `logs/<id>/report.json` still sit beside their trajectories — and go through the same pipeline
 * as `routelens import`. The call returns at once; the UI polls the job for progress and the report.
 *
 * The import writes on a connection of its own, opened for the job and closed after it (issue 16): the
 * API's reads go through another connection and see only committed data, so a file rejected halfway (its
 * transaction rolled back) never shows in a count, even while it is being read. Jobs take their turn in
 * the database's WriteQueue (one writer: imports, score and train jobs), and say what they wait for.
 */
import { rmSync } from 'node:fs';
import { sep } from 'node:path';
import type { ImportJob } from '../../shared/api.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { NotFoundError } from './serviceErrors.ts';
import { removeAbandonedUploads, writeUploads } from './uploadFolder.ts';
import { WriteQueue } from './writeQueue.ts';

export { safeRelativePath, UploadPathError } from './uploadFolder.ts';

const KEEP_FINISHED = 20;

export class ImportJobs {
  private readonly jobs = new Map<number, ImportJob>();
  private nextId = 1;
  private readonly queue: WriteQueue;

  /**
   * `db` is the API's (reading) connection; each job opens `path` for writing. A database in memory cannot
   * be opened twice: its jobs write on `db` itself (tests only).
   */
  constructor(
    private readonly db: Db,
    private readonly path: string = db.name,
    queue?: WriteQueue,
  ) {
    this.queue = queue ?? new WriteQueue(inMemory(db, path) ? null : path);
    // A serve or window killed mid-import left its upload behind; this start is the first chance to remove it.
    removeAbandonedUploads();
  }

  private openWriter(): { writer: Db; close(): void } {
    if (inMemory(this.db, this.path)) return { writer: this.db, close: () => {} };
    const writer = openDatabase(this.path);
    return { writer, close: () => writer.close() };
  }

  start(files: { path: string; data_base64: string }[], run?: string): ImportJob {
    const { root, uploads } = writeUploads(files);
    const job: ImportJob = {
      job: this.nextId++,
      state: 'running',
      progress: { filesDone: 0, filesTotal: files.length, episodes: 0, turns: 0, file: '' },
      report: null,
      error: null,
      waiting: null,
    };
    this.jobs.set(job.job, job);
    const shown = (p: string): string => (p.startsWith(uploads + sep) ? p.slice(uploads.length + 1).split(sep).join('/') : p);
    const work = async (): Promise<void> => {
      const { writer, close } = this.openWriter();
      try {
        job.report = await importPaths(writer, [uploads], {
          runName: run,
          describePath: shown,
          onProgress: (p) => {
            job.progress = { filesDone: p.filesDone, filesTotal: p.filesTotal, episodes: p.episodes, turns: p.turns, file: shown(p.file) };
          },
        });
        job.state = 'done';
      } finally {
        close();
      }
    };
    void this.queue
      .run('import', work, (why) => {
        job.waiting = why;
      })
      .catch((err: unknown) => {
        job.state = 'failed';
        job.error = err instanceof Error ? err.message : String(err);
      })
      .finally(() => {
        job.waiting = null;
        rmSync(root, { recursive: true, force: true });
        this.forgetOld();
      });
    return { ...job };
  }

  status(id: number): ImportJob {
    const job = this.jobs.get(id);
    if (!job) throw new NotFoundError(`no import job ${id}`);
    return structuredClone(job);
  }

  /** Resolves when every queued import has finished (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private forgetOld(): void {
    const finished = [...this.jobs.values()].filter((j) => j.state !== 'running');
    for (const j of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.jobs.delete(j.job);
  }
}

function inMemory(db: Db, path: string): boolean {
  return db.memory || path === '' || path === ':memory:';
}
