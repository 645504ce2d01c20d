// Calibration: an x axis over ŝ's range (not the target's), panels that line up, and a capped number of run curves.
import { describe, expect, it } from 'vitest';
import type { CalibrationBin, CalibrationResult } from '../../analysisResults.ts';
import type { FigureContext } from '../context.ts';
import type { Mark, RectMark, Scene, TextMark } from '../scene.ts';
import { DARK_THEME } from '../theme.ts';
import { calibrationLayout, sHatDomain } from './calibration.ts';
import { MAX_RUNS_DRAWN } from './common.ts';

const ctx: FigureContext = { theme: DARK_THEME, width: 720, modelColor: () => '#0072B2' };
const flat = (marks: Mark[]): Mark[] => marks.flatMap((m) => (m.type === 'group' ? flat(m.marks) : [m]));
const byRole = (s: Scene, role: string) => flat(s.marks).filter((m) => m.role === role);

/** Ten bins over [0, 1]; the realised target falls to −2 in the low bins (error penalties). */
function bins(shift = 0): CalibrationBin[] {
  return Array.from({ length: 10 }, (_, i) => ({
    lo: i / 10, hi: (i + 1) / 10, n: 10 + i, mean_s_hat: i / 10 + 0.05, mean_s_tilde: i < 3 ? -2 + i * 0.5 + shift : i / 10 + shift, ci: null,
  }));
}
const fit = (n: number, shift = 0) => ({ n, mae: 0.2, spearman: 0.7, bins: bins(shift) });
const result: CalibrationResult = {
  estimator: { id: 1, name: 'est' },
  note: null,
  overall: fit(1000),
  runs: Array.from({ length: 14 }, (_, i) => ({ run: `run-${String(i).padStart(2, '0')}`, ...fit(10 + i, i / 100), in_training: false })),
};

describe('calibration axes', () => {
  const scene = calibrationLayout(result, ctx);
  const ticks = (byRole(scene, 'tick-label') as TextMark[]);
  const axisYs = [...new Set(byRole(scene, 'axis').filter((m) => m.type === 'line' && m.y1 === m.y2).map((m) => (m as { y1: number }).y1))].sort((a, b) => a - b);

  it('spans ŝ’s range on x, even when the realised target reaches −2', () => {
    expect(sHatDomain([result.overall])).toEqual([0, 1]);
    const xLabels = ticks.filter((t) => t.y > axisYs[0]! && t.y < axisYs[0]! + 20).map((t) => Number(t.text));
    expect(Math.min(...xLabels)).toBe(0);
    expect(Math.max(...xLabels)).toBe(1);
  });

  it('grows x to a bin mean outside [0, 1]', () => {
    expect(sHatDomain([{ ...fit(1), bins: [{ ...bins()[0]!, mean_s_hat: -0.2 }] }])).toEqual([-0.2, 0.1]);
  });

  it('lines the two panels up: same x axis ends, and each bin’s point sits over its bar', () => {
    const xAxes = byRole(scene, 'axis').filter((m) => m.type === 'line' && m.y1 === m.y2) as { x1: number; x2: number }[];
    expect(xAxes).toHaveLength(2);
    expect(xAxes[0]!.x1).toBe(xAxes[1]!.x1);
    expect(xAxes[0]!.x2).toBe(xAxes[1]!.x2);
    const bars = byRole(scene, 'bar') as RectMark[];
    const points = byRole(scene, 'point').filter((m) => m.datum?.lines[0]?.startsWith('all selected runs')) as { cx: number }[];
    expect(bars).toHaveLength(10);
    points.forEach((p, i) => {
      expect(p.cx).toBeGreaterThan(bars[i]!.x);
      expect(p.cx).toBeLessThan(bars[i]!.x + bars[i]!.width);
    });
  });

  it(`draws a curve for each of the selection’s drawn runs (at most ${MAX_RUNS_DRAWN}) and names the others`, () => {
    const drawn = ['run-08', 'run-09', 'run-10', 'run-11', 'run-12', 'run-13'];
    const scene = calibrationLayout(result, { ...ctx, drawnRuns: drawn });
    expect(byRole(scene, 'curve')).toHaveLength(MAX_RUNS_DRAWN + 1);
    const note = byRole(scene, 'left-out').map((m) => (m as TextMark).text).join(' ');
    expect(note).toMatch(/^Not drawn, 8 more runs .*: run-00, run-01, run-02, run-03, run-04, run-05, run-06, run-07$/);
    const legend = byRole(scene, 'legend-label').map((m) => (m as TextMark).text.split(':')[0]);
    expect(legend).toEqual(['all selected runs', 'run-08', 'run-09', 'run-10', 'run-11', 'run-12', 'run-13', 'perfect calibration (target = ŝ)']);
  });

  it('speaks of the realised target, never of S̃', () => {
    const text = flat(scene.marks).flatMap((m) => [m.type === 'text' ? m.text : '', ...(m.datum?.lines ?? [])]).join('\n') + scene.title;
    expect(text).toContain('realised target');
    expect(text).not.toContain('S̃');
  });
});

describe('calibration points inside the axes', () => {
  // A first bin whose mean ŝ is 0 and whose realised target is the lowest value, and a last bin at exactly 1:
  // drawn on the axis lines, half of each dot fell outside the plot.
  const edge: CalibrationBin[] = [
    { lo: 0, hi: 0.1, n: 1, mean_s_hat: 0, mean_s_tilde: 0, ci: null },
    { lo: 0.5, hi: 0.6, n: 40, mean_s_hat: 0.55, mean_s_tilde: 0.6, ci: [0.5, 0.7] },
    { lo: 0.9, hi: 1, n: 30, mean_s_hat: 1, mean_s_tilde: 1, ci: [0.95, 1] },
  ];
  const scene = calibrationLayout({ estimator: { id: 1, name: 'est' }, note: null, overall: { n: 71, mae: 0.1, spearman: 0.5, bins: edge }, runs: [] }, ctx);
  const axes = byRole(scene, 'axis') as { x1: number; x2: number; y1: number; y2: number }[];
  const yAxis = axes.find((a) => a.x1 === a.x2)!;
  const xAxis = axes.find((a) => a.y1 === a.y2)!;
  const [top, bottom] = [Math.min(yAxis.y1, yAxis.y2), Math.max(yAxis.y1, yAxis.y2)];

  it('keeps every dot, with its radius and outline, between the axis lines', () => {
    const points = byRole(scene, 'point') as { cx: number; cy: number; r: number; strokeWidth?: number }[];
    expect(points).toHaveLength(3);
    for (const p of points) {
      const r = p.r + (p.strokeWidth ?? 0) / 2;
      expect(p.cx - r).toBeGreaterThan(xAxis.x1);
      expect(p.cx + r).toBeLessThan(xAxis.x2);
      expect(p.cy - r).toBeGreaterThan(top);
      expect(p.cy + r).toBeLessThan(bottom);
    }
  });

  it('keeps every interval inside the plot', () => {
    for (const ci of byRole(scene, 'ci') as { y1: number; y2: number }[]) {
      expect(Math.min(ci.y1, ci.y2)).toBeGreaterThan(top);
      expect(Math.max(ci.y1, ci.y2)).toBeLessThan(bottom);
    }
  });

  it('still labels the axes from 0 to 1', () => {
    const labels = (byRole(scene, 'tick-label') as TextMark[]).map((t) => t.text);
    expect(labels).toContain('0.0');
    expect(labels).toContain('1.0');
  });
});
