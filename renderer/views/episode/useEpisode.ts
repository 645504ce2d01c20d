/** Loads one episode for the inspector; the last few stay cached so Back/Forward between episodes is instant. */
import { useEffect, useState } from 'react';
import type { EpisodeDetail } from '../../../shared/api.ts';
import { api, ApiCallError, errorMessage } from '../../api/index.ts';

export type EpisodeLoad =
  | { status: 'loading' }
  | { status: 'ready'; detail: EpisodeDetail }
  | { status: 'not_found'; message: string }
  | { status: 'error'; message: string };

const CACHE_SIZE = 8;
const cache = new Map<number, EpisodeDetail>();

function remember(id: number, detail: EpisodeDetail): void {
  cache.delete(id);
  cache.set(id, detail);
  while (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
}

/** `around`: the turn a long episode is opened at (its page comes with it); read at the first load only. */
export function useEpisode(episodeId: number, around?: number | null): EpisodeLoad {
  const cached = cache.get(episodeId);
  const [load, setLoad] = useState<EpisodeLoad>(cached ? { status: 'ready', detail: cached } : { status: 'loading' });

  useEffect(() => {
    if (cache.has(episodeId)) return;
    let live = true;
    api.getEpisode(around == null ? { id: episodeId } : { id: episodeId, around }).then(
      (detail) => {
        remember(episodeId, detail);
        if (live) setLoad({ status: 'ready', detail });
      },
      (err: unknown) => {
        if (!live) return;
        if (err instanceof ApiCallError && err.kind === 'not_found') setLoad({ status: 'not_found', message: err.message });
        else setLoad({ status: 'error', message: errorMessage(err) });
      },
    );
    return () => {
      live = false;
    };
    // `around` is read at the first load only: a step to another turn is not a new episode to load.
  }, [episodeId]);

  return load;
}
