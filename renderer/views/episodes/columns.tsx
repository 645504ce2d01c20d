/** Column definitions of the Episodes table. Every sortable column's id is an `EpisodeSortColumn` (server-side sort). */
import {
  createColumnHelper,
  rowSortingFeature,
  tableFeatures,
} from '@tanstack/react-table';
import { EPISODE_SORT_COLUMNS, type EpisodeRow, type EpisodeSortColumn } from '../../../shared/api.ts';
import { KnownCost } from '../../components/figures.tsx';
import { ModelDot } from '../../components/ModelChip.tsx';
import { VisibleName, visibleTitle } from '../../components/VisibleName.tsx';
import { formatCost, formatCount, formatScore, formatUnit } from '../../format/numbers.ts';
import { EpisodeLiveBadge } from '../../live/LiveBadge.tsx';
import { OutcomeCell } from './OutcomeCell.tsx';

/** A loaded row with its absolute position in the sorted result. */
export interface IndexedEpisode {
  index: number;
  row: EpisodeRow;
}

export const episodeTableFeatures = tableFeatures({ rowSortingFeature });

const helper = createColumnHelper<typeof episodeTableFeatures, IndexedEpisode>();

export function isSortColumn(id: string): id is EpisodeSortColumn {
  return (EPISODE_SORT_COLUMNS as readonly string[]).includes(id);
}

/**
 * CSS grid track per column, in column order (fixed widths for figures, the rest share the space). A fixed width
 * holds its header and its widest value at the narrow windows' padding (episodes.css); the names take two lines.
 */
export const COLUMN_TRACKS: Record<string, string> = {
  // The minimums add up to what a 1024 px window leaves the table less a scroll bar (episodes.css min-width); the
  // rest goes to the episode's id first.
  id: '50px',
  ext_id: 'minmax(96px, 2fr)',
  run: 'minmax(84px, 1.3fr)',
  task_category: 'minmax(86px, 0.8fr)',
  n_turns: '62px',
  total_cost: 'minmax(96px, 0.4fr)',
  final_score: '62px',
  success: '106px',
  n_errors: '70px',
  n_switches: '86px',
  models: 'minmax(84px, 0.6fr)',
};

export const NUMERIC_COLUMNS = new Set(['id', 'n_turns', 'total_cost', 'final_score', 'n_errors', 'n_switches']);

export const episodeColumns = helper.columns([
  helper.accessor((r) => r.row.id, { id: 'id', header: '#', sortDescFirst: false }),
  helper.accessor((r) => r.row.ext_id, {
    id: 'ext_id',
    header: 'Episode',
    cell: (info) => (
      <span className="episode-id-cell">
        <EpisodeLiveBadge episodeId={info.row.original.row.id} compact />
        <span className="cell-clamp is-name mono" title={visibleTitle(info.getValue())}><VisibleName name={info.getValue()} /></span>
      </span>
    ),
  }),
  helper.accessor((r) => r.row.run, {
    id: 'run',
    header: 'Run',
    cell: (info) => <span className="cell-clamp is-name" title={visibleTitle(info.getValue())}><VisibleName name={info.getValue()} /></span>,
  }),
  helper.accessor((r) => r.row.task_category, {
    id: 'task_category',
    header: 'Category',
    cell: (info) => {
      const category = info.getValue();
      return category === null ? <span className="faint">—</span> : <span className="cell-clamp" title={category}>{category}</span>;
    },
  }),
  helper.accessor((r) => r.row.n_turns, { id: 'n_turns', sortDescFirst: true, header: 'Turns', cell: (info) => formatCount(info.getValue()) }),
  helper.accessor((r) => r.row.total_cost, {
    id: 'total_cost',
    sortDescFirst: true,
    header: 'Cost',
    cell: (info) => {
      const row = info.row.original.row;
      return row.total_cost === null ? <KnownCost known={row.known_cost} unpriced={row.unpriced_turns} short /> : formatCost(row.total_cost);
    },
  }),
  helper.accessor((r) => r.row.score_norm, {
    // Sorting by 'final_score' orders by the normalised score (runs use different score ranges), so show that.
    id: 'final_score',
    sortDescFirst: true,
    header: 'Score',
    cell: (info) => {
      const raw = info.row.original.row.final_score;
      return <span title={raw === null ? 'no score logged' : `score as logged: ${formatScore(raw)}`}>{formatUnit(info.getValue())}</span>;
    },
  }),
  helper.accessor((r) => r.row.success, {
    id: 'success',
    header: 'Outcome',
    cell: (info) => <OutcomeCell episode={info.row.original.row} />,
  }),
  helper.accessor((r) => r.row.n_errors, {
    id: 'n_errors',
    sortDescFirst: true,
    header: 'Errors',
    cell: (info) => <span className={info.getValue() > 0 ? 'has-errors' : 'faint'}>{formatCount(info.getValue())}</span>,
  }),
  helper.accessor((r) => r.row.n_switches, {
    id: 'n_switches',
    sortDescFirst: true,
    header: 'Switches',
    cell: (info) => <span className={info.getValue() > 0 ? undefined : 'faint'}>{formatCount(info.getValue())}</span>,
  }),
  helper.accessor((r) => r.row.models, {
    id: 'models',
    header: 'Models',
    enableSorting: false,
    cell: (info) => (
      // The count first: dots past the column's width are cut, never the number (the tooltip names them all).
      <span className="model-dots" title={info.getValue().map(visibleTitle).join(', ')}>
        <span className="model-dots-count faint">{info.getValue().length}</span>
        {info.getValue().map((m) => (
          <ModelDot key={m} name={m} />
        ))}
      </span>
    ),
  }),
]);
