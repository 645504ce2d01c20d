/**
 * The virtualised Episodes table. Only the rows in (and near) the viewport exist: the virtualizer maps the
 * scroll position to row indices, `PagedRows` fetches the pages behind them, and the table model is built
 * from those few dozen loaded rows, never from the whole result (a 30k-row model costs ~100 ms to build;
 * a window of 60 rows well under 1 ms). Rows have a fixed height, so nothing is measured while scrolling.
 */
import { useTable, type SortingState, type Updater } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import type { EpisodeRow } from '../../../shared/api.ts';
import { onListRowKey } from '../../listRowKeys.ts';
import { useAppStore, useOnStore } from '../../store/index.ts';
import { COLUMN_TRACKS, episodeColumns, episodeTableFeatures, isSortColumn, NUMERIC_COLUMNS, type IndexedEpisode } from './columns.tsx';
import { SearchMatch } from './SearchMatch.tsx';
import type { EpisodeWindow } from './useEpisodeWindow.ts';

const ROW_HEIGHT = 36;
/** A searched list adds a line under each row: the matching turn and the text around the hit. */
const SEARCHED_ROW_HEIGHT = 58;
/** Rows fetched beyond the viewport on each side, so ordinary scrolling never shows a placeholder. */
const PREFETCH = 100;
/** Wait this long after scrolling stops before fetching, so a fling across 30k rows fetches only where it lands. */
const FETCH_DELAY_MS = 40;

/** Scroll offset per query (JSON key), for the last few queries. */
const scrollMemory = new Map<string, number>();
function rememberScroll(key: string, top: number): void {
  scrollMemory.delete(key);
  scrollMemory.set(key, top);
  if (scrollMemory.size > 20) scrollMemory.delete(scrollMemory.keys().next().value ?? '');
}

/**
 * A ClickHouse store's episode number is a 52-bit key, nothing a person reads: the store drops the # column (its
 * default order stays the import order, as on SQLite).
 */
type Columns = typeof episodeColumns;
// The table takes a column tuple's type; the filtered list is the same columns less one.
const ON_STORE_COLUMNS = episodeColumns.filter((c) => c.id !== 'id') as unknown as Columns;
const gridOf = (columns: Columns) => columns.map((c) => COLUMN_TRACKS[c.id ?? ''] ?? '1fr').join(' ');
const GRID_TEMPLATE = gridOf(episodeColumns);
const ON_STORE_GRID = gridOf(ON_STORE_COLUMNS);

function SortArrow({ direction }: { direction: false | 'asc' | 'desc' }) {
  if (!direction) return <span className="sort-arrow is-idle">↕</span>;
  return <span className="sort-arrow">{direction === 'asc' ? '↑' : '↓'}</span>;
}

export function EpisodeTable({ window: win, onOpen }: { window: EpisodeWindow; onOpen(episode: EpisodeRow): void }) {
  const sort = useAppStore((s) => s.episodeFilters.sort);
  const desc = useAppStore((s) => s.episodeFilters.desc);
  const setEpisodeFilters = useAppStore((s) => s.setEpisodeFilters);
  const onStore = useOnStore();
  const columns: Columns = onStore ? ON_STORE_COLUMNS : episodeColumns;
  const grid = onStore ? ON_STORE_GRID : GRID_TEMPLATE;
  const sorting = useMemo<SortingState>(() => [{ id: sort, desc }], [sort, desc]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const rows = win.rows;
  const total = rows?.total ?? 0;
  const searched = !!win.shownQuery?.search;
  const rowHeight = searched ? SEARCHED_ROW_HEIGHT : ROW_HEIGHT;

  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 10,
  });
  // Sizes are cached per index: a search started or cleared must drop them.
  useEffect(() => virtualizer.measure(), [rowHeight, virtualizer]);
  const items = virtualizer.getVirtualItems();
  const start = items[0]?.index ?? 0;
  const end = (items[items.length - 1]?.index ?? -1) + 1;

  useEffect(() => {
    if (!rows) return;
    const timer = setTimeout(() => rows.ensure(start - PREFETCH, end + PREFETCH), FETCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [rows, start, end]);

  // A new result starts at the top; coming back to one (say from the inspector) returns to where you were.
  useEffect(() => {
    scrollRef.current?.scrollTo({ top: win.shownKey ? (scrollMemory.get(win.shownKey) ?? 0) : 0 });
  }, [win.shownKey]);
  const onScroll = () => {
    if (win.shownKey && scrollRef.current) rememberScroll(win.shownKey, scrollRef.current.scrollTop);
  };

  const data = useMemo<IndexedEpisode[]>(() => {
    const out: IndexedEpisode[] = [];
    if (!rows || win.version < 0) return out;
    for (let i = start; i < end; i++) {
      const row = rows.get(i);
      if (row) out.push({ index: i, row });
    }
    return out;
  }, [rows, win.version, start, end]);

  const onSortingChange = (updater: Updater<SortingState>) => {
    const next = typeof updater === 'function' ? updater(sorting) : updater;
    const first = next[0];
    if (first && isSortColumn(first.id)) setEpisodeFilters({ sort: first.id, desc: first.desc });
  };

  const table = useTable({
    features: episodeTableFeatures,
    columns,
    data,
    state: { sorting },
    onSortingChange,
    manualSorting: true,
    enableSortingRemoval: false,
    getRowId: (r) => String(r.index),
  });
  const byIndex = new Map(table.getRowModel().rows.map((r) => [r.original.index, r]));

  return (
    <div
      className={win.stale ? 'etable is-stale' : 'etable'}
      role="table"
      aria-rowcount={total}
      data-testid="episodes-table"
    >
      <div className="etable-scroll" ref={scrollRef} onScroll={onScroll} data-testid="episodes-scroll">
        <div className="etable-head" role="rowgroup">
          {table.getHeaderGroups().map((group) => (
            <div className="etable-row etable-header-row" role="row" key={group.id} style={{ gridTemplateColumns: grid }}>
              {group.headers.map((header) => {
                const canSort = header.column.getCanSort();
                const dir = header.column.getIsSorted();
                const numeric = NUMERIC_COLUMNS.has(header.column.id);
                return (
                  <div
                    key={header.id}
                    role="columnheader"
                    className={numeric ? 'etable-th num' : 'etable-th'}
                    aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : undefined}
                    data-testid={`col-${header.column.id}`}
                  >
                    {canSort ? (
                      <button type="button" className="th-sort" onClick={header.column.getToggleSortingHandler()}>
                        <table.FlexRender header={header} />
                        <SortArrow direction={dir} />
                      </button>
                    ) : (
                      <table.FlexRender header={header} />
                    )}
                  </div>
                );
              })}
            </div>
          ))}
        </div>
        <div className="etable-body" role="rowgroup" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = byIndex.get(item.index);
            const style = { transform: `translateY(${item.start}px)`, height: rowHeight, gridTemplateColumns: grid };
            if (!row) {
              return (
                <div key={item.key} className="etable-row is-placeholder" role="row" style={style} aria-busy="true">
                  {columns.map((c) => (
                    <div key={c.id} className="etable-td" role="cell">
                      <span className="skeleton" />
                    </div>
                  ))}
                </div>
              );
            }
            const episode = row.original.row;
            return (
              <div
                key={item.key}
                className={searched ? 'etable-row has-match' : 'etable-row'}
                role="row"
                aria-rowindex={item.index + 1}
                tabIndex={0}
                style={style}
                onClick={() => onOpen(episode)}
                onKeyDown={(e) => onListRowKey(e, () => onOpen(episode))}
                data-testid="episode-row"
                data-episode-id={episode.id}
                data-ext-id={episode.ext_id}
              >
                {row.getAllCells().map((cell) => (
                  <div
                    key={cell.id}
                    role="cell"
                    className={NUMERIC_COLUMNS.has(cell.column.id) ? 'etable-td num' : 'etable-td'}
                    data-col={cell.column.id}
                  >
                    <table.FlexRender cell={cell} />
                  </div>
                ))}
                {episode.match !== undefined && <SearchMatch match={episode.match} />}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
