/**
 * The turns of the episode open in the inspector. A short episode came whole with getEpisode; one of more than
 * TURN_PAGE turns came as an outline of every turn (what the timeline, the list, the keys and the debugger read) and
 * one page in full; the other pages are asked for as the reader reaches them (the turn shown, the rows in view).
 */
import { useCallback, useEffect, useMemo, useReducer } from 'react';
import { COST_SOURCES, TURN_PAGE, type EpisodeDetail, type TurnDetail, type TurnOutline } from '../../../shared/api.ts';
import { api } from '../../api/index.ts';

/** What every turn shows without its text: model, cost, errors, switch. */
export type TurnLine = Pick<TurnDetail, 't' | 'model' | 'switched' | 'errors' | 'max_severity' | 'cost' | 'cost_source' | 'cumulative_cost'>;

export interface EpisodeTurns {
  lines: readonly TurnLine[];
  /** Turn i in full; undefined while its page is on its way. */
  at(i: number): TurnDetail | undefined;
  /** Brings the pages holding turns from…to (inclusive) when they are not here yet. */
  want(from: number, to: number): void;
}

const NO_ERRORS: TurnDetail['errors'] = [];

/** The outline as lines; the running cost stops at the first unknown one, as the server's does. */
export function linesOfOutline(outline: TurnOutline): TurnLine[] {
  const errorsAt = new Map(outline.errors.map((e) => [e.i, e]));
  let cumulative: number | null = 0;
  return outline.t.map((t, i) => {
    const cost = outline.cost[i] ?? null;
    cumulative = cumulative === null || cost === null ? null : cumulative + cost;
    const errors = errorsAt.get(i);
    return {
      t,
      model: outline.models[outline.model[i] ?? 0] ?? '',
      switched: outline.switched[i] === 1,
      errors: errors?.errors ?? NO_ERRORS,
      max_severity: errors?.max_severity ?? null,
      cost,
      cost_source: COST_SOURCES[outline.cost_source[i] ?? 2] ?? 'none',
      cumulative_cost: cumulative,
    };
  });
}

/** Pages of long episodes already read (by episode, then first turn index): stepping back costs no request. */
const pagesOf = new Map<number, Map<number, TurnDetail[] | 'loading'>>();

export function useEpisodeTurns(detail: EpisodeDetail | null): EpisodeTurns {
  const [, arrived] = useReducer((n: number) => n + 1, 0);
  const id = detail?.episode.id ?? -1;
  const lines = useMemo<readonly TurnLine[]>(() => (detail?.outline ? linesOfOutline(detail.outline) : (detail?.turns ?? [])), [detail]);
  const paged = detail?.outline != null;

  const pages = useMemo(() => {
    if (!detail || !paged) return null;
    let known = pagesOf.get(id);
    if (!known) pagesOf.set(id, (known = new Map()));
    if (!known.has(detail.turns_from)) known.set(detail.turns_from, detail.turns);
    return known;
  }, [detail, paged, id]);

  const want = useCallback(
    (from: number, to: number) => {
      if (!pages) return;
      for (let start = Math.floor(Math.max(0, from) / TURN_PAGE) * TURN_PAGE; start <= to && start < lines.length; start += TURN_PAGE) {
        if (pages.has(start)) continue;
        pages.set(start, 'loading');
        api.getTurns({ id, from: start, count: TURN_PAGE }).then(
          (page) => {
            pages.set(start, page.turns);
            arrived();
          },
          // Asked again when the reader comes back to it.
          () => pages.delete(start),
        );
      }
    },
    [pages, id, lines.length],
  );

  // Only the pages of the episode open stay: a long one's pages are megabytes.
  useEffect(() => () => void pagesOf.delete(id), [id]);

  const at = (i: number): TurnDetail | undefined => {
    if (!detail) return undefined;
    if (!pages) return detail.turns[i];
    const page = pages.get(Math.floor(i / TURN_PAGE) * TURN_PAGE);
    return page === undefined || page === 'loading' ? undefined : page[i % TURN_PAGE];
  };
  return { lines, at, want };
}
