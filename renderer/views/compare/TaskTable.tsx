/**
 * The paired tasks, one row each: both sides' score and cost, their differences (B − A), the winner, and the
 * counterfactual cost when one was asked for. Sortable by any column (client-side: at most `limit_tasks`
 * rows), filtered by who won, virtualised (thousands of rows). A row opens the split inspector on the task's
 * first episode of each side.
 */
import {
  createColumnHelper,
  createSortedRowModel,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  tableFeatures,
  useTable,
  type SortingState,
  type Updater,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import type { CompareResult, CompareTask } from '../../../shared/apiCompare.ts';
import { VisibleName, visibleTitle } from '../../components/VisibleName.tsx';
import { formatCost, formatCount, formatUnit } from '../../format/numbers.ts';
import { onListRowKey } from '../../listRowKeys.ts';
import { useAppStore } from '../../store/index.ts';
import { useCompare } from './compareStore.ts';
import { diffCost, diffUnit } from './compareFormat.ts';
import { filterCounts, keepTask, TASK_FILTER_LABELS, TASK_FILTERS } from './taskFilter.ts';
import '../episodes/episodes.css';

const features = tableFeatures({ rowSortingFeature, sortedRowModel: createSortedRowModel(), sortFns: { basic: sortFn_basic, alphanumeric: sortFn_alphanumeric } });
const helper = createColumnHelper<typeof features, CompareTask>();
const ROW_HEIGHT = 34;

/** Nulls become undefined so the sorted model puts them last in either direction. */
const num = (x: number | null | undefined): number | undefined => (x === null ? undefined : x);
const dash = <span className="faint">—</span>;

function numeric(id: keyof CompareTask, header: string, format: (x: number) => string, title: string) {
  return helper.accessor((r) => num(r[id] as number | null | undefined), {
    id,
    header,
    sortFn: 'basic',
    sortUndefined: 'last',
    meta: { title },
    cell: (info) => {
      const v = info.getValue();
      return v === undefined ? dash : format(v);
    },
  });
}

function columns(withCounterfactual: boolean) {
  return helper.columns([
    helper.accessor((r) => r.task_id, {
      id: 'task_id',
      header: 'Task',
      sortFn: 'alphanumeric',
      cell: (info) => (
        <span className="cell-ellipsis mono" title={visibleTitle(info.getValue())}>
          <VisibleName name={info.getValue()} />
        </span>
      ),
    }),
    numeric('a_score', 'A score', (x) => formatUnit(x, 3), 'Mean score of A’s episodes of this task (success rate when there is no score)'),
    numeric('b_score', 'B score', (x) => formatUnit(x, 3), 'Mean score of B’s episodes of this task'),
    numeric('d_score', 'Δ score', diffUnit, 'B − A score'),
    numeric('a_cost', 'A cost', (x) => formatCost(x), 'Mean cost per episode of A (— when a call’s cost is unknown)'),
    numeric('b_cost', 'B cost', (x) => formatCost(x), 'Mean cost per episode of B'),
    numeric('d_cost', 'Δ cost', diffCost, 'B − A cost per episode'),
    ...(withCounterfactual
      ? [
          numeric('a_counterfactual_cost', 'A on X', (x) => formatCost(x), 'A’s cost per episode with every turn on the counterfactual model'),
          numeric('b_counterfactual_cost', 'B on X', (x) => formatCost(x), 'B’s cost per episode with every turn on the counterfactual model'),
        ]
      : []),
    helper.accessor((r) => r.winner ?? undefined, {
      id: 'winner',
      header: 'Winner',
      sortFn: 'alphanumeric',
      sortUndefined: 'last',
      cell: (info) => {
        const w = info.getValue();
        return w === undefined ? dash : <span className={`compare-winner is-${w}`}>{w === 'tie' ? 'tie' : w.toUpperCase()}</span>;
      },
    }),
    helper.accessor((r) => r.a_n + r.b_n, {
      id: 'episodes',
      header: 'Episodes',
      sortFn: 'basic',
      meta: { title: 'Episodes of this task on A and on B (several are averaged)' },
      cell: (info) => `${formatCount(info.row.original.a_n)} / ${formatCount(info.row.original.b_n)}`,
    }),
  ]);
}

/** Numbers take the width of a signed five-digit cost ("−$0.00871"); the table scrolls sideways when the window is narrower. */
const NUMBER_TRACK = 'minmax(90px, 1fr)';
const TRACKS: Record<string, string> = { task_id: 'minmax(160px, 2fr)', winner: '70px', episodes: '84px' };
/** The narrowest the table can be, its columns' least widths added: below it, the card scrolls sideways. */
const leastWidth = (tracks: readonly string[]): number => tracks.reduce((sum, t) => sum + Number(/(\d+)px/.exec(t)?.[1] ?? 0), 0);

export function TaskTable({ result }: { result: CompareResult }) {
  const filter = useCompare((s) => s.filter);
  const setFilter = useCompare((s) => s.setFilter);
  const sorting = useCompare((s) => s.sorting);
  const setSorting = useCompare((s) => s.setSorting);
  const navigate = useAppStore((s) => s.navigate);
  const scrollRef = useRef<HTMLDivElement>(null);
  const withCf = result.counterfactual !== null;
  const cols = useMemo(() => columns(withCf), [withCf]);
  const tracks = cols.map((c) => TRACKS[c.id ?? ''] ?? NUMBER_TRACK);
  const grid = tracks.join(' ');
  const least = { minWidth: leastWidth(tracks) };
  const counts = useMemo(() => filterCounts(result.tasks), [result.tasks]);
  const data = useMemo(() => result.tasks.filter((t) => keepTask(t, filter)), [result.tasks, filter]);
  const onSortingChange = (updater: Updater<SortingState>) => setSorting(typeof updater === 'function' ? updater(sorting) : updater);
  const table = useTable({ features, columns: cols, data, state: { sorting }, onSortingChange, getRowId: (r) => r.task_id });
  const rows = table.getRowModel().rows;
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const open = (t: CompareTask) => navigate({ view: 'pair', a: t.a_episode, b: t.b_episode, turn: null });

  return (
    <section className="card compare-tasks" data-testid="compare-tasks">
      <header className="panel-head">
        <h2 className="panel-title">Per task</h2>
        <div className="segmented" role="radiogroup" aria-label="Show tasks">
          {TASK_FILTERS.map((f) => (
            <button key={f} type="button" role="radio" aria-checked={filter === f} className={filter === f ? 'is-on' : undefined} onClick={() => setFilter(f)} data-testid={`task-filter-${f}`}>
              {TASK_FILTER_LABELS[f]} <span className="faint">{formatCount(counts[f])}</span>
            </button>
          ))}
        </div>
        <span className="toolbar-spacer" />
        <span className="faint" data-testid="task-count">
          {result.tasks_total > result.tasks.length ? `the first ${formatCount(result.tasks.length)} of ${formatCount(result.tasks_total)} paired tasks` : `${formatCount(result.tasks_total)} paired tasks`}
          {' · a row opens both episodes side by side'}
        </span>
      </header>
      <div className="etable compare-etable" role="table" aria-rowcount={rows.length}>
        <div className="etable-scroll" ref={scrollRef}>
          <div className="etable-head" role="rowgroup" style={least}>
            {table.getHeaderGroups().map((group) => (
              <div className="etable-row etable-header-row" role="row" key={group.id} style={{ gridTemplateColumns: grid }}>
                {group.headers.map((header) => {
                  const dir = header.column.getIsSorted();
                  const meta = header.column.columnDef.meta as { title?: string } | undefined;
                  return (
                    <div key={header.id} role="columnheader" className={header.column.id === 'task_id' ? 'etable-th' : 'etable-th num'} title={meta?.title} aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : undefined} data-testid={`task-col-${header.column.id}`}>
                      <button type="button" className="th-sort" onClick={header.column.getToggleSortingHandler()}>
                        <table.FlexRender header={header} />
                        <span className={dir ? 'sort-arrow' : 'sort-arrow is-idle'}>{dir === 'asc' ? '↑' : dir === 'desc' ? '↓' : '↕'}</span>
                      </button>
                    </div>
                  );
                })}
              </div>
            ))}
          </div>
          <div className="etable-body" role="rowgroup" style={{ ...least, height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index];
              if (!row) return null;
              const t = row.original;
              return (
                <div
                  key={row.id}
                  className="etable-row"
                  role="row"
                  tabIndex={0}
                  style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT, gridTemplateColumns: grid }}
                  onClick={() => open(t)}
                  onKeyDown={(e) => onListRowKey(e, () => open(t))}
                  data-testid="task-row"
                  data-task={t.task_id}
                  data-a-episode={t.a_episode}
                  data-b-episode={t.b_episode}
                >
                  {row.getAllCells().map((cell) => (
                    <div key={cell.id} role="cell" className={cell.column.id === 'task_id' ? 'etable-td' : 'etable-td num'} data-col={cell.column.id}>
                      <table.FlexRender cell={cell} />
                    </div>
                  ))}
                </div>
              );
            })}
          </div>
          {rows.length === 0 && <p className="faint compare-tasks-none">{result.tasks.length === 0 ? 'No paired task: the sides share no task id.' : 'No task matches this filter.'}</p>}
        </div>
      </div>
    </section>
  );
}
