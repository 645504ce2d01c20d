/**
 * What-if at one turn (`whatIf`): ŝ, Δŝ, cost and nearest logged evidence per candidate model. Answers are
 * kept per (episode, turn, database state), so stepping back to a turn shows it at once; a database change
 * (an import, a scoring job: `dataVersion`) asks again.
 */
import { useEffect, useState } from 'react';
import type { WhatIfResult } from '../../../shared/apiEstimator.ts';
import { api, errorMessage } from '../../api/index.ts';

export type WhatIfLoad =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; value: WhatIfResult }
  | { status: 'error'; message: string };

/** Neighbours asked per candidate: three fit the panel's row; the CLI gives more (`--k`). */
export const WHAT_IF_NEIGHBOURS = 3;

const CACHE_SIZE = 64;
const cache = new Map<string, WhatIfResult>();

function remember(key: string, value: WhatIfResult): void {
  cache.delete(key);
  cache.set(key, value);
  while (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
}

/** `turn` null: nothing to ask (the panel is closed). */
export function useWhatIf(episodeId: number, turn: number | null, dataVersion: number): WhatIfLoad {
  const key = turn === null ? null : `${episodeId}:${turn}:${dataVersion}`;
  const [load, setLoad] = useState<{ key: string | null; load: WhatIfLoad }>({ key: null, load: { status: 'idle' } });

  useEffect(() => {
    if (key === null || turn === null || cache.has(key)) return;
    let live = true;
    setLoad({ key, load: { status: 'loading' } });
    api.whatIf({ episodeId, turn, k: WHAT_IF_NEIGHBOURS }).then(
      (value) => {
        remember(key, value);
        if (live) setLoad({ key, load: { status: 'ready', value } });
      },
      (err: unknown) => {
        if (live) setLoad({ key, load: { status: 'error', message: errorMessage(err) } });
      },
    );
    return () => {
      live = false;
    };
    // `key` stands for (episodeId, turn, dataVersion).
  }, [key]);

  if (key === null) return { status: 'idle' };
  const cached = cache.get(key);
  if (cached) return { status: 'ready', value: cached };
  return load.key === key ? load.load : { status: 'loading' };
}
