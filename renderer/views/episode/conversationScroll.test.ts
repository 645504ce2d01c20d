import { describe, expect, it } from 'vitest';
import { estimateTurnHeight, sectionOfTurn, turnAtLine } from './conversationScroll.ts';

/** Sections of these heights, one after the other: the opening, then the turns. */
function layout(heights: number[]): (offset: number) => number | undefined {
  return (offset) => {
    let end = 0;
    for (const [i, h] of heights.entries()) {
      end += h;
      if (offset < end) return i;
    }
    return undefined;
  };
}

describe('turnAtLine', () => {
  const sections = layout([300, 400, 100, 600, 200]); // opening, turns 0–3; 1,600 px in all
  const pane = (top: number) => ({ top, height: 600, scrollHeight: 1600 });

  it('is the turn under the line a third of the way down, the first while the opening shows', () => {
    expect(turnAtLine(pane(0), sections, 4)).toBe(0);
    expect(turnAtLine(pane(250), sections, 4)).toBe(0);
    // The line at 720 + 200 = 920 is inside turn 2 (800–1400), though turn 1 ends in view.
    expect(turnAtLine(pane(720), sections, 4)).toBe(2);
  });

  it('is the last turn once the column is scrolled to its end, however short it is', () => {
    expect(turnAtLine(pane(1000), sections, 4)).toBe(3);
    expect(turnAtLine({ top: 0, height: 600, scrollHeight: 600 }, sections, 4)).toBe(0);
    expect(turnAtLine(pane(0), sections, 0)).toBeNull();
  });

  it('places turn i in section i + 1, after the opening', () => {
    expect(sectionOfTurn(0)).toBe(1);
  });
});

describe('estimateTurnHeight', () => {
  it('grows with the text shown, up to a collapsed block’s lines', () => {
    const turn = (observation: string) =>
      ({ message: null, action: 'ls', observation, inputs: [], tool_calls: [], reasoning: null }) as unknown as Parameters<typeof estimateTurnHeight>[0];
    const short = estimateTurnHeight(turn('a'));
    const long = estimateTurnHeight(turn(Array.from({ length: 10 }, () => 'x').join('\n')));
    const huge = estimateTurnHeight(turn(Array.from({ length: 10_000 }, () => 'x').join('\n')));
    expect(long).toBeGreaterThan(short);
    expect(huge).toBeLessThan(short + 30 * 20);
    expect(estimateTurnHeight(undefined)).toBeGreaterThan(0);
  });
});
