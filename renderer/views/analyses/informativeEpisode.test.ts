// The targets page opens on an episode whose target curve has something to show (issue 35 item 8).
import { describe, expect, it } from 'vitest';
import { informativeEpisode } from './informativeEpisode.ts';

const row = (id: string, score_norm: number | null, n_turns: number, n_errors: number, n_switches: number) => ({ id, score_norm, n_turns, n_errors, n_switches });

describe('the episode the targets page opens on', () => {
  it('is the successful multi-turn episode with errors and a switch that has the most errors, not the first by id', () => {
    const rows = [
      row('failed', 0, 5, 1, 1),
      row('no-error', 1, 6, 0, 2),
      row('short', 1, 2, 1, 1),
      row('unknown-score', null, 4, 1, 1),
      row('no-switch', 0.8, 4, 2, 0),
      row('wanted', 0.6, 4, 2, 1),
      row('fewer-errors', 1, 8, 1, 2),
      row('tie-later', 0.6, 4, 2, 1),
    ];
    expect(informativeEpisode(rows)?.id).toBe('wanted');
  });

  it('falls back rule by rule, then to the first', () => {
    expect(informativeEpisode([row('a', 0, 5, 0, 0), row('b', 0.5, 4, 1, 0)])?.id).toBe('b');
    expect(informativeEpisode([row('a', 0, 5, 0, 0), row('b', 0.5, 1, 1, 0)])?.id).toBe('b');
    expect(informativeEpisode([row('a', 0, 5, 0, 0), row('b', 0, 1, 1, 0)])?.id).toBe('b');
    expect(informativeEpisode([row('a', 0, 1, 0, 0), row('b', 0, 3, 0, 0)])?.id).toBe('b');
    expect(informativeEpisode([row('a', 0, 1, 0, 0), row('b', 1, 1, 0, 0)])?.id).toBe('a');
    expect(informativeEpisode([])).toBeUndefined();
  });
});
