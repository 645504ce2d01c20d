/**
 * What-if at one turn (`whatIf`): ŝ, Δŝ, cost and nearest logged evidence per candidate model. Answers are
 * kept per (episode, turn, database state, estimator in use), so stepping back to a turn shows it at once; a database change
 * (an import, a scoring job: `dataVersion`) asks again.
 */
import type { WhatIfResult } from '../../../shared/apiEstimator.ts';
import { api } from '../../api/index.ts';
import { AnswerCache, useCachedCall, type CallLoad } from '../../api/useCachedCall.ts';

export type WhatIfLoad = CallLoad<WhatIfResult>;

/** Neighbours asked per candidate: three fit the panel's row; the CLI gives more (`--k`). */
export const WHAT_IF_NEIGHBOURS = 3;

const cache = new AnswerCache<WhatIfResult>(64);

/**
 * `turn` null: nothing to ask (the panel is closed). `estimatorId`: the estimator in use (null: none yet, and
 * the core then registers the shipped default); a new pick is a new question.
 */
export function useWhatIf(episodeId: number, turn: number | null, dataVersion: number, estimatorId: number | null): WhatIfLoad {
  const key = turn === null ? null : `${episodeId}:${turn}:${dataVersion}:${estimatorId ?? ''}`;
  return useCachedCall(cache, key, () =>
    api.whatIf({ episodeId, turn: turn ?? 0, k: WHAT_IF_NEIGHBOURS, ...(estimatorId === null ? {} : { estimatorId }) }),
  );
}
