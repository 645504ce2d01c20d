import { afterEach, describe, expect, it, vi } from 'vitest';

/** Each replay call waits until the test resolves it, so the order of answers is the test's to choose. */
const pending = vi.hoisted(() => [] as { input: unknown; resolve(value: unknown): void; reject(err: Error): void }[]);

vi.mock('../../api/index.ts', () => ({
  errorMessage: (err: unknown) => (err instanceof Error ? err.message : String(err)),
  api: {
    replay: (input: unknown) => new Promise((resolve, reject) => pending.push({ input, resolve, reject })),
    policyDiff: (input: unknown) => new Promise((resolve, reject) => pending.push({ input, resolve, reject })),
  },
}));

const { usePolicyLab } = await import('./policyLabStore.ts');

const answer = (tag: string) => ({ runs: [], policies: [], tag });

afterEach(() => {
  pending.length = 0;
  usePolicyLab.setState({ replay: { kind: 'idle' }, diff: { kind: 'idle' } });
});

describe('the policy lab’s calls', () => {
  it('sends the chosen policies over the selected runs and keeps the answer with those runs', async () => {
    usePolicyLab.getState().setPolicies(['logged', 'cheapest']);
    const done = usePolicyLab.getState().runReplay([3, 5]);
    expect(usePolicyLab.getState().replay.kind).toBe('running');
    expect(pending[0]?.input).toEqual({ runIds: [3, 5], policies: ['logged', 'cheapest'], bootstrap: 500 });
    pending[0]?.resolve(answer('a'));
    await done;
    expect(usePolicyLab.getState().replay).toEqual({ kind: 'done', value: answer('a'), runIds: [3, 5] });
  });

  it('drops an answer that arrives after Cancel', async () => {
    const done = usePolicyLab.getState().runReplay([]);
    usePolicyLab.getState().cancelReplay();
    pending[0]?.resolve(answer('late'));
    await done;
    expect(usePolicyLab.getState().replay.kind).toBe('cancelled');
  });

  it('shows the newest call’s answer even when an older one answers last', async () => {
    const first = usePolicyLab.getState().runReplay([1]);
    const second = usePolicyLab.getState().runReplay([2]);
    pending[1]?.resolve(answer('new'));
    await second;
    pending[0]?.resolve(answer('old'));
    await first;
    const phase = usePolicyLab.getState().replay;
    expect(phase.kind === 'done' && phase.runIds).toEqual([2]);
  });

  it('says why a call failed', async () => {
    const done = usePolicyLab.getState().runDiff({ kind: 'policies', a: 'logged', b: 'argmax' }, []);
    pending[0]?.reject(new Error('argmax needs ŝ'));
    await done;
    expect(usePolicyLab.getState().diff).toEqual({ kind: 'failed', message: 'argmax needs ŝ' });
  });
});
