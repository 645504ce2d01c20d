/** Filters of the Episodes view: full-text search (debounced), runs, models, outcome, and the match count. */
import { useEffect, useRef, useState } from 'react';
import { CheckList } from '../../components/CheckList.tsx';
import { CloseIcon, SearchIcon } from '../../components/icons.tsx';
import { ModelDot } from '../../components/ModelChip.tsx';
import { Popover } from '../../components/Popover.tsx';
import { RunSelector } from '../../components/RunSelector.tsx';
import { formatCount } from '../../format/numbers.ts';
import type { OutcomeFilter } from '../../store/storeShape.ts';
import { useOverlays } from '../../overlays.ts';
import { FIELD_KEYS, matches } from '../../shortcuts.ts';
import { useAppStore } from '../../store/index.ts';
import { visibleText } from '../../../shared/displayText.ts';

/** Typing pauses shorter than this do not query (FTS over 500k turns is ~10–50 ms a query). */
const SEARCH_DEBOUNCE_MS = 250;

const OUTCOMES: { value: OutcomeFilter; label: string }[] = [
  { value: 'any', label: 'Any' },
  { value: 'success', label: 'Success' },
  { value: 'failure', label: 'Failure' },
  { value: 'unknown', label: 'Unknown' },
];

function SearchBox() {
  const committed = useAppStore((s) => s.episodeFilters.search);
  const setEpisodeFilters = useAppStore((s) => s.setEpisodeFilters);
  const [text, setText] = useState(committed);
  const input = useRef<HTMLInputElement>(null);
  const focusWanted = useOverlays((s) => s.searchFocusWanted);
  const wantSearchFocus = useOverlays((s) => s.wantSearchFocus);

  // `/` anywhere asks for this box; selected, so typing replaces the last search.
  useEffect(() => {
    if (!focusWanted) return;
    input.current?.focus();
    input.current?.select();
    wantSearchFocus(false);
  }, [focusWanted, wantSearchFocus]);

  useEffect(() => setText(committed), [committed]);
  useEffect(() => {
    if (text === committed) return;
    const timer = setTimeout(() => setEpisodeFilters({ search: text }), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, committed, setEpisodeFilters]);

  return (
    <label className="search-box">
      <SearchIcon />
      <input
        ref={input}
        type="search"
        placeholder="Search actions and observations…"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (matches(FIELD_KEYS.apply, e)) setEpisodeFilters({ search: text });
        }}
        aria-label="Full-text search over actions and observations"
        data-testid="episode-search"
        maxLength={500}
      />
      {text === '' && (
        <kbd className="search-box-key" title="Press / anywhere to search">
          /
        </kbd>
      )}
    </label>
  );
}

function ModelFilter() {
  const models = useAppStore((s) => s.episodeFilters.models);
  const setEpisodeFilters = useAppStore((s) => s.setEpisodeFilters);
  const runs = useAppStore((s) => s.runs);
  const runIds = useAppStore((s) => s.runIds);
  const used = new Set((runIds.length ? runs.filter((r) => runIds.includes(r.id)) : runs).flatMap((r) => r.models));
  const names = [...used].sort((a, b) => a.localeCompare(b));
  const label = models.length === 0 ? 'All models' : models.length === 1 ? models[0] : `${models.length} models`;
  return (
    <Popover testId="model-filter" button={<span>{label}</span>} active={models.length > 0}>
      {() => (
        <CheckList
          noun="model"
          items={names.map((name) => ({ key: name, label: visibleText(name), adornment: <ModelDot name={name} /> }))}
          selected={new Set(models)}
          onChange={(next) => setEpisodeFilters({ models: [...next].sort() })}
        />
      )}
    </Popover>
  );
}

function OutcomeFilterControl() {
  const outcome = useAppStore((s) => s.episodeFilters.outcome);
  const setEpisodeFilters = useAppStore((s) => s.setEpisodeFilters);
  return (
    <div className="segmented" role="radiogroup" aria-label="Outcome" data-testid="outcome-filter">
      {OUTCOMES.map((o) => (
        <button
          key={o.value}
          type="button"
          role="radio"
          aria-checked={outcome === o.value}
          className={outcome === o.value ? 'is-on' : undefined}
          onClick={() => setEpisodeFilters({ outcome: o.value })}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}

export function EpisodeToolbar({ total, of, loading }: { total: number | null; of: number; loading: boolean }) {
  const filters = useAppStore((s) => s.episodeFilters);
  const resetEpisodeFilters = useAppStore((s) => s.resetEpisodeFilters);
  const filtered = filters.models.length > 0 || filters.outcome !== 'any' || filters.search.trim() !== '';
  return (
    <div className="toolbar">
      <SearchBox />
      <RunSelector testId="episode-run-filter" />
      <ModelFilter />
      <OutcomeFilterControl />
      {filtered && (
        <button type="button" className="btn btn-ghost" onClick={resetEpisodeFilters} data-testid="clear-filters">
          <CloseIcon /> Clear filters
        </button>
      )}
      <div className="toolbar-spacer" />
      <div className="match-count muted" data-testid="episode-count" aria-live="polite" data-loading={loading}>
        {total === null
          ? 'Loading…'
          : filtered
            ? `${formatCount(total)} of ${formatCount(of)} episodes match`
            : `${formatCount(total)} ${total === 1 ? 'episode' : 'episodes'}`}
      </div>
    </div>
  );
}
