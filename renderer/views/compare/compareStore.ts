/**
 * The Compare view's state, in its own small zustand store (as the policy lab's) so the form, the result,
 * the table's sort and filter survive a trip to the split inspector and back. A call carries a ticket: an
 * answer that comes back after a newer call is ignored.
 */
import type { SortingState } from '@tanstack/react-table';
import { create } from 'zustand';
import type { CompareInput, CompareResult } from '../../../shared/apiCompare.ts';
import { api, errorMessage } from '../../api/index.ts';
import type { CallPhase } from '../policy/policyLabStore.ts';
import { EMPTY_SIDE, type SideDraft } from './compareForm.ts';
import type { TaskFilter } from './taskFilter.ts';

export interface CompareState {
  a: SideDraft;
  b: SideDraft;
  /** '' = no counterfactual column. */
  counterfactual: string;
  call: CallPhase<CompareResult>;
  /** The input of the result shown, to tell when the form has moved on. */
  shownInput: string | null;
  /** That input itself: a figure's export asks the core for the same comparison. */
  shownRequest: CompareInput | null;
  filter: TaskFilter;
  sorting: SortingState;
  setSide(side: 'a' | 'b', patch: Partial<SideDraft>): void;
  swap(): void;
  setCounterfactual(model: string): void;
  setFilter(filter: TaskFilter): void;
  setSorting(sorting: SortingState): void;
  run(input: CompareInput): Promise<void>;
  /** Drops the answer of the call under way (the core finishes it; nothing waits on it). */
  cancel(): void;
}

let tickets = 0;

export const useCompare = create<CompareState>()((set, get) => ({
  a: EMPTY_SIDE,
  b: EMPTY_SIDE,
  counterfactual: '',
  call: { kind: 'idle' },
  shownInput: null,
  shownRequest: null,
  filter: 'all',
  sorting: [],
  setSide: (side, patch) => set({ [side]: { ...get()[side], ...patch } }),
  swap: () => set({ a: get().b, b: get().a }),
  setCounterfactual: (counterfactual) => set({ counterfactual }),
  setFilter: (filter) => set({ filter }),
  setSorting: (sorting) => set({ sorting }),
  run: async (input) => {
    const ticket = ++tickets;
    set({ call: { kind: 'running', startedAt: Date.now(), ticket } });
    const current = () => {
      const phase = get().call;
      return phase.kind === 'running' && phase.ticket === ticket;
    };
    try {
      const value = await api.compare(input);
      if (current()) set({ call: { kind: 'done', value, runIds: [...input.a.runIds, ...input.b.runIds] }, shownInput: JSON.stringify(input), shownRequest: input });
    } catch (err) {
      if (current()) set({ call: { kind: 'failed', message: errorMessage(err) } });
    }
  },
  cancel: () => {
    if (get().call.kind === 'running') set({ call: { kind: 'cancelled' } });
  },
}));
