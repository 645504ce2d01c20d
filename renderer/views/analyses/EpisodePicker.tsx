/**
 * Picks the episode an analysis of one episode shows (targets, a plan's DAGs): the episodes of the given
 * runs, filtered by their id as the user types, stepped with the arrows. With nothing picked yet it picks
 * the first, so the page opens on a figure rather than on a question.
 */
import { useEffect, useMemo, useState } from 'react';
import type { EpisodeRow } from '../../../shared/api.ts';
import { api, errorMessage } from '../../api/index.ts';
import { ChevronLeftIcon, ChevronRightIcon } from '../../components/icons.tsx';
import type { EpisodeRef } from '../../store/storeShape.ts';
import { useAppStore } from '../../store/index.ts';

/** Enough to pick from by hand; the filter narrows it. */
const LIST_LIMIT = 2000;
/**
 * Options in the list at once, around the current episode: Chromium lays out every <option> of a <select>,
 * and 1,500 of them cost 300–400 ms of layout on opening the plan-dag page and again on hovering its figure.
 * The arrows still step through every match; the filter reaches the rest.
 */
const OPTIONS_SHOWN = 200;

const optionText = (r: EpisodeRow) => `${r.ext_id} · ${r.run} · ${r.n_turns} turns`;

const same = (row: EpisodeRow, ref: EpisodeRef | undefined) => ref !== undefined && row.ext_id === ref.ext_id && row.run === ref.run;

export function EpisodePicker({
  runIds,
  value,
  onChange,
  label = 'Episode',
  prefer,
  choose,
}: {
  /** Runs to pick from; empty = every run. */
  runIds: number[];
  value: EpisodeRef | undefined;
  onChange(ref: EpisodeRef): void;
  label?: string;
  /** Which episode to open on when none is picked: the first that passes this, else the first. */
  prefer?(row: EpisodeRow): boolean;
  /** Which episode to open on when none is picked, chosen among all (wins over `prefer`). */
  choose?(rows: readonly EpisodeRow[]): EpisodeRow | undefined;
}) {
  const dataVersion = useAppStore((s) => s.dataVersion);
  const navigate = useAppStore((s) => s.navigate);
  const [rows, setRows] = useState<EpisodeRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const scope = runIds.join(',');

  useEffect(() => {
    let live = true;
    setRows(null);
    const ids = scope === '' ? undefined : scope.split(',').map(Number);
    api.queryEpisodes({ runIds: ids, sort: 'id', limit: LIST_LIMIT }).then(
      (page) => {
        if (!live) return;
        setRows(page.rows);
        setError(null);
      },
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [scope, dataVersion]);

  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const list = rows ?? [];
    return f === '' ? list : list.filter((r) => r.ext_id.toLowerCase().includes(f) || same(r, value));
  }, [rows, filter, value]);

  const at = shown.findIndex((r) => same(r, value));
  const current = at === -1 ? undefined : shown[at];
  const from = Math.max(0, Math.min(at - OPTIONS_SHOWN / 2, shown.length - OPTIONS_SHOWN));
  const options = shown.slice(from, from + OPTIONS_SHOWN);
  const more = shown.length - options.length;

  useEffect(() => {
    const first = rows && choose ? choose(rows) : (prefer && rows?.find(prefer)) || rows?.[0];
    if (rows && first && !rows.some((r) => same(r, value))) onChange({ ext_id: first.ext_id, run: first.run });
  }, [rows, value, onChange, prefer, choose]);

  const pick = (row: EpisodeRow | undefined) => row && onChange({ ext_id: row.ext_id, run: row.run });

  return (
    <div className="episode-picker" data-testid="episode-picker">
      <span className="control-label">{label}</span>
      <input
        type="search"
        className="episode-picker-filter"
        placeholder="Filter by id…"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        aria-label="Filter episodes by id"
        maxLength={300}
      />
      <button type="button" className="btn btn-icon" aria-label="Previous episode" disabled={at <= 0} onClick={() => pick(shown[at - 1])}>
        <ChevronLeftIcon />
      </button>
      <select
        aria-label={label}
        title={current ? optionText(current) : undefined}
        value={current ? `${current.id}` : ''}
        onChange={(e) => pick(shown.find((r) => String(r.id) === e.target.value))}
        disabled={!rows || shown.length === 0}
        data-testid="episode-picker-select"
      >
        {!current && <option value="">{rows ? (shown.length === 0 ? 'No episode matches' : 'Choose an episode') : 'Loading episodes…'}</option>}
        {options.map((r) => (
          <option key={r.id} value={r.id}>
            {optionText(r)}
          </option>
        ))}
        {more > 0 && (
          <option value="" disabled>
            {`… ${more.toLocaleString('en-US')} more: type in the filter or step with the arrows`}
          </option>
        )}
      </select>
      <button type="button" className="btn btn-icon" aria-label="Next episode" disabled={at === -1 || at >= shown.length - 1} onClick={() => pick(shown[at + 1])}>
        <ChevronRightIcon />
      </button>
      {current && (
        <button type="button" className="btn btn-ghost" onClick={() => navigate({ view: 'episode', episodeId: current.id, turn: null })}>
          Open in the inspector
        </button>
      )}
      {error && <span className="control-problem">{error}</span>}
    </div>
  );
}
