/**
 * The policy lab's state, in its own small zustand store so it survives a trip to the inspector (a click on
 * a disagreement) and back. `replay` and `policyDiff` are single calls that answer when the work is done:
 * progress is the elapsed time, and Cancel drops the answer (the core finishes the call; nothing waits on it).
 * Each call carries a ticket, so an answer that comes back after a cancel or a newer call is ignored.
 */
import { create } from 'zustand';
import type { PolicyDiffInput, PolicyDiffResult, ReplayResult } from '../../../shared/apiReplay.ts';
import { api, errorMessage } from '../../api/index.ts';
import type { ScoreEstimator } from './policyResults.ts';

export type CallPhase<T> =
  | { kind: 'idle' }
  | { kind: 'running'; startedAt: number; ticket: number }
  | { kind: 'done'; value: T; runIds: number[] }
  | { kind: 'failed'; message: string }
  | { kind: 'cancelled' };

export type DiffMode = 'policies' | 'runs';

export interface PolicyLabState {
  policies: string[];
  estimator: ScoreEstimator;
  replay: CallPhase<ReplayResult>;
  diffMode: DiffMode;
  diffA: string;
  diffB: string;
  /** Run ids as strings ('' = none chosen yet). */
  diffRunA: string;
  diffRunB: string;
  diff: CallPhase<PolicyDiffResult>;
  setPolicies(policies: string[]): void;
  setEstimator(estimator: ScoreEstimator): void;
  setDiff(patch: Partial<Pick<PolicyLabState, 'diffMode' | 'diffA' | 'diffB' | 'diffRunA' | 'diffRunB'>>): void;
  runReplay(runIds: number[]): Promise<void>;
  cancelReplay(): void;
  runDiff(input: PolicyDiffInput, runIds: number[]): Promise<void>;
  cancelDiff(): void;
}

/** Bootstrap resamples asked of the core: 500 keeps a 3-policy replay of a few thousand episodes to seconds. */
export const BOOTSTRAP = 500;

let tickets = 0;

export const usePolicyLab = create<PolicyLabState>()((set, get) => ({
  policies: ['logged', 'argmax', 'cheapest'],
  estimator: 'best',
  replay: { kind: 'idle' },
  diffMode: 'policies',
  diffA: 'logged',
  diffB: 'argmax',
  diffRunA: '',
  diffRunB: '',
  diff: { kind: 'idle' },
  setPolicies: (policies) => set({ policies }),
  setEstimator: (estimator) => set({ estimator }),
  setDiff: (patch) => set(patch),
  runReplay: async (runIds) => {
    const ticket = ++tickets;
    set({ replay: { kind: 'running', startedAt: Date.now(), ticket } });
    const current = () => {
      const phase = get().replay;
      return phase.kind === 'running' && phase.ticket === ticket;
    };
    try {
      const value = await api.replay({ runIds, policies: get().policies, bootstrap: BOOTSTRAP });
      if (current()) set({ replay: { kind: 'done', value, runIds } });
    } catch (err) {
      if (current()) set({ replay: { kind: 'failed', message: errorMessage(err) } });
    }
  },
  cancelReplay: () => {
    if (get().replay.kind === 'running') set({ replay: { kind: 'cancelled' } });
  },
  runDiff: async (input, runIds) => {
    const ticket = ++tickets;
    set({ diff: { kind: 'running', startedAt: Date.now(), ticket } });
    const current = () => {
      const phase = get().diff;
      return phase.kind === 'running' && phase.ticket === ticket;
    };
    try {
      const value = await api.policyDiff(input);
      if (current()) set({ diff: { kind: 'done', value, runIds } });
    } catch (err) {
      if (current()) set({ diff: { kind: 'failed', message: errorMessage(err) } });
    }
  },
  cancelDiff: () => {
    if (get().diff.kind === 'running') set({ diff: { kind: 'cancelled' } });
  },
}));
