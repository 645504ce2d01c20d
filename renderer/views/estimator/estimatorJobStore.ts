/**
 * The Estimator view's background job (training or scoring): started on the core, polled every 400 ms until
 * it ends, cancellable. Held outside the view so leaving the view and coming back finds the job still
 * shown (and still polled). When a job ends the session is refreshed, which bumps `dataVersion`: figures,
 * what-ifs and the step debugger then ask again and see the new ŝ.
 */
import { create } from 'zustand';
import type { EstimatorJob, EstimatorJobInput } from '../../../shared/apiEstimator.ts';
import { api, errorMessage } from '../../api/index.ts';
import { useAppStore } from '../../store/index.ts';

export const POLL_MS = 400;

interface EstimatorJobStore {
  job: EstimatorJob | null;
  /** Starting or polling failed (the core said why). */
  error: string | null;
  /** Bumped when a job ends, so the view re-reads the estimators. */
  finished: number;
  /**
   * The most epochs the shown training was started with (null: not a training, or the core's default): its loss
   * curves keep that axis after it ends, whatever the view's epochs box says later or when the view opens again.
   */
  maxEpochs: number | null;
  start(input: EstimatorJobInput): Promise<void>;
  cancel(): Promise<void>;
  dismiss(): void;
}

let timer: ReturnType<typeof setTimeout> | null = null;

export const useEstimatorJob = create<EstimatorJobStore>()((set, get) => {
  const poll = async (id: number): Promise<void> => {
    timer = null;
    try {
      const job = await api.estimatorJobStatus({ job: id });
      if (get().job?.job !== id) return;
      set({ job });
      if (job.state === 'running') {
        timer = setTimeout(() => void poll(id), POLL_MS);
        return;
      }
      set({ finished: get().finished + 1 });
      await useAppStore.getState().refreshSession().catch(() => undefined);
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  };
  return {
    job: null,
    error: null,
    finished: 0,
    maxEpochs: null,
    start: async (input) => {
      set({ error: null });
      try {
        const job = await api.startEstimatorJob(input);
        set({ job, maxEpochs: input.kind === 'train' ? (input.maxEpochs ?? null) : null });
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => void poll(job.job), POLL_MS);
      } catch (err) {
        set({ error: errorMessage(err) });
      }
    },
    cancel: async () => {
      const job = get().job;
      if (!job || job.state !== 'running') return;
      try {
        set({ job: await api.cancelEstimatorJob({ job: job.job }) });
      } catch (err) {
        set({ error: errorMessage(err) });
      }
    },
    dismiss: () => {
      if (get().job?.state === 'running') return;
      set({ job: null, error: null });
    },
  };
});

/**
 * The phase the job's header names beside its state, while it runs; none once it has ended, when the state
 * alone says how ("Done", not "Done · phase: scoring", which read as still going).
 */
export function jobStage(job: Pick<EstimatorJob, 'state' | 'phase'>): string | null {
  return job.state === 'running' ? `phase: ${job.phase}` : null;
}
