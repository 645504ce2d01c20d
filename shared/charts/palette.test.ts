import { describe, expect, it } from 'vitest';
import { contrastRatio, deltaE2000, lab, labSeenWith, type Dichromacy } from './colorDistance.ts';
import { distinctModelColors, MODEL_PALETTE, modelColorSlots, modelsByRun, ownRunColor, RUN_PALETTE, runColors, UNKNOWN_MODEL_COLOR } from './palette.ts';
import { DARK_THEME, LIGHT_THEME } from './theme.ts';
import { MAX_RUNS_DRAWN } from './layouts/common.ts';

function closestPair(colors: readonly string[], see: (hex: string) => readonly [number, number, number] = lab): { d: number; pair: string } {
  let best = { d: Infinity, pair: '' };
  for (let i = 0; i < colors.length; i++) {
    for (let j = i + 1; j < colors.length; j++) {
      const d = deltaE2000(see(colors[i]!), see(colors[j]!));
      if (d < best.d) best = { d, pair: `${colors[i]} ${colors[j]}` };
    }
  }
  return best;
}

describe('colour distance', () => {
  it('matches published CIEDE2000 test pairs (Sharma, Wu & Dalal 2005)', () => {
    expect(deltaE2000([50, 2.6772, -79.7751], [50, 0, -82.7485])).toBeCloseTo(2.0425, 4);
    expect(deltaE2000([50, 2.5, 0], [73, 25, -18])).toBeCloseTo(27.1492, 4);
    expect(deltaE2000([60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387])).toBeCloseTo(1.2644, 4);
  });
  it('measures contrast as WCAG does', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });
});

describe('model palette', () => {
  const first12 = MODEL_PALETTE.slice(0, 12);
  it('has at least 20 colours, the first 12 at least ΔE2000 15 apart and all of them at least 13', () => {
    // A real database (the demo's) holds 20 models or more; they should not share colours in one figure.
    expect(MODEL_PALETTE.length).toBeGreaterThanOrEqual(20);
    expect(closestPair(first12).d).toBeGreaterThan(15);
    expect(closestPair(MODEL_PALETTE).d).toBeGreaterThan(13);
    expect(new Set(MODEL_PALETTE.map((c) => c.toLowerCase())).size).toBe(MODEL_PALETTE.length);
  });
  it.each(['deuteranopia', 'protanopia'] as Dichromacy[])('keeps the first 12 apart under %s (ΔE2000 > 10)', (kind) => {
    expect(closestPair(first12, (c) => labSeenWith(c, kind)).d).toBeGreaterThan(10);
  });
  it('reads on both theme backgrounds (contrast at least 2:1)', () => {
    for (const c of [...MODEL_PALETTE, ...RUN_PALETTE]) {
      expect(contrastRatio(c, LIGHT_THEME.background), c).toBeGreaterThanOrEqual(2);
      expect(contrastRatio(c, DARK_THEME.background), c).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('run palette', () => {
  it('has a colour for every run a figure draws, each pair at least ΔE2000 15 apart', () => {
    expect(RUN_PALETTE.length).toBe(MAX_RUNS_DRAWN);
    expect(closestPair(RUN_PALETTE).d).toBeGreaterThan(15);
  });
  it('shares no colour with the models: every run colour is at least ΔE2000 10 from every model colour and the unknown grey', () => {
    for (const r of RUN_PALETTE) {
      for (const m of [...MODEL_PALETTE, UNKNOWN_MODEL_COLOR]) expect(deltaE2000(lab(r), lab(m)), `${r} vs ${m}`).toBeGreaterThan(10);
    }
  });
});

describe('run colours', () => {
  const names = ['sw-mtrouter', 'sw-random', 'sw-gpt-5', 'swe-claude', 'math-critique', 'uno-orchestra', 'corl-low'];
  it('gives a run the same colour whatever the order or company it is drawn in', () => {
    const a = runColors(names.slice(0, 2));
    const b = runColors([...names.slice(0, 2)].reverse());
    expect(a('sw-mtrouter')).toBe(b('sw-mtrouter'));
    expect(a('sw-random')).toBe(b('sw-random'));
    // Drawn alone, a run has its own colour.
    for (const n of names) expect(runColors([n])(n)).toBe(ownRunColor(n));
  });
  it('never gives two runs of one figure the same colour, up to the palette size', () => {
    for (let k = 2; k <= RUN_PALETTE.length; k++) {
      const color = runColors(names.slice(0, k));
      expect(new Set(names.slice(0, k).map(color)).size).toBe(k);
    }
  });
  it('is a run colour, never a model colour', () => {
    const color = runColors(names);
    for (const n of names) expect(RUN_PALETTE).toContain(color(n));
  });
});

describe('model colours of one figure', () => {
  // color_index wraps past the palette: these four models share two colours.
  const n = MODEL_PALETTE.length;
  const index: Record<string, number> = { 'gpt-5': 0, 'claude-3-5-sonnet': n, 'kimi-k2': 3, 'gpt-4o': n + 3, 'deepseek-v3.2': 1 };
  const own = (name: string) => MODEL_PALETTE[(index[name] ?? 0) % n] as string;
  it('keeps every model whose colour no other drawn model has', () => {
    const color = distinctModelColors(own, ['gpt-5', 'kimi-k2', 'deepseek-v3.2']);
    for (const m of ['gpt-5', 'kimi-k2', 'deepseek-v3.2']) expect(color(m)).toBe(own(m));
  });
  it('lets the model given a shared colour first keep it', () => {
    const ordered = Object.assign((name: string) => own(name), { order: (name: string) => index[name] ?? 99 });
    const color = distinctModelColors(ordered, Object.keys(index));
    expect(color('gpt-5')).toBe(own('gpt-5'));
    expect(color('kimi-k2')).toBe(own('kimi-k2'));
    expect(color('claude-3-5-sonnet')).not.toBe(own('claude-3-5-sonnet'));
  });
  it('gives models that share a colour distinct ones, without an order the first by name keeping its own', () => {
    const names = Object.keys(index);
    const color = distinctModelColors(own, names);
    expect(new Set(names.map(color)).size).toBe(names.length);
    expect(color('claude-3-5-sonnet')).toBe(own('claude-3-5-sonnet'));
    expect(color('gpt-5')).not.toBe(own('gpt-5'));
    expect(color('deepseek-v3.2')).toBe(own('deepseek-v3.2'));
    for (const m of names) expect(MODEL_PALETTE).toContain(color(m));
  });
  it('repeats no colour for as many models as the palette has', () => {
    const names = Array.from({ length: n }, (_, i) => `m${String(i).padStart(2, '0')}`);
    const color = distinctModelColors(() => MODEL_PALETTE[0] as string, names);
    expect(new Set(names.map(color)).size).toBe(n);
  });
});

describe('modelColorSlots', () => {
  const n = MODEL_PALETTE.length;
  const names = Array.from({ length: 34 }, (_, i) => `m${i}`);

  it('gives each model the slot of its place while no model of its runs has it', () => {
    expect(modelColorSlots(names, [names.slice(0, 5), names.slice(30)])).toEqual(names.map((_, i) => i % n));
  });

  it('gives no two models of one run one colour (the Aider run: gpt-4o-mini and chatgpt-4o-latest 21 apart)', () => {
    const aider = ['m7', 'm28', 'm3', 'm24', 'm9'];
    const slots = modelColorSlots(names, [aider, ['m1', 'm22']]);
    const of = (m: string) => slots[names.indexOf(m)];
    expect(new Set(aider.map(of)).size).toBe(aider.length);
    expect(of('m1')).not.toBe(of('m22'));
    // The older model of a pair keeps its colour; models of no shared run keep theirs.
    expect([of('m7'), of('m3'), of('m1'), of('m30')]).toEqual([7, 3, 1, 30 % n]);
  });

  it('reads the runs from (run, model) pairs', () => {
    expect(modelsByRun([{ run: 1, model: 'a' }, { run: 2, model: 'b' }, { run: 1, model: 'c' }])).toEqual([['a', 'c'], ['b']]);
  });
});
