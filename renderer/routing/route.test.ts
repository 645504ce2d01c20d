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

  it('carries the search that opened an episode, escaped, beside the run selection', () => {
    for (const hash of ['#/episode/12/turn/7?q=NameError', '#/episode/12/turn/7?runs=1,2&q=a%20%26%20b%3F%23', '#/episode/3?q=%3Cimg%3E']) {
      expect(formatHash(parseHash(hash))).toBe(hash);
    }
    expect(parseHash('#/episode/12/turn/7?q=a%20%26%20b%3F%23').route).toEqual({ view: 'episode', episodeId: 12, turn: 7, q: 'a & b?#' });
    // Old links (no search) still open the same turn, with nothing to highlight.
    expect(parseHash('#/episode/12/turn/7').route).toEqual({ view: 'episode', episodeId: 12, turn: 7 });
    // A ClickHouse store's episode keys are 52-bit; past 2^53 an id is not one.
    expect(parseHash('#/episode/4503599627370495/turn/7?runs=281474976710655').route).toEqual({ view: 'episode', episodeId: 4503599627370495, turn: 7 });
    expect(parseHash('#/episode/9007199254740993').route).toEqual({ view: 'runs' });
    expect(parseHash('#/episode/12/turn/7?q=%20%20').route).toEqual({ view: 'episode', episodeId: 12, turn: 7 });
    // Only an episode has a search; elsewhere it is dropped from the link.
    expect(formatHash(parseHash('#/runs?q=x'))).toBe('#/runs');
    expect(formatHash({ route: { view: 'episode', episodeId: 1, turn: 0, q: 'x' }, runIds: [4] })).toBe('#/episode/1/turn/0?runs=4&q=x');
  });

  it('carries which text a search matched, when it is one a hit can be in', () => {
    for (const hash of ['#/episode/12/turn/7?q=x&at=observation', '#/episode/12/turn/7?q=x&at=input:3', '#/episode/12/turn/9?q=x&at=final:0']) {
      expect(formatHash(parseHash(hash))).toBe(hash);
    }
    expect(parseHash('#/episode/12/turn/7?q=x&at=input:2').route).toEqual({ view: 'episode', episodeId: 12, turn: 7, q: 'x', at: 'input:2' });
    expect(parseHash('#/episode/12/turn/7?q=x&at=%22%3E').route).toEqual({ view: 'episode', episodeId: 12, turn: 7, q: 'x' });
    // Without a search there is nothing to land on.
    expect(parseHash('#/episode/12/turn/7?at=action').route).toEqual({ view: 'episode', episodeId: 12, turn: 7 });
  });

  it('keeps only well-formed, distinct run ids', () => {
    expect(parseHash('#/runs?runs=3,x,1,3,').runIds).toEqual([1, 3]);
  });
});
