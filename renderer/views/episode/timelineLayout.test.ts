import { describe, expect, it } from 'vitest';
import { timelineLayout } from './timelineLayout.ts';

const turn = (t: number, model: string, cost: number, extra: Partial<{ switched: boolean; high: boolean }> = {}) => ({
  t,
  model,
  switched: extra.switched ?? false,
  errors: extra.high ? [{ type: 'python_traceback', severity: 'high' as const, source: 'rule' as const }] : [],
  max_severity: extra.high ? ('high' as const) : null,
  cumulative_cost: cost,
});

describe('timeline layout', () => {
  const turns = [turn(0, 'a', 0.1), turn(1, 'b', 0.3, { switched: true, high: true }), turn(2, 'b', 0.35)];
  const layout = timelineLayout(turns, 600);

  it('gives one band per turn, left to right, inside the plot', () => {
    expect(layout.marks.map((m) => m.model)).toEqual(['a', 'b', 'b']);
    const xs = layout.marks.map((m) => m.x);
    expect(xs).toEqual([...xs].sort((p, q) => p - q));
    expect(xs[0]).toBeGreaterThanOrEqual(layout.plot.left);
    const last = layout.marks[2];
    expect(last && last.x + last.width).toBeLessThanOrEqual(layout.plot.right + 0.001);
  });

  it('marks switches and errors at their turns', () => {
    expect(layout.switches).toEqual([{ t: 1, x: layout.band(1).x, from: 'a', to: 'b' }]);
    expect(layout.errors.map((e) => [e.t, e.severity])).toEqual([[1, 'high']]);
  });

  it('draws the cumulative cost rising to its maximum at the plot top or below', () => {
    expect(layout.costLine.startsWith('M')).toBe(true);
    const top = Math.min(...layout.costTicks.map((t) => t.y));
    expect(top).toBeGreaterThanOrEqual(layout.plot.top - 0.001);
  });

  it('copes with an episode without turns', () => {
    const empty = timelineLayout([], 400);
    expect(empty.marks).toEqual([]);
    expect(empty.costLine).toBe('');
  });
});
