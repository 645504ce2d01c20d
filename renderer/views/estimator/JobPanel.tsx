/**
 * The running (or last) estimator job: phase, progress bar, what the core says it is doing, the loss curves
 * as epochs finish (training), the execution provider and turns/s (scoring), and Cancel.
 */
import type { EstimatorJob } from '../../../shared/apiEstimator.ts';
import { formatCount } from '../../format/numbers.ts';
import { jobStage, useEstimatorJob } from './estimatorJobStore.ts';
import { LossCurves } from './LossCurves.tsx';

const STATE_LABEL: Record<EstimatorJob['state'], string> = { running: 'Running', done: 'Done', failed: 'Failed', cancelled: 'Cancelled' };

export function JobPanel() {
  const job = useEstimatorJob((s) => s.job);
  // The axis the training was started with, not the epochs box's value now (typed since, or reset on reopening).
  const maxEpochs = useEstimatorJob((s) => s.maxEpochs) ?? undefined;
  const error = useEstimatorJob((s) => s.error);
  const cancel = useEstimatorJob((s) => s.cancel);
  const dismiss = useEstimatorJob((s) => s.dismiss);
  if (!job && !error) return null;
  return (
    <section className="card est-job" data-testid="estimator-job" data-state={job?.state ?? 'error'} data-kind={job?.kind} data-phase={job?.phase}>
      <header className="est-job-head">
        <h2>{job ? (job.kind === 'train' ? 'Training' : 'Scoring') : 'Estimator job'}</h2>
        {job && <span className={`tag est-state-${job.state}`}>{STATE_LABEL[job.state]}</span>}
        {job && jobStage(job) && (
          <span className="faint" data-testid="job-stage">
            {jobStage(job)}
          </span>
        )}
        <div className="toolbar-spacer" />
        {job?.state === 'running' ? (
          <button type="button" className="btn" onClick={() => void cancel()} data-testid="job-cancel">
            Cancel
          </button>
        ) : (
          <button type="button" className="btn btn-ghost" onClick={dismiss} data-testid="job-dismiss">
            Dismiss
          </button>
        )}
      </header>
      {error && (
        <p className="est-error" role="alert" data-testid="job-error">
          {error}
        </p>
      )}
      {job && (
        <>
          <div className="est-progress-row">
            <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(job.fraction * 100)} aria-label="Job progress">
              <span style={{ width: `${Math.min(100, job.fraction * 100)}%` }} />
            </div>
            <span className="num faint">{Math.round(job.fraction * 100)}%</span>
          </div>
          <p className="est-job-message" data-testid="job-message" aria-live="polite">
            {job.error ? `Failed: ${job.error}` : job.message}
          </p>
          {job.kind === 'score' && job.provider && (
            <p className="est-provider" data-testid="job-provider" data-provider={job.provider}>
              ONNX Runtime on <strong>{job.provider}</strong>
              {job.rowsPerSec !== null && <span className="faint"> · {formatCount(Math.round(job.rowsPerSec))} turns/s</span>}
            </p>
          )}
          {job.kind === 'train' && (job.epochs.length > 0 || job.phase === 'training') && (
            <LossCurves epochs={job.epochs} maxEpochs={maxEpochs} testId="job-loss-curves" />
          )}
        </>
      )}
    </section>
  );
}
