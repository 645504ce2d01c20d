/**
 * The Episodes view's data: a `PagedRows` cache per query (filters + sort). While a new query loads, the
 * previous rows stay on screen (marked stale) instead of flashing empty; the new cache replaces them once its
 * first page arrives.
 */
import { useEffect, useReducer, useState } from 'react';
import type { EpisodeQuery, EpisodeRow } from '../../../shared/api.ts';
import { api } from '../../api/index.ts';
import { PagedRows } from './pagedRows.ts';

export type EpisodeWindowQuery = Omit<EpisodeQuery, 'offset' | 'limit'>;

export const PAGE_SIZE = 200;

export interface EpisodeWindow {
  rows: PagedRows<EpisodeRow> | null;
  /** The query the shown rows answer (JSON), to tell stale rows from current ones. */
  shownKey: string | null;
  /** The query the shown rows answer. */
  shownQuery: EpisodeWindowQuery | null;
  stale: boolean;
  /** Bumped whenever a page arrives, for memos that read `rows`. */
  version: number;
}

/** `dataVersion` (the store's) re-queries the same filters when the database changed (an import). */
export function useEpisodeWindow(query: EpisodeWindowQuery, dataVersion = 0): EpisodeWindow {
  const key = JSON.stringify(query);
  const [shown, setShown] = useState<{ key: string; query: EpisodeWindowQuery; rows: PagedRows<EpisodeRow> } | null>(null);
  const [version, bump] = useReducer((n: number) => n + 1, 0);

  useEffect(() => {
    const q = JSON.parse(key) as EpisodeWindowQuery;
    const rows = new PagedRows<EpisodeRow>((offset, limit) => api.queryEpisodes({ ...q, offset, limit }), PAGE_SIZE);
    let adopted = false;
    rows.onChange = () => {
      if (!adopted) {
        adopted = true;
        setShown({ key, query: q, rows });
      }
      bump();
    };
    rows.ensure(0, PAGE_SIZE);
    return () => rows.dispose();
  }, [key, dataVersion]);

  return {
    rows: shown?.rows ?? null,
    shownKey: shown?.key ?? null,
    shownQuery: shown?.query ?? null,
    stale: shown?.key !== key,
    version,
  };
}
