/**
 * The estimators of the open database, the shipped default and the one in use (`listEstimators`, kept in the
 * store's estimator slice so every view reads one answer), asked again when the database changed (an import,
 * a new estimator in use) or an estimator job finished (training registers one, scoring adds ŝ).
 */
import { useEffect } from 'react';
import type { EstimatorList } from '../../../shared/apiEstimator.ts';
import { useAppStore } from '../../store/index.ts';
import { useEstimatorJob } from './estimatorJobStore.ts';

export function useEstimators(): { list: EstimatorList | null; error: string | null } {
  const finished = useEstimatorJob((s) => s.finished);
  const dataVersion = useAppStore((s) => s.dataVersion);
  const list = useAppStore((s) => s.estimators);
  const error = useAppStore((s) => s.estimatorsError);
  const load = useAppStore((s) => s.loadEstimators);
  useEffect(() => {
    void load(`${dataVersion}:${String(finished)}`);
  }, [finished, dataVersion, load]);
  return { list, error };
}
