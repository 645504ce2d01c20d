import { describe, expect, it } from 'vitest';
import { onlyEpisodeTotal, unknownCumulativeTitle, unknownTurnCostTitle } from './unknownCost.ts';

describe('why a cost is unknown', () => {
  it('names the episode total when the log gives only that (SWE-agent, Uno)', () => {
    // As the writer stores it: a total, and no unpriced turn counted against it.
    const ep = { total_cost: 0.01952, unpriced_turns: 0 };
    expect(onlyEpisodeTotal(ep)).toBe(true);
    expect(unknownTurnCostTitle(ep)).toBe("Unknown: this log gives only the episode's total, $0.0195");
    expect(unknownCumulativeTitle(ep, [{ t: 0, cost: null }])).toBe(unknownTurnCostTitle(ep));
  });
  it('says no cost and no price otherwise, and from which turn a running total is unknown', () => {
    const ep = { total_cost: null, unpriced_turns: 1 };
    expect(onlyEpisodeTotal(ep)).toBe(false);
    expect(onlyEpisodeTotal(null)).toBe(false);
    expect(unknownTurnCostTitle(ep)).toBe('Unknown: no cost logged and no price known for this model');
    expect(unknownCumulativeTitle(ep, [{ t: 3, cost: 0.1 }, { t: 4, cost: null }])).toBe(
      'Unknown: the cost of turn 4 is unknown, so no running total from there on',
    );
  });
});
