/**
 * The core's per-turn view of an episode for the step debugger (`episodePolicyChoices`): ŝ per candidate,
 * the regret of the logged choice, and what the given policies would choose. Answers are cached per
 * (episode, policies), so stepping back to an episode or toggling a breakpoint does not ask again.
 */
import type { EpisodePolicyChoices } from '../../../shared/apiReplay.ts';
import { api } from '../../api/index.ts';
import { AnswerCache, useCachedCall, type CallLoad } from '../../api/useCachedCall.ts';
import { useAppStore } from '../../store/index.ts';

export type ChoicesLoad = CallLoad<EpisodePolicyChoices>;

const cache = new AnswerCache<EpisodePolicyChoices>(16);

/**
 * `policies` null: nothing to ask (an invalid spec, say). `window`: only those turns (by position), for a long episode
 * read a page at a time; absent, every turn.
 */
export function useEpisodeChoices(
  episodeId: number, policies: readonly string[] | null, dataVersion: number, window?: { from: number; count: number },
): ChoicesLoad {
  // The core reads ŝ of the database's estimator in use: a new pick is a new question.
  const inUse = useAppStore((s) => s.estimators?.in_use?.id ?? null);
  const key = policies === null ? null : JSON.stringify([episodeId, policies, dataVersion, inUse, window?.from ?? null, window?.count ?? null]);
  return useCachedCall(cache, key, () => api.episodePolicyChoices({ episode: episodeId, policies: [...(policies ?? [])], ...(window ?? {}) }));
}
