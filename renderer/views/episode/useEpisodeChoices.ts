/**
 * The core's per-turn view of an episode for the step debugger (`episodePolicyChoices`): ŝ per candidate,
 * the regret of the logged choice, and what the given policies would choose. Answers are cached per
 * (episode, policies), so stepping back to an episode or toggling a breakpoint does not ask again.
 */
import type { EpisodePolicyChoices } from '../../../shared/apiReplay.ts';
import { api } from '../../api/index.ts';
import { AnswerCache, useCachedCall, type CallLoad } from '../../api/useCachedCall.ts';

export type ChoicesLoad = CallLoad<EpisodePolicyChoices>;

const cache = new AnswerCache<EpisodePolicyChoices>(16);

/** `policies` null: nothing to ask (an invalid spec, say). */
export function useEpisodeChoices(episodeId: number, policies: readonly string[] | null, dataVersion: number): ChoicesLoad {
  const key = policies === null ? null : JSON.stringify([episodeId, policies, dataVersion]);
  return useCachedCall(cache, key, () => api.episodePolicyChoices({ episode: episodeId, policies: [...(policies ?? [])] }));
}
