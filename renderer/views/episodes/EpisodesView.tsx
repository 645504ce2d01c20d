/** Episodes: every episode of the selected runs, filtered, sorted and searched on the server, scrolled as a window. */
import { EmptyState, ErrorNotice } from '../../components/EmptyState.tsx';
import { NoRunsYet } from '../../components/NoRunsYet.tsx';
import { hitAt } from '../../format/conversationBlocks.ts';
import { originStillHolds } from '../../store/episodeFiltersSlice.ts';
import { useAppStore } from '../../store/index.ts';
import { EpisodeTable } from './EpisodeTable.tsx';
import { EpisodeToolbar } from './EpisodeToolbar.tsx';
import { useEpisodeWindow } from './useEpisodeWindow.ts';
import './episodes.css';

export default function EpisodesView() {
  const runs = useAppStore((s) => s.runs);
  const runIds = useAppStore((s) => s.runIds);
  const filters = useAppStore((s) => s.episodeFilters);
  const dataVersion = useAppStore((s) => s.dataVersion);
  const resetEpisodeFilters = useAppStore((s) => s.resetEpisodeFilters);
  const navigate = useAppStore((s) => s.navigate);
  const origin = useAppStore((s) => s.episodesOrigin);
  const search = filters.search.trim();
  const win = useEpisodeWindow({
    runIds: runIds.length > 0 ? runIds : undefined,
    models: filters.models.length > 0 ? filters.models : undefined,
    outcome: filters.outcome,
    search: search === '' ? undefined : search,
    sort: filters.sort,
    desc: filters.desc,
  }, dataVersion);
  if (runs.length === 0) return <NoRunsYet />;

  const inScope = (runIds.length > 0 ? runs.filter((r) => runIds.includes(r.id)) : runs).reduce((a, r) => a + r.episodes, 0);
  const total = win.rows?.total ?? null;
  const error = win.rows?.error ?? null;
  const ready = win.rows !== null && !win.stale;

  return (
    <div
      className="view-fill episodes-view"
      data-testid="episodes-view"
      data-state={ready ? 'ready' : 'loading'}
      data-search={win.shownQuery?.search ?? ''}
      data-sort={win.shownQuery ? `${win.shownQuery.sort}:${win.shownQuery.desc ? 'desc' : 'asc'}` : ''}
    >
      <div className="view-header view-header-tight">
        <h1>Episodes</h1>
      </div>
      <EpisodeToolbar total={win.stale ? null : total} of={inScope} loading={!ready} />
      {originStillHolds(origin, runIds, filters) && (
        <div className="filter-banner" data-testid="episodes-origin">
          Opened from a figure: {origin.label}. The list holds the episodes these run, model and outcome filters match.
        </div>
      )}
      {error && <ErrorNotice title="Could not load episodes." message={error} />}
      {total === 0 && !win.stale ? (
        <EmptyState title="No episodes match" testId="episodes-empty">
          <p>Nothing in the selected runs matches these filters.</p>
          <button type="button" className="btn" onClick={resetEpisodeFilters}>
            Clear filters
          </button>
        </EmptyState>
      ) : (
        <EpisodeTable
          window={win}
          onOpen={(episode) =>
            // A text hit opens at its turn with the search marked; an id hit (or no search) at the start.
            navigate(
              episode.match
                ? { view: 'episode', episodeId: episode.id, turn: episode.match.index, q: win.shownQuery?.search, at: hitAt(episode.match) }
                : { view: 'episode', episodeId: episode.id, turn: null },
            )
          }
        />
      )}
    </div>
  );
}
