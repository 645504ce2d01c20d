import { describe, expect, it } from 'vitest';
import { formatHash, parseHash } from './route.ts';

describe('deep links', () => {
  it('round-trips every view with and without a run selection', () => {
    for (const hash of ['#/runs', '#/episodes?runs=2,7', '#/episode/12', '#/episode/12/turn/3?runs=1', '#/analyses', '#/analyses/lift?runs=1,2', '#/estimator', '#/policy']) {
      expect(formatHash(parseHash(hash))).toBe(hash);
    }
  });

  it('falls back to the runs view for anything it does not know', () => {
    for (const hash of ['', '#', '#/nope', '#/episode/x', '#/episode/1/turn/-2', '#/episode/1/turn', '#/analyses/Lift', '#/analyses/a/b', '#/estimator/x']) {
      expect(parseHash(hash).route).toEqual({ view: 'runs' });
    }
  });

  it('keeps only well-formed, distinct run ids', () => {
    expect(parseHash('#/runs?runs=3,x,1,3,').runIds).toEqual([1, 3]);
  });
});
