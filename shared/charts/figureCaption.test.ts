import { describe, expect, it } from 'vitest';
import { captionHeight, captionScene, exportDate, figureExportName, runsLabel, safeNamePart } from './figureCaption.ts';
import type { Scene, TextMark } from './scene.ts';

const scene: Scene = {
  width: 400, height: 200, background: '#fff', fontFamily: 'sans-serif', title: 'A figure',
  marks: [{ type: 'circle', cx: 10, cy: 10, r: 3, role: 'point' }],
};
const style = { text: '#111', mutedText: '#666', fontSize: 11 };

describe('figureExportName', () => {
  it('names the analysis, the runs and the day', () => {
    expect(figureExportName('switch-cost', ['sw-mtrouter', 'uno-sim'], '2026-11-24', 'png')).toBe('switch-cost_sw-mtrouter+uno-sim_2026-11-24.png');
    expect(figureExportName('pareto', [], '2026-11-24', 'csv')).toBe('pareto_all-runs_2026-11-24.csv');
    expect(figureExportName('plan-dag', ['uno'], '2026-11-24', 'svg', 'uno_84_e274')).toBe('plan-dag_uno-84-e274_uno_2026-11-24.svg');
  });

  it('counts runs past three and sanitises hostile names', () => {
    expect(figureExportName('lift', ['a', 'b', 'c', 'd', 'e'], '2026-01-02', 'pdf')).toBe('lift_a+b+c+2-more_2026-01-02.pdf');
    const name = figureExportName('lift', ['../../etc/passwd', 'ré sumé/…', '.hidden'], '2026-01-02', 'png');
    expect(name).toBe('lift_etc-passwd+re-sume+hidden_2026-01-02.png');
    expect(name).toMatch(/^[A-Za-z0-9._+-]+$/);
    expect(safeNamePart('///')).toBe('');
    expect(figureExportName('lift', ['///'], '2026-01-02', 'png')).toBe('lift_runs_2026-01-02.png');
  });
});

describe('caption', () => {
  it('says the runs in words', () => {
    expect(runsLabel([])).toBe('all runs');
    expect(runsLabel(['a'])).toBe('run a');
    expect(runsLabel(['a', 'b', 'c'])).toBe('runs a, b and c');
    expect(runsLabel(['a', 'b', 'c', 'd', 'e', 'f'])).toBe('runs a, b, c and 3 more');
  });

  it('puts title, runs and date in a band on top and moves the figure down', () => {
    const out = captionScene(scene, { title: 'Switches vs cost', runs: ['a', 'b'], date: '2026-11-24' }, style);
    const band = captionHeight(11);
    expect(out.height).toBe(200 + band);
    expect(out.width).toBe(400);
    const texts = out.marks.filter((m): m is TextMark => m.type === 'text');
    expect(texts.map((t) => t.text)).toEqual(['Switches vs cost', 'runs a and b · exported 2026-11-24']);
    expect(texts.every((t) => t.y + t.fontSize <= band)).toBe(true);
    const group = out.marks.find((m) => m.type === 'group');
    expect(group).toMatchObject({ y: band, marks: scene.marks });
    expect(out.title).toContain('Switches vs cost');
  });

  it('fits a long title to the width', () => {
    const out = captionScene(scene, { title: 'x'.repeat(500), runs: [], date: '2026-11-24' }, style);
    const title = out.marks[0] as TextMark;
    expect(title.text.endsWith('…')).toBe(true);
  });

  it('dates in the local calendar', () => {
    expect(exportDate(new Date(2026, 10, 4, 23, 59))).toBe('2026-11-04');
  });
});
