/**
 * Worker-thread entry for the estimator's long jobs (DESIGN §1: heavy work off the UI thread): training
 * (trainPipeline.ts) and scoring a database (scoreDatabase.ts). Messages out: progress, then one `done` or
 * `error` (`user: true` when the input was at fault, so the CLI exits 1 and the window says what to fix).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { TrainingDataError } from './dataset.ts';
import { EncoderError } from './historyEncoder.ts';
import { ProfileError } from './inputProfile.ts';
import { ScorerError } from './scorerError.ts';
import { scoreDatabase } from './scoreDatabase.ts';
import { trainToFile } from './trainPipeline.ts';
import { StoreError } from '../store/storeUrl.ts';
import type { EstimatorTask, WorkerMessage } from './estimatorJobs.ts';

const port = parentPort;
if (!port) throw new Error('estimatorWorker.ts runs only as a worker thread');
const send = (m: WorkerMessage): void => port.postMessage(m);
const task = workerData as EstimatorTask;
const abort = new AbortController();
port.on('message', (m: unknown) => {
  if (m === 'cancel') abort.abort();
});

// No top-level await: the desktop build bundles this file as CommonJS.
async function run(): Promise<void> {
  try {
    if (task.kind === 'train') {
      const outcome = await trainToFile(task.request, (p) => send({ type: 'progress', progress: { kind: 'train', ...p } }));
      send({ type: 'done', result: { kind: 'train', outcome } });
    } else {
      const result = await scoreDatabase(task.dbPath, task.modelPath, {
        ep: task.ep,
        runIds: task.runIds,
        signal: abort.signal,
        onProgress: (p) => send({ type: 'progress', progress: { kind: 'score', ...p } }),
      });
      send({ type: 'done', result: { kind: 'score', result } });
    }
  } catch (e) {
    // A store that does not answer or is not a RouteLens store, and a spill folder that cannot be written (full
    // disk, no permission), are the user's to fix: one line, exit 1.
    const user = e instanceof RangeError || e instanceof ScorerError || e instanceof EncoderError || e instanceof TrainingDataError || e instanceof ProfileError
      || e instanceof StoreError || isFileSystemError(e);
    send({ type: 'error', message: e instanceof Error ? e.message : String(e), user, stack: e instanceof Error ? e.stack : undefined });
  }
}

/** A failed file-system call (Node's errors carry `code` and `syscall`): its message names the path. */
function isFileSystemError(e: unknown): boolean {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && typeof (e as NodeJS.ErrnoException).syscall === 'string';
}

void run();
