import type { RunSummary } from '../../../shared/api.ts';
import { Cost, KnownCost } from '../../components/figures.tsx';
import { ModelChip } from '../../components/ModelChip.tsx';
import { VisibleName, visibleTitle } from '../../components/VisibleName.tsx';
import { cutAtWord } from '../../format/cutAtWord.ts';
import { formatCost, formatCount, formatPercent, formatUnit } from '../../format/numbers.ts';
import { onListRowKey } from '../../listRowKeys.ts';
import { formatHash } from '../../routing/route.ts';
import { useAppStore } from '../../store/index.ts';
import { RunLiveBadge } from '../../live/LiveBadge.tsx';
import { LogTotalsBadge } from './LogTotalsBadge.tsx';
import type { RunSort, RunSortKey } from './runsTableModel.ts';

/** A run's description (its policy) under its name: two lines of the narrow column at most, cut at a word. */
const POLICY_CHARS = 44;

function ShareBar({ value }: { value: number | null }) {
  if (value === null) return null;
  return (
    <span className="share-bar" aria-hidden="true">
      <span style={{ width: `${Math.round(Math.max(0, Math.min(1, value)) * 100)}%` }} />
    </span>
  );
}

/** Why the cost reads as it does: unknown for some episodes (with the known part), or partly priced from tokens. */
function costTitle(run: RunSummary): string | undefined {
  if (run.total_cost === null) {
    return `At least ${formatCost(run.known_cost)}: ${formatCount(run.unpriced_episodes)} of ${formatCount(run.episodes)} episodes have calls the log gives no cost for and that cannot be priced`;
  }
  return run.priced_turns > 0 ? `${run.priced_turns} of ${run.turns} turns priced from tokens` : undefined;
}

function RunRow({ run, isNew }: { run: RunSummary; isNew: boolean }) {
  const setRunIds = useAppStore((s) => s.setRunIds);
  const navigate = useAppStore((s) => s.navigate);
  const open = () => {
    setRunIds([run.id]);
    navigate({ view: 'episodes' });
  };
  const estimated = run.priced_turns > 0;
  return (
    <tr
      className={isNew ? 'run-row is-new' : 'run-row'}
      tabIndex={0}
      onClick={open}
      onKeyDown={(e) => onListRowKey(e, open)}
      data-testid="run-row"
      data-run-name={run.name}
      data-new={isNew || undefined}
    >
      <td className="run-name-cell">
        <div className="run-name" data-testid="run-name" title={visibleTitle(run.name)}>
          <VisibleName name={run.name} />
        </div>
        <RunLiveBadge runId={run.id} />
        {isNew && (
          <div className="run-new">
            <span className="badge run-new-badge">just imported</span>
            {/* A link, not only the row's click: what to do next, in plain sight. */}
            <a href={formatHash({ route: { view: 'episodes' }, runIds: [run.id] })} onClick={(e) => e.stopPropagation()} data-testid="run-open">
              Open
            </a>
          </div>
        )}
        <div className="run-meta faint">
          <span className="format-tag" title={run.format}>{run.format}</span>
          {run.policy_name && (
            <span className="run-policy" title={run.policy_name} data-testid="run-policy">
              {cutAtWord(run.policy_name, POLICY_CHARS)}
            </span>
          )}
          {run.source_path && (
            <span className="run-source" title={run.source_path}>
              {run.source_path.split(/[\\/]/).pop()}
            </span>
          )}
        </div>
      </td>
      <td
        className="num"
        data-testid="run-episodes"
        title={run.child_episodes > 0 ? `plus ${formatCount(run.child_episodes)} subagent / compaction episodes, counted in their sessions` : undefined}
      >
        {formatCount(run.episodes)}
      </td>
      <td className="num" data-testid="run-turns">
        {formatCount(run.turns)}
      </td>
      <td className="run-models">
        {run.models.map((m) => (
          <ModelChip key={m} name={m} compact />
        ))}
      </td>
      <td className="num" title={costTitle(run)}>
        {/* The cost alone under its test id: the mark of the log's totals below it is another fact. */}
        <span data-testid="run-cost">
          {run.total_cost === null ? <KnownCost known={run.known_cost} unpriced={run.unpriced_turns} /> : <Cost usd={run.total_cost} estimated={estimated} />}
        </span>
        <LogTotalsBadge totals={run.log_totals} />
      </td>
      <td
        className="num"
        data-testid="run-success"
        title={run.unknown_outcome > 0 ? `${formatCount(run.unknown_outcome)} of ${formatCount(run.episodes)} episodes have no outcome: left out, not counted as failures` : undefined}
      >
        <span className="with-bar">
          {formatPercent(run.success_rate)}
          <ShareBar value={run.success_rate} />
        </span>
      </td>
      <td className="num" data-testid="run-score">
        <span className="with-bar">
          {formatUnit(run.mean_score_norm)}
          <ShareBar value={run.mean_score_norm} />
        </span>
      </td>
    </tr>
  );
}

const COLUMNS: { key: RunSortKey; label: string; num?: boolean; title?: string }[] = [
  { key: 'name', label: 'Run' },
  { key: 'episodes', label: 'Episodes', num: true },
  { key: 'turns', label: 'Turns', num: true },
  { key: 'cost', label: 'Total cost', num: true, title: 'Runs whose cost is unknown sort last' },
  { key: 'success', label: 'Success', num: true, title: 'Share of episodes with success = true, among those with a known outcome' },
  { key: 'score', label: 'Mean score', num: true, title: 'Mean normalised score in [0, 1]' },
];

function SortHeader({ column, sort, onSort }: { column: (typeof COLUMNS)[number]; sort: RunSort; onSort(key: RunSortKey): void }) {
  const active = sort.key === column.key;
  return (
    <th className={column.num ? 'num' : undefined} aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'} title={column.title}>
      <button type="button" className="th-sort" onClick={() => onSort(column.key)} data-testid={`runs-sort-${column.key}`}>
        {column.label}
        <span className="sort-arrow" aria-hidden="true">
          {active ? (sort.dir === 'asc' ? '▲' : '▼') : ''}
        </span>
      </button>
    </th>
  );
}

/** `imported`: the runs the last import from the window added to, marked as such. */
export function RunsTable({ runs, imported = [], sort, onSort }: { runs: RunSummary[]; imported?: readonly string[]; sort: RunSort; onSort(key: RunSortKey): void }) {
  const header = (c: (typeof COLUMNS)[number]) => <SortHeader key={c.key} column={c} sort={sort} onSort={onSort} />;
  return (
    <div className="card table-card">
      <table className="runs-table" data-testid="runs-table">
        <thead>
          <tr>
            {COLUMNS.slice(0, 3).map(header)}
            <th>Models</th>
            {COLUMNS.slice(3).map(header)}
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <RunRow key={r.id} run={r} isNew={imported.includes(r.name)} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
