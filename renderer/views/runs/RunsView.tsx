/**
 * Runs: one row per imported run with its KPIs, sortable by column and filtered by a text box (name, format,
 * model); the runs a filter finds can become the top bar's selection at once. A click on a row opens the
 * Episodes view filtered to that run. After an import from the window the runs it added to come first, marked
 * new with a link to their episodes, shown even when the top bar's selection leaves them out; the filter typed
 * before the import is cleared.
 */
import { useMemo, useState } from 'react';
import { ImportButton } from '../../components/ImportButton.tsx';
import { SearchIcon } from '../../components/icons.tsx';
import { NoRunsYet } from '../../components/NoRunsYet.tsx';
import { plural } from '../../format/numbers.ts';
import { useAppStore } from '../../store/index.ts';
import { FollowFoldersButton } from '../../live/FollowFoldersDialog.tsx';
import { useLiveStore } from '../../live/liveStore.ts';
import { RunsTable } from './RunsTable.tsx';
import { ShareRunButton } from './ShareRunButton.tsx';
import { costSummary, DEFAULT_RUN_SORT, filterRuns, importedFirst, liveFirst, nextSort, sortRuns, type RunSort } from './runsTableModel.ts';
import './runs.css';

export default function RunsView() {
  const runs = useAppStore((s) => s.runs);
  const runIds = useAppStore((s) => s.runIds);
  const setRunIds = useAppStore((s) => s.setRunIds);
  const dbPath = useAppStore((s) => s.dbInfo?.path);
  const importedRuns = useAppStore((s) => s.importedRuns);
  // The filter is that of the last import: one typed before it would hide what it added.
  const [filter, setFilter] = useState({ text: '', since: importedRuns });
  const query = filter.since === importedRuns ? filter.text : '';
  const setQuery = (text: string) => setFilter({ text, since: importedRuns });
  const [sort, setSort] = useState<RunSort>(DEFAULT_RUN_SORT);
  const liveRuns = useLiveStore((s) => s.liveRuns);
  const selected = useMemo(() => (runIds.length === 0 ? runs : runs.filter((r) => runIds.includes(r.id))), [runs, runIds]);
  const shownImported = useMemo(() => runs.filter((r) => importedRuns.includes(r.name) && !selected.includes(r)), [runs, importedRuns, selected]);
  const rows = useMemo(() => {
    const sorted = sortRuns(filterRuns([...selected, ...shownImported], query), sort);
    // A column the user sorts by decides; the table's own order puts runs with a session running first, then what
    // was just imported.
    return sort === DEFAULT_RUN_SORT ? liveFirst(importedFirst(sorted, importedRuns), liveRuns) : sorted;
  }, [selected, shownImported, query, sort, importedRuns, liveRuns]);
  if (runs.length === 0) return <NoRunsYet />;

  // The summary counts what the table lists.
  const shown = rows;
  const episodes = shown.reduce((a, r) => a + r.episodes, 0);
  const turns = shown.reduce((a, r) => a + r.turns, 0);
  const cost = costSummary(shown);
  const unknownOutcome = shown.reduce((a, r) => a + r.unknown_outcome, 0);

  return (
    <div className="view-pad runs-view" data-testid="runs-view" data-state="ready">
      <div className="view-header">
        <h1>Runs</h1>
        <div className="view-summary muted" data-testid="runs-summary">
          <span>{plural(shown.length, 'run')}</span>
          <span>{plural(episodes, 'episode')}</span>
          <span>{plural(turns, 'turn')}</span>
          {cost.total && (
            <span className="num" data-testid="runs-total-cost" title={cost.title}>
              {cost.total}
            </span>
          )}
          {cost.unknown && (
            <span data-testid="runs-unknown-cost" title={cost.title}>
              {cost.unknown}
            </span>
          )}
          {unknownOutcome > 0 && (
            <span data-testid="runs-unknown-outcome" title="Left out of success rates and mean scores, not counted as failures">
              {unknownOutcome} of {plural(episodes, 'episode')} without an outcome
            </span>
          )}
        </div>
        <div className="view-header-actions">
          <FollowFoldersButton />
          <ShareRunButton runs={rows} />
          <ImportButton />
        </div>
      </div>
      <div className="runs-toolbar">
        <label className="search-box runs-filter">
          <SearchIcon />
          <input
            type="search"
            placeholder="Filter by name, format or model…"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            aria-label="Filter runs by name, format or model"
            data-testid="runs-filter"
            maxLength={200}
          />
        </label>
        {query.trim() !== '' && (
          <>
            <span className="muted" data-testid="runs-filter-count">
              {rows.length} of {plural(selected.length + shownImported.length, 'run')} match
            </span>
            <button
              type="button"
              className="btn"
              disabled={rows.length === 0}
              onClick={() => setRunIds(rows.map((r) => r.id))}
              title="Make these runs the selection of the top bar: every view then compares them"
              data-testid="runs-select-matching"
            >
              Select these {plural(rows.length, 'run')}
            </button>
          </>
        )}
      </div>
      {selected.length < runs.length && (
        <div className="filter-banner" data-testid="runs-filter-banner">
          Showing {selected.length} of {runs.length} runs, as selected in the top bar
          {shownImported.length > 0 ? `, and the ${plural(shownImported.length, 'run')} just imported into` : ''}.
          <button type="button" className="btn btn-ghost" onClick={() => setRunIds([])}>
            Show all runs
          </button>
        </div>
      )}
      <RunsTable runs={rows} imported={importedRuns} sort={sort} onSort={(key) => setSort((s) => nextSort(s, key))} />
      {rows.length === 0 && (
        <p className="muted runs-none" data-testid="runs-none">
          No run matches “{query}”.
        </p>
      )}
      <p className="view-footnote faint">
        Add runs with Import logs, by dropping files or folders on the window, or with{' '}
        <code>routelens import &lt;path&gt; --db {dbPath ?? '<file>'}</code>. Costs marked ≈ include turns priced from token counts
        because the log had no cost.
      </p>
    </div>
  );
}
