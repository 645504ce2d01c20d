import { describe, expect, it } from 'vitest';
import { FIGURES } from '../../../shared/charts/figures.ts';
import { ANALYSIS_PAGES } from './catalog.ts';

/** Sentence ends: a full stop, question or exclamation mark followed by a space and a capital (not after "Fig.", "Tab.", "Eq.", "App."). */
const sentenceBreaks = (text: string) => [...text.matchAll(/(?<!\b(?:Fig|Tab|Eq|App|vs|e\.g|i\.e))[.!?]\s+(?=[A-Z])/g)].length;

describe('analysis pages', () => {
  it('has a page for every figure', () => {
    expect(ANALYSIS_PAGES.map((p) => p.id).sort()).toEqual(Object.keys(FIGURES).sort());
  });

  it.each(ANALYSIS_PAGES.map((p) => [p.id, p.summary] as const))('%s says in one sentence what it shows and which paper figure', (_id, summary) => {
    expect(summary.endsWith('.')).toBe(true);
    expect(sentenceBreaks(summary)).toBe(0);
    // A figure, table, section or an honest "no paper draws this".
    expect(summary).toMatch(/Fig\. \d|Tables? \d|Tab\. \d|§\d|no paper/);
    expect(summary).not.toMatch(/DESIGN|S̃|S_t/);
  });

  it('finds a second sentence when there is one (the check can fail)', () => {
    expect(sentenceBreaks('Shows a thing. Reproduces Fig. 3.')).toBe(1);
    expect(sentenceBreaks('Shows a thing, as in MTRouter Fig. 3 and CoRL Fig. 2.')).toBe(0);
  });

  it('names figures that exist in the papers (checked against /work/shared/seeds)', () => {
    const named = ANALYSIS_PAGES.flatMap((p) => [...p.summary.matchAll(/MTRouter Fig\. (\d)/g)].map((m) => Number(m[1])));
    // MTRouter has Figures 1–8; 2 is its overview and 8 OpenRouter usage, neither an analysis.
    for (const n of named) expect([1, 3, 4, 5, 6, 7]).toContain(n);
  });
});
