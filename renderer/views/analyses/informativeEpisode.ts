/**
 * The episode the targets page opens on when none is picked. An episode without an error has a flat target
 * curve (every turn's target is the final score), and a failed one sits at 0 with its penalties below: the first
 * episode by id was often such a line. The rule: the first of these classes that has an episode, and in it the
 * episode with the most errors, then the most switches (each error is a step of the curve), then the first by id:
 *   1. a positive final score, at least 3 turns, an error and a model switch (the curve steps down at each error,
 *      and the switches are what routing is about);
 *   2. a positive score, at least 3 turns and an error;
 *   3. a positive score and an error;
 *   4. an error;
 *   5. at least 2 turns;
 * else the first episode.
 */
import type { EpisodeRow } from '../../../shared/api.ts';

type Row = Pick<EpisodeRow, 'score_norm' | 'n_turns' | 'n_errors' | 'n_switches'>;

const scored = (r: Row) => r.score_norm !== null && r.score_norm > 0;

const RULES: ((r: Row) => boolean)[] = [
  (r) => scored(r) && r.n_turns >= 3 && r.n_errors > 0 && r.n_switches > 0,
  (r) => scored(r) && r.n_turns >= 3 && r.n_errors > 0,
  (r) => scored(r) && r.n_errors > 0,
  (r) => r.n_errors > 0,
  (r) => r.n_turns >= 2,
];

export function informativeEpisode<T extends Row>(rows: readonly T[]): T | undefined {
  for (const rule of RULES) {
    let best: T | undefined;
    for (const r of rows) {
      if (rule(r) && (!best || r.n_errors > best.n_errors || (r.n_errors === best.n_errors && r.n_switches > best.n_switches))) best = r;
    }
    if (best) return best;
  }
  return rows[0];
}
