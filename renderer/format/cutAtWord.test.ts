import { describe, expect, it } from 'vitest';
import { cutAtWord } from './cutAtWord.ts';

describe('cutAtWord', () => {
  it('leaves a text that fits as it is (spaces folded)', () => {
    expect(cutAtWord('random router', 20)).toBe('random router');
    expect(cutAtWord('  two\n lines ', 20)).toBe('two lines');
  });

  it('cuts after the last whole word, never inside one', () => {
    expect(cutAtWord('Controller without Lagrange multipliers (always the same λ)', 30)).toBe('Controller without Lagrange…');
    expect(cutAtWord('Critique-and-route controller (Lagrangian, ρ = 0.25)', 41)).toBe('Critique-and-route controller (Lagrangian…');
    // The limit falls just after a word: that word stays.
    expect(cutAtWord('alpha beta gamma', 10)).toBe('alpha beta…');
  });

  it('cuts a single word longer than the room where the room ends', () => {
    expect(cutAtWord('supercalifragilistic', 8)).toBe('superca…');
  });
});
