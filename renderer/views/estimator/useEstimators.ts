/**
 * The estimators of the open database and the shipped default (`listEstimators`), asked again when the
 * database changed (an import) or an estimator job finished (training registers one, scoring adds ŝ).
 */
import { useEffect, useState } from 'react';
import type { EstimatorList } from '../../../shared/apiEstimator.ts';
import { api, errorMessage } from '../../api/index.ts';
import { useAppStore } from '../../store/index.ts';
import { useEstimatorJob } from './estimatorJobStore.ts';

export function useEstimators(): { list: EstimatorList | null; error: string | null } {
  const finished = useEstimatorJob((s) => s.finished);
  const dataVersion = useAppStore((s) => s.dataVersion);
  const [state, setState] = useState<{ list: EstimatorList | null; error: string | null }>({ list: null, error: null });
  useEffect(() => {
    let live = true;
    api.listEstimators({}).then(
      (list) => live && setState({ list, error: null }),
      (err: unknown) => live && setState((s) => ({ list: s.list, error: errorMessage(err) })),
    );
    return () => {
      live = false;
    };
  }, [finished, dataVersion]);
  return state;
}
