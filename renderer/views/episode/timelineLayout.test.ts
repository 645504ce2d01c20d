import { describe, expect, it } from 'vitest';
import { timelineLayout } from './timelineLayout.ts';

const turn = (t: number, model: string, cost: number | null, extra: Partial<{ switched: boolean; high: boolean }> = {}) => ({
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

  it('has every cost known: no gap', () => {
    expect(layout.costGap).toBeNull();
  });

  it('draws no line, no $ axis and says so when the log gives no cost per turn (only an episode total)', () => {
    const totalOnly = timelineLayout([turn(0, 'a', null), turn(1, 'a', null)], 600);
    expect(totalOnly.costLine).toBe('');
    expect(totalOnly.costArea).toBe('');
    expect(totalOnly.costTicks).toEqual([]);
    expect(totalOnly.costGap).toEqual({ x: totalOnly.band(0).x, t: 0, label: 'cost per turn unknown' });
  });

  it('stops the line at the first turn of unknown cost instead of drawing it flat', () => {
    const partial = timelineLayout([turn(4, 'a', 0.1), turn(5, 'a', 0.2), turn(6, 'a', null), turn(7, 'a', null)], 600);
    // M (start at $0) + one point per known turn: the line ends at turn 5's right edge.
    const xs = [...partial.costLine.matchAll(/[ML]([\d.]+),/g)].map((m) => Number(m[1]));
    expect(xs).toHaveLength(3);
    expect(Math.max(...xs)).toBeLessThanOrEqual(partial.band(2).x + 0.001);
    expect(partial.costTicks.length).toBeGreaterThan(0);
    expect(partial.costGap).toMatchObject({ t: 6, x: partial.band(2).x, label: 'cost unknown from turn 6' });
  });

  it('copes with an episode without turns', () => {
    const empty = timelineLayout([], 400);
    expect(empty.marks).toEqual([]);
    expect(empty.costLine).toBe('');
  });
});
