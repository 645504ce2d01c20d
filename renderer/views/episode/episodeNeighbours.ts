/**
 * Which episode comes before or after this one: in the Episodes list's order (its runs, filters, sort and
 * search) when the inspector was opened from that list, else by id within the episode's run. The server pages
 * the list; finding an episode's place pages through it from a hint (where the last step landed) or the start.
 */
import type { EpisodeQuery, EpisodeRow } from '../../../shared/api.ts';
import type { EpisodeFilters } from '../../store/storeShape.ts';

export type ListQuery = Omit<EpisodeQuery, 'offset' | 'limit'>;
export type FetchPage = (offset: number, limit: number) => Promise<{ total: number; rows: Pick<EpisodeRow, 'id' | 'match'>[] }>;

/** The query the Episodes view shows for this run selection and these filters. */
export function episodesListQuery(runIds: readonly number[], filters: EpisodeFilters): ListQuery {
  const search = filters.search.trim();
  return {
    runIds: runIds.length > 0 ? [...runIds] : undefined,
    models: filters.models.length > 0 ? [...filters.models] : undefined,
    outcome: filters.outcome,
    search: search === '' ? undefined : search,
    sort: filters.sort,
    desc: filters.desc,
  };
}

export function runByIdQuery(runId: number): ListQuery {
  return { runIds: [runId], sort: 'id', desc: false };
}

export interface Neighbour {
  id: number;
  /** The list's position of the neighbour, kept as the hint for the next step. */
  index: number;
  /** In a searched list: the turn that matched, to open the episode there. */
  matchTurn: number | null;
}

/** Pages of this many rows while looking for the episode; a list longer than `MAX_SCAN` rows is not walked. */
const PAGE = 1000;
const MAX_SCAN = 100_000;

/**
 * The episode `step` places after (+1) or before (-1) episode `id` in the list: null at an end of the list,
 * 'absent' when the episode is not in it. `hint` is where the episode was last seen in this list.
 */
export async function neighbour(fetch: FetchPage, id: number, step: 1 | -1, hint?: number): Promise<Neighbour | null | 'absent'> {
  const at = async (index: number): Promise<Neighbour | null> => {
    if (index < 0) return null;
    const row = (await fetch(index, 1)).rows[0];
    return row ? { id: row.id, index, matchTurn: row.match?.index ?? null } : null;
  };
  if (hint !== undefined && hint >= 0) {
    const page = await fetch(hint, 1);
    if (page.rows[0]?.id === id) return at(hint + step);
  }
  for (let offset = 0; offset < MAX_SCAN; offset += PAGE) {
    const page = await fetch(offset, PAGE);
    const i = page.rows.findIndex((r) => r.id === id);
    if (i >= 0) return at(offset + i + step);
    if (page.rows.length < PAGE || offset + PAGE >= page.total) break;
  }
  return 'absent';
}
