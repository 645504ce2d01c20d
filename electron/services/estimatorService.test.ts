// Training started from the window (startEstimatorJob, as the Train button sends it): the form's epoch limit and
// early-stop patience reach the trainer, and the job registers the estimator it wrote.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { EstimatorJob } from '../../shared/apiEstimator.ts';
import { simulatedDb } from '../estimator/simulatedDb.testSupport.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { estimatorServices } from './estimatorService.ts';

const tempDir = useSuiteTempDir();

async function ended(api: ReturnType<typeof estimatorServices>, job: EstimatorJob): Promise<EstimatorJob> {
  let s = job;
  while (s.state === 'running') {
    await sleep(25);
    s = await api.estimatorJobStatus({ job: job.job });
  }
  return s;
}

describe('training jobs from the window', () => {
  it('stop after the patience the form gives, not the default of 3', async () => {
    const { db, path } = await simulatedDb(tempDir(), 'scienceworld', 40);
    try {
      const api = estimatorServices(db, path);
      const s = await ended(api, await api.startEstimatorJob({ kind: 'train', runs: ['sw-random', 'sw-mtrouter'], maxEpochs: 200, patience: 1 }));
      expect(s.state, s.error ?? '').toBe('done');
      const last = s.epochs.at(-1)!;
      expect(s.epochs.length).toBeLessThan(200);
      expect(last.epoch - last.bestEpoch).toBe(1);
      const listed = (await api.listEstimators({})).estimators.find((e) => e.id === s.estimatorId);
      expect(listed?.card?.config.maxEpochs).toBe(200);
      expect(listed?.card?.config.patience).toBe(1);
      expect(listed?.card?.metrics.stopped).toBe('early');
    } finally {
      db.close();
    }
  }, 120_000);
});
