/**
 * The Compare form as the user fills it (runs and an optional field split per side, a counterfactual model)
 * and the `compare` input it makes. A mistake (no run on a side, a split without a value) is one line that
 * says what to do, and no call is made.
 */
import type { CompareField, CompareInput, CompareSide } from '../../../shared/apiCompare.ts';

export interface SideDraft {
  runIds: number[];
  /** '' = the whole runs, no split. */
  field: CompareField | '';
  value: string;
}

export const EMPTY_SIDE: SideDraft = { runIds: [], field: '', value: '' };

export const FIELD_LABELS: Record<CompareField, string> = {
  model: 'main model',
  policy: 'policy',
  budget_mode: 'budget mode',
  split: 'split',
};

/** Bootstrap replicates for the score and cost intervals: the contract's default, seeded, so a result repeats. */
export const COMPARE_BOOTSTRAP = 2000;

export type FormCheck = { ok: true; input: CompareInput } | { ok: false; message: string };

function side(draft: SideDraft, letter: 'A' | 'B'): CompareSide | string {
  if (draft.runIds.length === 0) return `Choose at least one run for ${letter}.`;
  if (draft.field === '') return { runIds: draft.runIds };
  const value = draft.value.trim();
  if (value === '') return `Give the ${FIELD_LABELS[draft.field]} that ${letter} keeps, or choose “whole runs”.`;
  return { runIds: draft.runIds, where: { field: draft.field, value } };
}

export function compareInput(a: SideDraft, b: SideDraft, counterfactual: string): FormCheck {
  const sa = side(a, 'A');
  if (typeof sa === 'string') return { ok: false, message: sa };
  const sb = side(b, 'B');
  if (typeof sb === 'string') return { ok: false, message: sb };
  if (JSON.stringify(sa) === JSON.stringify(sb)) return { ok: false, message: 'A and B are the same episodes: change the runs or the split of one side.' };
  return {
    ok: true,
    input: { a: sa, b: sb, bootstrap: COMPARE_BOOTSTRAP, ...(counterfactual ? { counterfactual_model: counterfactual } : {}) },
  };
}
