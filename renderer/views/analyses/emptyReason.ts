/**
 * The true reason an analysis has nothing to draw, when the result says it (calibration: no estimator, the
 * estimator in use has not scored the runs, the runs' logged models are none of its candidates, or no episode
 * has an outcome). The catalog's fixed sentence is only the fallback: it cannot tell these apart.
 */
import type { AnalysisResponse, CalibrationResult } from '../../../shared/analysisResults.ts';

export interface EmptyReason {
  title: string;
  text: string;
  reason: NonNullable<CalibrationResult['reason']>;
}

const TITLES: Record<EmptyReason['reason'], string> = {
  no_estimator: 'No estimator',
  not_scored: 'Not scored by the estimator in use',
  model_not_candidate: 'The logged models are not candidates',
  no_outcome: 'No outcome to check against',
};

export function emptyReason(response: AnalysisResponse | null): EmptyReason | null {
  if (response?.request.id !== 'calibration') return null;
  const result = response.result as CalibrationResult;
  if (!result.reason || !result.note) return null;
  return { title: TITLES[result.reason], text: result.note, reason: result.reason };
}

/** Calibration's task types the estimator never saw in training: its ŝ there is extrapolation. */
export function extrapolationNote(response: AnalysisResponse | null): string | null {
  if (response?.request.id !== 'calibration') return null;
  const outside = (response.result as CalibrationResult).outside_training ?? [];
  if (outside.length === 0) return null;
  const named = outside.length > 6 ? `${outside.slice(0, 6).join(', ')} and ${outside.length - 6} more task types` : `${outside.join(', ')} tasks`;
  return `Extrapolation: the estimator never saw ${named} in training, so its ŝ on those runs is a guess, not evidence.`;
}
