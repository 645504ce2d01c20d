/**
 * Loads one episode for the inspector; the last few stay cached so Back/Forward between episodes is instant. When the
 * database changes (`dataVersion`: an import, a followed log written) the open episode is read again and replaces
 * the one shown in place, at the turn shown; until it arrives, and if it fails, the one shown stays.
 */
import { useEffect, useRef, useState } from 'react';
import type { EpisodeDetail } from '../../../shared/api.ts';
import { api, ApiCallError, errorMessage } from '../../api/index.ts';
import { useAppStore } from '../../store/index.ts';

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

/** `around`: the turn a long episode is opened at (its page comes with it), and the turn shown when it is read again. */
export function useEpisode(episodeId: number, around?: number | null): EpisodeLoad {
  const cached = cache.get(episodeId);
  const [load, setLoad] = useState<EpisodeLoad>(cached ? { status: 'ready', detail: cached } : { status: 'loading' });
  const dataVersion = useAppStore((s) => s.dataVersion);
  const seenVersion = useRef(dataVersion);
  const turnShown = useRef(around);
  turnShown.current = around;

  useEffect(() => {
    if (dataVersion === seenVersion.current) return;
    seenVersion.current = dataVersion;
    // Every cached episode may be out of date now; the open one is read again at once.
    for (const id of [...cache.keys()]) if (id !== episodeId) cache.delete(id);
    let live = true;
    const at = turnShown.current;
    api.getEpisode(at == null ? { id: episodeId } : { id: episodeId, around: at }).then(
      (detail) => {
        remember(episodeId, detail);
        if (live) setLoad({ status: 'ready', detail });
      },
      () => undefined, // keep what is shown: the episode may be being rewritten; the next change asks again
    );
    return () => {
      live = false;
    };
  }, [dataVersion, episodeId]);

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
