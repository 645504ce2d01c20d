/** Steps to the next or previous episode (episodeNeighbours.ts picks which) and says so when there is none. */
import { useRef } from 'react';
import type { EpisodeDetail } from '../../../shared/api.ts';
import { api, errorMessage } from '../../api/index.ts';
import { useAppStore } from '../../store/index.ts';
import { episodesListQuery, neighbour, runByIdQuery, type ListQuery } from './episodeNeighbours.ts';

/** Where the last step landed in which list, so the next step in the same list asks for three rows, not pages. */
let lastLanding: { key: string; id: number; index: number } | null = null;

export function useEpisodeStep(episode: EpisodeDetail['episode'] | null, say: (note: string | null) => void): (step: 1 | -1) => void {
  const navigate = useAppStore((s) => s.navigate);
  const runIds = useAppStore((s) => s.runIds);
  const filters = useAppStore((s) => s.episodeFilters);
  const fromList = useAppStore((s) => s.cameFrom === 'episodes');
  const shown = useRef<number | null>(null);
  shown.current = episode?.id ?? null;

  return (step) => {
    if (!episode) return;
    const id = episode.id;
    const end = step > 0 ? 'last' : 'first';
    const walk = async (query: ListQuery) => {
      const key = JSON.stringify(query);
      const hint = lastLanding?.key === key && lastLanding.id === id ? lastLanding.index : undefined;
      const found = await neighbour((offset, limit) => api.queryEpisodes({ ...query, offset, limit }), id, step, hint);
      if (found !== null && found !== 'absent') lastLanding = { key, id: found.id, index: found.index };
      return found;
    };
    void (async () => {
      const listed = fromList ? await walk(episodesListQuery(runIds, filters)) : 'absent';
      // Not opened from the list, or its filters no longer hold this episode: step by id within its run.
      const inList = listed !== 'absent';
      const found = inList ? listed : await walk(runByIdQuery(episode.run_id));
      if (shown.current !== id) return; // the user moved on meanwhile
      if (found === 'absent') return say('A subagent episode is listed under its parent\'s turn: step from there.');
      if (found === null) return say(`This is the ${end} episode ${inList ? 'in the Episodes list' : `of run ${episode.run}`}.`);
      say(null);
      const search = inList ? filters.search.trim() : '';
      // Replaced, as turn steps are: Back leaves the inspector instead of replaying each step.
      navigate(
        found.matchTurn !== null && search !== ''
          ? { view: 'episode', episodeId: found.id, turn: found.matchTurn, q: search }
          : { view: 'episode', episodeId: found.id, turn: null },
        { replace: true },
      );
    })().catch((err: unknown) => {
      if (shown.current === id) say(`Could not find the neighbouring episode: ${errorMessage(err)}`);
    });
  };
}
