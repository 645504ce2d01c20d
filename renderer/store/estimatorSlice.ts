/**
 * The one estimator in use (issue 17 item 7), as the window knows it: the database's estimators and which
 * one is in use (`listEstimators`), and the one action that changes it. The choice itself is a setting of the
 * database (electron/estimator/inUse.ts), so serve, the desktop window and the CLI agree; this slice only
 * mirrors it, so what-if, the step debugger, calibration and the policy lab all read the same answer and a
 * pick in any of them shows in the others at once.
 */
import type { StateCreator } from 'zustand';
import type { EstimatorList, EstimatorSummary } from '../../shared/apiEstimator.ts';
import type { EstimatorDomain } from '../../shared/estimatorDomain.ts';
import { api, errorMessage } from '../api/index.ts';
import type { AppStore, EstimatorSlice } from './storeShape.ts';

let asked: string | null = null;

export const createEstimatorSlice: StateCreator<AppStore, [], [], EstimatorSlice> = (set, get) => ({
  estimators: null,
  estimatorsError: null,
  estimatorsFor: null,
  estimatorChoiceError: null,
  loadEstimators: async (forKey) => {
    // Every view that shows ŝ asks on mount: one call per database state is enough.
    if (asked === forKey || get().estimatorsFor === forKey) return;
    asked = forKey;
    try {
      const list = await api.listEstimators({});
      if (asked === forKey) set({ estimators: list, estimatorsError: null, estimatorsFor: forKey });
    } catch (err) {
      if (asked === forKey) {
        asked = null;
        set({ estimatorsError: errorMessage(err) });
      }
    }
  },
  chooseEstimator: async (pick) => {
    try {
      const list = await api.setEstimatorInUse(pick);
      set({ estimators: list, estimatorChoiceError: null });
    } catch (err) {
      set({ estimatorChoiceError: errorMessage(err) });
    }
  },
});

/** The estimator in use, from the list (null: none yet, or not listed yet). */
export function inUseOf(list: EstimatorList | null): EstimatorSummary | null {
  const id = list?.in_use?.id;
  return id === undefined ? null : (list?.estimators.find((e) => e.id === id) ?? null);
}

/** The training domain of an estimator of the list, by id (null: unknown, e.g. no card). */
export function domainOfEstimator(list: EstimatorList | null, id: number | null | undefined): EstimatorDomain | null {
  if (id === null || id === undefined) return null;
  return list?.estimators.find((e) => e.id === id)?.domain ?? null;
}
