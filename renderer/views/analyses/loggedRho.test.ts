// The usage-ratio page's ρ control starts from the targets the runs' logs state (issue 35 item 8).
import { describe, expect, it } from 'vitest';
import { rhoStatedByRuns } from './loggedRho.ts';

describe('the ρ the runs’ logs state', () => {
  it('is each model’s target where every run stating one agrees', () => {
    const rho = rhoStatedByRuns([
      { logged_rho: { 'gpt-5': 0.25, 'deepseek-v3.2': 0.5 } },
      {},
      // Model names are log text: one named __proto__ is a model like any other.
      { logged_rho: JSON.parse('{"gpt-5":0.25,"deepseek-v3.2":0.4,"__proto__":0.1}') as Record<string, number> },
    ]);
    expect(Object.entries(rho).sort()).toEqual([['__proto__', 0.1], ['gpt-5', 0.25]]);
  });

  it('is none when no run states one', () => {
    expect(rhoStatedByRuns([{}, {}])).toEqual({});
  });
});
