// The Estimator view's job: started, polled until it ends, then the session refreshed so figures ask again;
// cancel asks the core; a refused start says why. The API transport is replaced (the core's jobs are tested
// in electron/ and in e2e/estimator.spec.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EstimatorJob } from '../../../shared/apiEstimator.ts';

const job = (state: EstimatorJob['state'], fraction: number, extra: Partial<EstimatorJob> = {}): EstimatorJob => ({
  job: 3,
  kind: 'score',
  state,
  phase: 'scoring',
  fraction,
  message: `scored ${Math.round(fraction * 100)} turns on cpu`,
  epochs: [],
  provider: 'cpu',
  rowsPerSec: 1200,
  estimatorId: 1,
  error: null,
  ...extra,
});

const calls = vi.hoisted(() => ({ start: [] as unknown[], status: 0, cancel: 0, listRuns: 0, refuse: false }));

vi.mock('../../api/index.ts', () => ({
  errorMessage: (err: unknown) => (err instanceof Error ? err.message : String(err)),
  api: {
    startEstimatorJob: async (input: unknown) => {
      if (calls.refuse) throw new Error('job 3 (score) is still running: wait for it or cancel it');
      calls.start.push(input);
      return job('running', 0);
    },
    estimatorJobStatus: async () => {
      calls.status++;
      return calls.status < 3 ? job('running', calls.status / 3) : job('done', 1, { message: 'scored 100 turns on cpu' });
    },
    cancelEstimatorJob: async () => {
      calls.cancel++;
      return job('running', 0.5);
    },
    dbInfo: async () => ({ path: '/tmp/x.db', runs: 1, episodes: 3, turns: 100, schema_version: 2 }),
    listRuns: async () => {
      calls.listRuns++;
      return [];
    },
    listModels: async () => [],
  },
}));

const { useEstimatorJob, POLL_MS } = await import('./estimatorJobStore.ts');
const { useAppStore } = await import('../../store/index.ts');

afterEach(() => vi.useRealTimers());

describe('an estimator job from the window', () => {
  it('polls until the job ends, then refreshes the session so views ask again', async () => {
    vi.useFakeTimers();
    const version = useAppStore.getState().dataVersion;
    await useEstimatorJob.getState().start({ kind: 'score', runIds: [4] });
    expect(calls.start).toEqual([{ kind: 'score', runIds: [4] }]);
    expect(useEstimatorJob.getState().job?.state).toBe('running');
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(useEstimatorJob.getState().job?.fraction).toBeCloseTo(1 / 3);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(useEstimatorJob.getState().job).toMatchObject({ state: 'done', provider: 'cpu', message: 'scored 100 turns on cpu' });
    expect(useEstimatorJob.getState().finished).toBe(1);
    expect(calls.listRuns).toBe(1);
    expect(useAppStore.getState().dataVersion).toBe(version + 1);
    // No more polling once it ended.
    await vi.advanceTimersByTimeAsync(POLL_MS * 5);
    expect(calls.status).toBe(3);
  });

  it('cancel asks the core only while the job runs; a refused start says why; dismiss clears an ended job', async () => {
    await useEstimatorJob.getState().cancel();
    expect(calls.cancel).toBe(0);
    useEstimatorJob.getState().dismiss();
    expect(useEstimatorJob.getState().job).toBeNull();

    calls.refuse = true;
    await useEstimatorJob.getState().start({ kind: 'train', maxEpochs: 1 });
    expect(useEstimatorJob.getState().error).toMatch(/still running/);
    calls.refuse = false;

    vi.useFakeTimers();
    calls.status = 0;
    await useEstimatorJob.getState().start({ kind: 'score' });
    await useEstimatorJob.getState().cancel();
    expect(calls.cancel).toBe(1);
    useEstimatorJob.getState().dismiss();
    // A running job is not dismissed.
    expect(useEstimatorJob.getState().job?.state).toBe('running');
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
    expect(useEstimatorJob.getState().job?.state).toBe('done');
  });
});

describe('a training job’s axis', () => {
  it('keeps the epochs it was started with after it ends, until another job starts', async () => {
    vi.useFakeTimers();
    calls.status = 0;
    await useEstimatorJob.getState().start({ kind: 'train', maxEpochs: 4 });
    expect(useEstimatorJob.getState().maxEpochs).toBe(4);
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
    expect(useEstimatorJob.getState().job?.state).toBe('done');
    expect(useEstimatorJob.getState().maxEpochs).toBe(4);
    await useEstimatorJob.getState().start({ kind: 'score' });
    expect(useEstimatorJob.getState().maxEpochs).toBeNull();
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
  });
});

describe('jobStage', () => {
  it('names the phase while the job runs and nothing once it has ended', async () => {
    const { jobStage } = await import('./estimatorJobStore.ts');
    expect(jobStage(job('running', 0.5))).toBe('phase: scoring');
    expect(jobStage(job('done', 1))).toBeNull();
    expect(jobStage(job('cancelled', 0.3))).toBeNull();
  });
});
