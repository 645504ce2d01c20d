import { describe, expect, it } from 'vitest';
import type { CircleMark, LineMark, Mark, TextMark } from '../scene.ts';
import { textWidth } from '../text.ts';
import { LIGHT_THEME } from '../theme.ts';
import { frontierOf, policyFrontierLayout, type FrontierPolicy } from './policyFrontier.ts';

const ctx = { theme: LIGHT_THEME, width: 640, height: 340, modelColor: () => '#000' };

const flat = (marks: readonly Mark[]): Mark[] => marks.flatMap((m) => (m.type === 'group' ? [m, ...flat(m.marks)] : [m]));
const byRole = <T extends Mark>(marks: readonly Mark[], role: string) => flat(marks).filter((m) => m.role === role) as T[];

describe('frontierOf', () => {
  it('keeps the policies nothing beats on both score and cost, cheapest first', () => {
    const pts = [
      { policy: 'logged', cost: 0.1, score: 0.5 },
      { policy: 'argmax', cost: 0.3, score: 0.7 },
      { policy: 'cheapest', cost: 0.02, score: 0.3 },
      { policy: 'fixed:gpt-5', cost: 0.4, score: 0.65 }, // dearer and worse than argmax
      { policy: 'random:1', cost: 0.1, score: 0.45 }, // same cost as logged, worse
    ];
    expect(frontierOf(pts).map((p) => p.policy)).toEqual(['cheapest', 'logged', 'argmax']);
    // A tie on both is not domination: both stay.
    expect(frontierOf([{ policy: 'a', cost: 1, score: 1 }, { policy: 'b', cost: 1, score: 1 }]).length).toBe(2);
  });
});

describe('policyFrontierLayout', () => {
  const policies: FrontierPolicy[] = [
    { policy: 'logged', cost: 0.1, score: 0.5, ci: [0.4, 0.6], color: '#111' },
    { policy: 'argmax', cost: 0.3, score: 0.7, ci: null, costCi: [0.25, 0.36], color: '#222', details: ['agreement 61.0%'] },
    { policy: 'fixed:gpt-5', cost: 0.4, score: 0.65, ci: [0.6, 0.7], color: '#333' },
    { policy: 'cost-aware:1', cost: null, score: 0.4, ci: null, color: '#444', missing: 'no cost' },
  ];
  const scene = policyFrontierLayout({ policies, estimator: 'DR' }, ctx);

  it('draws a point per policy with a cost and a score, a whisker per CI, and notes the rest', () => {
    const points = byRole<CircleMark>(scene.marks, 'point');
    expect(points.map((p) => p.datum?.lines[0])).toEqual(['logged', 'argmax', 'fixed:gpt-5']);
    // Three lines per whisker (stem and two caps) for the two policies with a CI.
    expect(byRole(scene.marks, 'ci')).toHaveLength(6);
    expect(byRole(scene.marks, 'cost-ci')).toHaveLength(3);
    const note = byRole<TextMark>(scene.marks, 'note')[0];
    expect(note?.text).toBe('Not drawn: cost-aware:1 (no cost)');
    expect(points.find((p) => p.datum?.lines[0] === 'logged')?.datum?.lines).toEqual([
      'logged',
      'est. score (DR): 0.500 [0.400, 0.600] 95% CI',
      'est. cost: $0.1 per episode',
      'on the frontier',
    ]);
    expect(points.find((p) => p.datum?.lines[0] === 'fixed:gpt-5')?.datum?.lines.at(-1)).toBe('dominated by a cheaper, better policy');
  });

  it('names every policy left out on a line of its own, a long reason cutting only its own line', () => {
    const weak = 'insufficient support: an effective sample size of 1.9 of 180 episodes (under 10)';
    const left = ['argmax', 'random:1', 'cheapest', 'fixed:a', 'fixed:b'].map((policy) => ({ policy, cost: 0.1, score: null, ci: null, color: '#555', missing: weak }));
    const notes = byRole<TextMark>(policyFrontierLayout({ policies: [...policies.slice(0, 1), ...left], estimator: 'IPS' }, ctx).marks, 'note');
    expect(notes.map((n) => n.text.slice(0, 20))).toEqual(['Not drawn: argmax (i', 'Not drawn: random:1 ', 'Not drawn: cheapest ', 'Not drawn, 2 more: f']);
    expect(notes[3]?.text).toBe('Not drawn, 2 more: fixed:a, fixed:b');
    expect(new Set(notes.map((n) => n.y)).size).toBe(4);
  });

  it('puts a whisker’s ends on the score axis at the CI bounds, through the point', () => {
    const logged = byRole<CircleMark>(scene.marks, 'point').find((p) => p.datum?.lines[0] === 'logged') as CircleMark;
    const stem = byRole<LineMark>(scene.marks, 'ci')[0] as LineMark;
    expect(stem.x1).toBeCloseTo(logged.cx, 9);
    // Score is linear in y: the point (0.5) sits halfway between its CI ends (0.4, 0.6).
    expect((stem.y1 + stem.y2) / 2).toBeCloseTo(logged.cy, 9);
    expect(stem.y1).toBeGreaterThan(stem.y2); // 0.4 lower on screen than 0.6
    // Costs: argmax (0.3) is three times as far from the y axis as logged (0.1).
    const argmax = byRole<CircleMark>(scene.marks, 'point').find((p) => p.datum?.lines[0] === 'argmax') as CircleMark;
    const axis = byRole<LineMark>(scene.marks, 'axis').find((l) => l.x1 === l.x2) as LineMark;
    expect((argmax.cx - axis.x1) / (logged.cx - axis.x1)).toBeCloseTo(3, 9);
    // The cost whisker spans 0.25..0.36 around argmax's 0.3 at its height.
    const costStem = byRole<LineMark>(scene.marks, 'cost-ci')[0] as LineMark;
    expect(costStem.y1).toBeCloseTo(argmax.cy, 9);
    expect((costStem.x1 - axis.x1) / (argmax.cx - axis.x1)).toBeCloseTo(0.25 / 0.3, 9);
    expect((costStem.x2 - axis.x1) / (argmax.cx - axis.x1)).toBeCloseTo(0.36 / 0.3, 9);
  });

  it('joins the frontier and stays inside the figure', () => {
    expect(byRole(scene.marks, 'frontier')).toHaveLength(1);
    for (const m of flat(scene.marks)) {
      if (m.type === 'circle') {
        expect(m.cx).toBeGreaterThan(0);
        expect(m.cx).toBeLessThan(ctx.width);
        expect(m.cy).toBeGreaterThan(0);
        expect(m.cy).toBeLessThan(ctx.height);
      }
    }
  });

  it('keeps every label clear of every whisker, with wide intervals on both axes', () => {
    // Every spot right beside a point (left, right, above, below) is on one of its own whiskers.
    const crowded: FrontierPolicy[] = ['logged', 'argmax', 'cheapest', 'fixed:gpt-5'].map((policy, i) => ({
      policy, cost: 0.1 + i * 0.1, score: 0.4 + i * 0.1, ci: [0.3 + i * 0.1, 0.5 + i * 0.1], costCi: [0.06 + i * 0.1, 0.14 + i * 0.1], color: '#123',
    }));
    const fig = policyFrontierLayout({ policies: crowded, estimator: 'DR' }, ctx);
    const labels = byRole<TextMark>(fig.marks, 'point-label');
    expect(labels.map((l) => l.text).sort()).toEqual(['argmax', 'cheapest', 'fixed:gpt-5', 'logged']);
    const lines = [...byRole<LineMark>(fig.marks, 'ci'), ...byRole<LineMark>(fig.marks, 'cost-ci')];
    for (const t of labels) {
      const w = textWidth(t.text, t.fontSize);
      const x0 = t.anchor === 'end' ? t.x - w : t.anchor === 'middle' ? t.x - w / 2 : t.x;
      const box = { x0, x1: x0 + w, y0: t.y - t.fontSize / 2, y1: t.y + t.fontSize / 2 };
      for (const l of lines) {
        const crosses = Math.max(l.x1, l.x2) >= box.x0 && Math.min(l.x1, l.x2) <= box.x1 && Math.max(l.y1, l.y2) >= box.y0 && Math.min(l.y1, l.y2) <= box.y1;
        expect(crosses, `${t.text} crosses a whisker`).toBe(false);
      }
    }
  });

  it('says so when nothing can be drawn', () => {
    const empty = policyFrontierLayout({ policies: [{ policy: 'logged', cost: 0.1, score: null, ci: null, color: '#111', missing: 'no estimator' }], estimator: 'DM' }, ctx);
    expect(byRole<TextMark>(empty.marks, 'empty')[0]?.text).toMatch(/No policy has both/);
    expect(byRole(empty.marks, 'point')).toHaveLength(0);
  });
});
