/** From an episode as a user names it (its id in the log, and its run when several runs hold that id) to its row id. */
import type { Db } from '../db/dbHandle.ts';
import { findEpisodeIds } from '../db/episodeQueries.ts';
import { NotFoundError } from './serviceErrors.ts';

/** The one episode a log id (and run) names among `hits`, or the not-found error that says why not. */
export function onlyEpisode(hits: readonly { id: number; run: string }[], ref: { ext_id: string; run?: string }): number {
  if (hits.length === 0) throw new NotFoundError(`no episode "${ref.ext_id}"${ref.run ? ` in run "${ref.run}"` : ''}`);
  if (hits.length > 1) {
    throw new NotFoundError(`episode "${ref.ext_id}" is in several runs (${hits.map((h) => h.run).join(', ')}): name one with --run`);
  }
  return (hits[0] as { id: number }).id;
}

export function resolveEpisodeId(db: Db, ref: { id: number } | { ext_id: string; run?: string }): number {
  if ('id' in ref) return ref.id;
  return onlyEpisode(findEpisodeIds(db, ref.ext_id, ref.run), ref);
}
