/**
 * Estimator jobs (training, scoring) in a worker thread, for the CLI and the window alike. `runEstimatorTask`
 * runs one to completion with progress callbacks; `EstimatorJobs` keeps background jobs the API polls
 * (start → status → cancel), with the epoch history so the window can draw the loss curves as they come.
 *
 * The worker is the TypeScript source under tsx when RouteLens runs from the repository (CLI, serve), and
 * the bundled `estimatorWorker.cjs` beside main.cjs in the desktop build (scripts/build-electron.mjs).
 */
import { startWorker } from '../startWorker.ts';
import type { ProviderChoice } from './ortScoring.ts';
import type { ScoreDatabaseResult, ScoreProgress } from './scoreDatabase.ts';
import type { TrainOutcome, TrainProgress, TrainRequest } from './trainPipeline.ts';
import type { EpochProgress } from './train.ts';

export type EstimatorTask =
  | { kind: 'train'; request: TrainRequest }
  | { kind: 'score'; dbPath: string; modelPath: string; ep?: ProviderChoice; runIds?: number[] };

export type JobProgress = ({ kind: 'train' } & TrainProgress) | ({ kind: 'score' } & ScoreProgress);
export type JobResult = { kind: 'train'; outcome: TrainOutcome } | { kind: 'score'; result: ScoreDatabaseResult };

export type WorkerMessage =
  | { type: 'progress'; progress: JobProgress }
  | { type: 'done'; result: JobResult }
  | { type: 'error'; message: string; user: boolean; stack?: string };

/** The job failed on its input (bad file, no data): the message is for the user. */
export class EstimatorInputError extends Error {}

export interface RunningTask {
  promise: Promise<JobResult>;
  /** Scoring stops after the current batch; training is stopped at once (no partial model is written). */
  cancel(): void;
}

export function runEstimatorTask(task: EstimatorTask, onProgress: (p: JobProgress) => void = () => {}): RunningTask {
  const worker = startWorker('estimatorWorker', new URL('./estimatorWorker.ts', import.meta.url), task);
  let cancelled = false;
  const promise = new Promise<JobResult>((resolve, reject) => {
    let settled = false;
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'progress') onProgress(m.progress);
      else if (m.type === 'done') {
        settled = true;
        resolve(m.result);
        void worker.terminate();
      } else {
        settled = true;
        reject(m.user ? new EstimatorInputError(m.message) : new Error(m.stack ?? m.message));
        void worker.terminate();
      }
    });
    worker.on('error', (e) => {
      if (!settled) reject(e);
      settled = true;
    });
    worker.on('exit', (code) => {
      if (!settled) reject(cancelled ? new EstimatorInputError('cancelled') : new Error(`estimator worker exited with code ${code}`));
      settled = true;
    });
  });
  return {
    promise,
    cancel() {
      cancelled = true;
      if (task.kind === 'score') worker.postMessage('cancel');
      else void worker.terminate();
    },
  };
}

export interface EstimatorJobState {
  job: number;
  kind: 'train' | 'score';
  state: 'running' | 'done' | 'failed' | 'cancelled';
  phase: string;
  fraction: number;
  message: string;
  epochs: Pick<EpochProgress, 'epoch' | 'trainLoss' | 'valMae' | 'bestEpoch'>[];
  provider: string | null;
  rowsPerSec: number | null;
  estimatorId: number | null;
  error: string | null;
}

function describe(p: JobProgress): string {
  if (p.kind === 'score') return `scored ${p.rows.toLocaleString('en-US')} of ${p.total.toLocaleString('en-US')} turns on ${p.provider}, ${Math.round(p.rowsPerSec).toLocaleString('en-US')} turns/s`;
  if (p.phase === 'dataset') return `building training rows: ${p.rows.toLocaleString('en-US')}`;
  if (p.phase === 'training') {
    const last = p.last ? `, last val MAE ${p.last.valMae.toFixed(4)}` : '';
    return `training epoch ${p.epoch} of at most ${p.maxEpochs}${last}`;
  }
  return p.phase === 'exporting' ? 'exporting ONNX' : 'evaluating on held-out episodes';
}

/** Orders the writers of one database (electron/services/writeQueue.ts): a job waits there for its turn. */
export interface WriteTurns {
  run<T>(label: string, task: () => Promise<T>, onWait: (why: string | null) => void, signal: { cancelled: boolean }): Promise<T | undefined>;
}

/**
 * Background estimator jobs of one database, for the API (one at a time: they share two cores). With
 * `turns`, a job first waits behind the database's other writers (an import) in phase `waiting`, saying why.
 */
export class EstimatorJobs {
  private next = 1;
  private readonly jobs = new Map<number, { state: EstimatorJobState; cancel(): void }>();

  constructor(private readonly turns?: WriteTurns) {}

  start(task: EstimatorTask, onDone?: () => void): EstimatorJobState {
    for (const j of this.jobs.values()) {
      if (j.state.state === 'running') throw new EstimatorInputError(`job ${j.state.job} (${j.state.kind}) is still running: wait for it or cancel it`);
    }
    const state: EstimatorJobState = {
      job: this.next++,
      kind: task.kind,
      state: 'running',
      phase: 'starting',
      fraction: 0,
      message: 'starting',
      epochs: [],
      provider: null,
      rowsPerSec: null,
      estimatorId: null,
      error: null,
    };
    const onProgress = (p: JobProgress): void => {
      state.fraction = p.kind === 'score' ? (p.total > 0 ? p.rows / p.total : 1) : p.fraction;
      state.phase = p.kind === 'score' ? 'scoring' : p.phase;
      state.message = describe(p);
      if (p.kind === 'score') {
        state.provider = p.provider;
        state.rowsPerSec = p.rowsPerSec;
      } else if (p.phase === 'training' && p.last && !state.epochs.some((e) => e.epoch === p.last?.epoch)) {
        const { epoch, trainLoss, valMae, bestEpoch } = p.last;
        state.epochs.push({ epoch, trainLoss, valMae, bestEpoch });
      }
    };
    let running: RunningTask | null = null;
    const signal = { cancelled: false };
    const launch = (): Promise<JobResult> => {
      running = runEstimatorTask(task, onProgress);
      return running.promise;
    };
    const onWait = (why: string | null): void => {
      state.phase = why ? 'waiting' : 'starting';
      state.message = why ?? 'starting';
    };
    const promise = this.turns
      ? this.turns.run(`${task.kind} job`, launch, onWait, signal).then((r) => {
          if (r === undefined) throw new EstimatorInputError('cancelled');
          return r;
        })
      : launch();
    promise.then(
      (r) => {
        state.state = 'done';
        state.fraction = 1;
        if (r.kind === 'train') {
          state.estimatorId = r.outcome.estimatorId;
          state.message = `trained: validation MAE ${r.outcome.card.metrics.val_mae.toFixed(4)}`;
        } else {
          state.estimatorId = r.result.estimatorId;
          state.provider = r.result.provider;
          state.rowsPerSec = r.result.rowsPerSec;
          state.state = r.result.cancelled ? 'cancelled' : 'done';
          state.message = `${r.result.cancelled ? 'cancelled after' : 'scored'} ${r.result.rows.toLocaleString('en-US')} turns on ${r.result.provider}`;
        }
        onDone?.();
      },
      (e: unknown) => {
        const cancelled = e instanceof EstimatorInputError && e.message === 'cancelled';
        state.state = cancelled ? 'cancelled' : 'failed';
        state.error = cancelled ? null : e instanceof Error ? e.message.split('\n')[0] ?? e.message : String(e);
        state.message = cancelled ? 'cancelled' : `failed: ${state.error}`;
      },
    );
    const cancel = (): void => {
      signal.cancelled = true;
      (running as RunningTask | null)?.cancel();
    };
    this.jobs.set(state.job, { state, cancel });
    return { ...state, epochs: [...state.epochs] };
  }

  status(job: number): EstimatorJobState | undefined {
    const j = this.jobs.get(job);
    return j ? { ...j.state, epochs: [...j.state.epochs] } : undefined;
  }

  cancel(job: number): EstimatorJobState | undefined {
    const j = this.jobs.get(job);
    if (j && j.state.state === 'running') j.cancel();
    return this.status(job);
  }
}
