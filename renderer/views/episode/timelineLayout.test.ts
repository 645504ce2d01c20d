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

  it('places bands as the band scale would: a lone turn centred, many edge to edge', () => {
    const one = timelineLayout([turn(0, 'a', 0.1)], 600);
    const b = one.band(0);
    expect(b.x - one.plot.left).toBeCloseTo(one.plot.right - (b.x + b.width), 9);
    const many = timelineLayout(Array.from({ length: 300 }, (_, t) => turn(t, 'a', t)), 600);
    expect(many.turnsPerColumn).toBe(1);
    expect(many.band(0).x).toBe(many.plot.left);
    expect(many.band(299).x + many.band(299).width).toBeCloseTo(many.plot.right, 9);
  });
});

describe('timeline layout of more turns than pixels', () => {
  // 200,000 turns on a 600 px window (530 px of plot): one column per pixel, about 377 turns each.
  const N = 200_000;
  const turns = Array.from({ length: N }, (_, t) =>
    turn(t, t < 100_000 ? 'a' : t % 10 === 0 ? 'c' : 'b', t === 150_000 ? null : (t + 1) * 0.001, { switched: t === 100_000, high: t === 123_456 }),
  );
  const layout = timelineLayout(turns, 600);
  const columns = Math.floor(layout.plot.right - layout.plot.left);

  it('draws by pixel column: a hit area each, neighbours of one model one band', () => {
    expect(layout.turnsPerColumn).toBeCloseTo(N / columns, 9);
    expect(layout.hits).toHaveLength(columns);
    expect(layout.hits[0]).toMatchObject({ t: 0, x: layout.plot.left });
    expect(layout.hits.at(-1)?.last).toBe(N - 1);
    // Every turn in exactly one column, in order.
    layout.hits.forEach((h, i) => expect(h.t).toBe(i === 0 ? 0 : (layout.hits[i - 1]?.last ?? 0) + 1));
    // 'a' for the first half, then 'b' (9 turns in 10): two bands.
    expect(layout.marks.map((m) => m.model)).toEqual(['a', 'b']);
    expect(layout.marks[1]).toMatchObject({ t: 100_000, x: layout.band(100_000).x });
  });

  it('keeps the switch, the error and the turn of the click in their columns', () => {
    expect(layout.switches).toEqual([{ t: 100_000, x: layout.band(100_000).x, from: 'a', to: 'c' }]);
    expect(layout.errors.map((e) => [e.t, e.severity])).toEqual([[123_456, 'high']]);
    const hit = layout.hits.find((h) => h.t <= 123_456 && 123_456 <= h.last);
    expect(hit?.x).toBe(layout.band(123_456).x);
  });

  it('draws the cost line by column and stops it at the first unknown cost', () => {
    const xs = [...layout.costLine.matchAll(/[ML]([\d.]+),/g)].map((m) => Number(m[1]));
    expect(xs.length).toBeLessThanOrEqual(columns + 2);
    expect(Math.max(...xs)).toBeLessThanOrEqual(layout.band(150_000).x + layout.band(150_000).width + 0.001);
    expect(layout.costGap).toMatchObject({ t: 150_000, label: 'cost unknown from turn 150000' });
  });

  it('leaves out switch ticks that would hatch the strip over', () => {
    const dense = timelineLayout(Array.from({ length: N }, (_, t) => turn(t, t % 100 < 50 ? 'a' : 'b', 0.001, { switched: t > 0 && t % 50 === 0 })), 600);
    expect(dense.switches).toEqual([]);
    expect(new Set(dense.marks.map((m) => m.model))).toEqual(new Set(['a', 'b']));
  });

  it('labels turn indexes at round steps', () => {
    const steps = layout.turnTicks.slice(1).map((tick, i) => tick.t - (layout.turnTicks[i]?.t ?? 0));
    expect(new Set(steps).size).toBe(1);
    expect(String(steps[0])).toMatch(/^[125]0+$/);
  });
});
