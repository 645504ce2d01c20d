import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChangeSettler } from './changeSettler.ts';

describe('ChangeSettler', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** Changes at the given times (ms), each cancelling the previous one's wait as a React effect's cleanup does. */
  function changesAt(times: number[], settleMs = 250): { asked: number[] } {
    const settler = new ChangeSettler(settleMs, () => Date.now());
    const asked: number[] = [];
    let cancel = () => {};
    const start = Date.now();
    for (const [i, t] of times.entries()) {
      vi.setSystemTime(start + t);
      vi.advanceTimersByTime(0);
      cancel();
      cancel = settler.schedule(() => asked.push(i));
      if (i + 1 < times.length) vi.advanceTimersByTime((times[i + 1] as number) - t);
    }
    vi.advanceTimersByTime(settleMs);
    return { asked };
  }

  it('asks a change after a pause at once, and only the last of a quick series', () => {
    // Seven ticks 60 ms apart (runs chosen one after another): the first at once, then the seventh once quiet.
    expect(changesAt([0, 60, 120, 180, 240, 300, 360]).asked).toEqual([0, 6]);
  });

  it('asks every change when they are slower than the settling time', () => {
    expect(changesAt([0, 400, 800, 1200]).asked).toEqual([0, 1, 2, 3]);
  });

  it('a change answered from memory still sets the pace', () => {
    const settler = new ChangeSettler(250, () => Date.now());
    const asked: string[] = [];
    settler.noteChange();
    settler.schedule(() => asked.push('soon after'));
    expect(asked).toEqual([]);
    vi.advanceTimersByTime(250);
    expect(asked).toEqual(['soon after']);
  });
});
