// Which runs the figures of a selection draw: the user's choice within the selection, else those with the most scored sessions.
import { describe, expect, it } from 'vitest';
import { SIDE_BY_SIDE_MAX } from './analysisResults.ts';
import { pickDrawnRuns, type RunWeight } from './drawnRuns.ts';

const w = (run: string, scored: number, sessions = scored): RunWeight => ({ run, sessions, scored });

describe('pickDrawnRuns', () => {
  const selected = [w('a', 0, 500), w('b', 90), w('c', 90, 120), w('d', 20), w('e', 60), w('f', 5), w('g', 5, 6), w('h', 1)];

  it(`draws the ${SIDE_BY_SIDE_MAX} with the most scored sessions, then sessions, then by name, listed by name`, () => {
    expect(pickDrawnRuns(selected)).toEqual(['b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('draws every run of a selection that fits', () => {
    expect(pickDrawnRuns(selected.slice(0, 3))).toEqual(['a', 'b', 'c']);
  });

  it('draws the chosen runs of the selection, at most six, and ignores the others', () => {
    expect(pickDrawnRuns(selected, ['h', 'a', 'zz', 'a'])).toEqual(['a', 'h']);
    expect(pickDrawnRuns(selected, ['h', 'g', 'f', 'e', 'd', 'c', 'b'])).toEqual(['c', 'd', 'e', 'f', 'g', 'h']);
  });

  it('falls back to the default when no chosen run is selected', () => {
    expect(pickDrawnRuns(selected, ['zz'])).toEqual(pickDrawnRuns(selected));
  });
});
