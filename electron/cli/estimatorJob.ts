/** What `train` and `score` share: a worker job's result, with the estimator's input errors told as the user's. */
import { EstimatorInputError, type JobResult } from '../estimator/estimatorJobs.ts';
import { UsageError } from './common.ts';

export const PROVIDERS = ['auto', 'cpu', 'cuda', 'webgpu'] as const;

export async function finish(promise: Promise<JobResult>): Promise<JobResult> {
  try {
    return await promise;
  } catch (e) {
    if (e instanceof EstimatorInputError) throw new UsageError(e.message);
    throw e;
  }
}
