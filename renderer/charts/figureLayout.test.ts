import { describe, expect, it } from 'vitest';
import type { AnalysisResponse } from '../../shared/analysisResults.ts';
import { countItems, layoutFigure, layoutOffThread, WORKER_THRESHOLD_ITEMS } from './figureLayout.ts';

const switchCost = (episodes: number): AnalysisResponse => ({
  request: { id: 'switch-cost' },
  result: {
    runs: [
      {
        run: 'a',
        episodes: Array.from({ length: episodes }, (_, i) => ({ episode: `e${i}`, switches: i % 4, cost: 0.01 * (i % 7), turns: 5 })),
        mean_cumulative_cost: [{ t: 0, mean: 0.01, n: episodes }],
      },
    ],
  },
});

describe('where a figure is laid out', () => {
  it('counts the data items of a result, nested, and stops counting past the cap', () => {
    expect(countItems({ a: [1, 2, 3], b: { c: [[1, 2], [3]] } })).toBe(2 + 3 + 1 + 2 + 2 + 1);
    // result → runs → run → episodes (1,000 × 4 fields) and mean_cumulative_cost (1 × 3 fields)
    expect(countItems(switchCost(1000).result)).toBe(1 + 1 + 3 + 1000 + 1000 * 4 + 1 + 3);
    // Past the cap it stops walking: the 100,000 episodes are counted, their 400,000 fields are not.
    expect(countItems(switchCost(100_000).result, 500)).toBe(1 + 1 + 3 + 100_000);
  });

  it('sends big results to the worker and keeps small ones here', () => {
    expect(layoutOffThread(switchCost(100))).toBe(false);
    expect(layoutOffThread(switchCost(WORKER_THRESHOLD_ITEMS))).toBe(true);
  });

  it('lays out with the app theme and the models’ palette colours', () => {
    const scene = layoutFigure({ response: { request: { id: 'pareto' }, result: { reference: null, points: [] } }, width: 640, theme: 'dark', models: [] });
    expect(scene.width).toBe(640);
    expect(scene.background).toBe('#16191d');
  });
});
