/**
 * The core's per-turn view of an episode for the step debugger (`episodePolicyChoices`): ŝ per candidate,
 * the regret of the logged choice, and what the given policies would choose. Answers are cached per
 * (episode, policies), so stepping back to an episode or toggling a breakpoint does not ask again.
 */
import { useEffect, useState } from 'react';
import type { EpisodePolicyChoices } from '../../../shared/apiReplay.ts';
import { api, errorMessage } from '../../api/index.ts';

export type ChoicesLoad =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; value: EpisodePolicyChoices }
  | { status: 'error'; message: string };

const CACHE_SIZE = 16;
const cache = new Map<string, EpisodePolicyChoices>();

function remember(key: string, value: EpisodePolicyChoices): void {
  cache.delete(key);
  cache.set(key, value);
  while (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
}

/** `policies` null: nothing to ask (an invalid spec, say). */
export function useEpisodeChoices(episodeId: number, policies: readonly string[] | null, dataVersion: number): ChoicesLoad {
  const key = policies === null ? null : JSON.stringify([episodeId, policies, dataVersion]);
  const [load, setLoad] = useState<{ key: string | null; load: ChoicesLoad }>({ key: null, load: { status: 'idle' } });

  useEffect(() => {
    if (key === null || policies === null || cache.has(key)) return;
    let live = true;
    setLoad({ key, load: { status: 'loading' } });
    api.episodePolicyChoices({ episode: episodeId, policies: [...policies] }).then(
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
    // `policies` is part of `key`, so it is not a dependency of its own.
  }, [key, episodeId]);

  if (key === null) return { status: 'idle' };
  const cached = cache.get(key);
  if (cached) return { status: 'ready', value: cached };
  return load.key === key ? load.load : { status: 'loading' };
}
