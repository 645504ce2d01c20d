/**
 * Ctrl/⌘+K: one box to go anywhere — a view, a run (select it, or open its episodes), an episode by its
 * number or its id from the log, an analysis, or an action (import, theme, shortcuts, export the figure
 * shown). Built on cmdk (filtering, arrow keys, Enter) in a dialog of our own: cmdk's `Command.Dialog` is
 * Radix's, whose scroll lock injects a <style> element that the window's Content-Security-Policy refuses.
 */
import { Command, defaultFilter } from 'cmdk';
import { rankEntries, rankEpisodeIds, type PaletteEntry } from './paletteRanking.ts';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { EpisodeRow } from '../../shared/api.ts';
import { api } from '../api/index.ts';
import { useOverlays } from '../overlays.ts';
import type { Route } from '../routing/route.ts';
import { GLOBAL_KEYS, keyLabel, matches } from '../shortcuts.ts';
import { useAppStore } from '../store/index.ts';
import { focusEpisodeSearch } from '../useGlobalKeys.ts';
import { ANALYSIS_PAGES } from '../views/analyses/catalog.ts';
import { useAlertRulesDialog } from '../views/alerts/alertRulesDialogState.ts';
import {
  AnalysesIcon,
  BellIcon,
  CompareIcon,
  EpisodesIcon,
  EstimatorIcon,
  ImportIcon,
  InspectorIcon,
  MoonIcon,
  PolicyIcon,
  RunsIcon,
  SearchIcon,
  SunIcon,
} from './icons.tsx';
import { VisibleName, visibleTitle } from './VisibleName.tsx';
import './keyboardOverlays.css';

const VIEWS: { route: Route; label: string; icon: ReactNode; words: string[] }[] = [
  { route: { view: 'runs' }, label: 'Runs', icon: <RunsIcon />, words: ['runs', 'logs read in'] },
  { route: { view: 'episodes' }, label: 'Episodes', icon: <EpisodesIcon />, words: ['episodes', 'list', 'table'] },
  { route: { view: 'analyses', analysis: null }, label: 'Analyses', icon: <AnalysesIcon />, words: ['analyses', 'figures'] },
  { route: { view: 'estimator' }, label: 'Estimator', icon: <EstimatorIcon />, words: ['estimator', 'train', 'model card'] },
  { route: { view: 'policy' }, label: 'Policy lab', icon: <PolicyIcon />, words: ['policy lab', 'replay', 'off-policy'] },
  { route: { view: 'compare' }, label: 'Compare runs', icon: <CompareIcon />, words: ['compare', 'runs', 'groups', 'paired'] },
];

/** An episode's number in this database, typed as `12` or `#12`. */
export function episodeNumber(text: string): number | null {
  const m = /^#?(\d{1,9})$/.exec(text.trim());
  return m ? Number(m[1]) : null;
}

/** Pause in typing before asking the database for episode ids (the query also runs the full-text index). */
const LOOKUP_DEBOUNCE_MS = 150;
const LOOKUP_SHOWN = 6;

/**
 * Episodes whose id from the log is or holds the typed text, across all runs, best first (rankEpisodeIds). The
 * exact id is asked for on its own: among the episodes whose turns mention the text it could be past the page read.
 */
function useEpisodeLookup(text: string, open: boolean): EpisodeRow[] {
  const [found, setFound] = useState<{ text: string; rows: EpisodeRow[] }>({ text: '', rows: [] });
  const wanted = open ? text.trim() : '';
  useEffect(() => {
    if (wanted.length < 2) return;
    let live = true;
    const timer = setTimeout(() => {
      Promise.all([api.queryEpisodes({ ext_id: wanted, limit: LOOKUP_SHOWN }), api.queryEpisodes({ search: wanted, limit: 200 })])
        .then(([exact, page]) => {
          const seen = new Set<number>();
          const unique = [...exact.rows, ...page.rows].filter((r) => !seen.has(r.id) && seen.add(r.id));
          const rows = rankEpisodeIds(unique, wanted).slice(0, LOOKUP_SHOWN);
          if (live) setFound({ text: wanted, rows });
        })
        .catch(() => live && setFound({ text: wanted, rows: [] })); // the palette's other items still work
    }, LOOKUP_DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [wanted]);
  return found.text === wanted ? found.rows : [];
}

function Item({ entry, onSelect }: { entry: PaletteEntry<ReactNode>; onSelect(): void }) {
  return (
    <Command.Item value={entry.id} onSelect={onSelect} className="palette-item" data-testid={`palette-${entry.id}`}>
      <span className="palette-item-icon">{entry.icon}</span>
      <span className="palette-item-label">{entry.label}</span>
      {entry.hint && <span className="palette-item-hint faint">{entry.hint}</span>}
    </Command.Item>
  );
}

/**
 * The palette's frame: a backdrop that closes it on a click, Escape, focus handed back to whatever had it.
 * Focus stays inside without a trap: the only control is the text box, and the list moves by arrow keys.
 */
function PaletteShell({ open, onClose, children }: { open: boolean; onClose(): void; children: ReactNode }) {
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (!open) return;
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const onKey = (e: KeyboardEvent) => {
      if (!matches(GLOBAL_KEYS.close, e)) return;
      e.preventDefault();
      onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      const back = opener.current;
      if (back?.isConnected && back !== document.body) back.focus();
    };
  }, [open, onClose]);
  if (!open) return null;
  return (
    <>
      <div className="palette-overlay" onMouseDown={onClose} />
      <div className="palette" role="dialog" aria-modal="true" aria-label="Command palette" data-testid="command-palette">
        {children}
      </div>
    </>
  );
}

/** A score above nothing: listed for any text, after every real match. */
const SEARCH_LAST = 0.0001;

export function CommandPalette() {
  const open = useOverlays((s) => s.open === 'palette');
  const overlays = useOverlays();
  const runs = useAppStore((s) => s.runs);
  const runIds = useAppStore((s) => s.runIds);
  const lastEpisode = useAppStore((s) => s.lastEpisode);
  const theme = useAppStore((s) => s.theme);
  const [text, setText] = useState('');
  const found = useEpisodeLookup(text, open);
  const [highlighted, setHighlighted] = useState('');
  // The figure on screen, if the current page has one: its export menu is opened rather than rebuilt here.
  const [exportButton, setExportButton] = useState<HTMLElement | null>(null);

  useEffect(() => {
    if (!open) return;
    setText('');
    setExportButton(document.querySelector<HTMLElement>('[data-testid="export-menu"]'));
  }, [open]);

  /** Close, then act: a view that takes focus (a search box) gets it after the dialog hands it back. */
  const run = (action: () => void) => () => {
    overlays.close();
    setTimeout(action, 0);
  };
  const { navigate, setRunIds, openImport, toggleTheme, setEpisodeFilters } = useAppStore.getState();
  const number = episodeNumber(text);
  const typed = text.trim();

  type Entry = PaletteEntry<ReactNode> & { onSelect(): void };
  const entries: Entry[] = [];
  const foundEntry = (e: EpisodeRow): Entry => ({
    id: `episode-ext-${e.id}`, group: 'Episodes', words: [], always: 1, icon: <InspectorIcon />, hint: <VisibleName name={e.run} />,
    label: (
      <span title={visibleTitle(e.ext_id)}>
        Open <VisibleName name={e.ext_id} className="mono" /> <span className="faint">#{e.id}</span>
      </span>
    ),
    onSelect: run(() => navigate({ view: 'episode', episodeId: e.id, turn: null })),
  });
  const byNumber: Entry[] =
    number === null
      ? []
      : [{
          id: `episode-${number}`, group: 'Episodes', words: [], always: 1, icon: <InspectorIcon />, hint: 'number in this database',
          label: `Open episode #${number}`,
          onSelect: run(() => navigate({ view: 'episode', episodeId: number, turn: null })),
        }];
  // An id typed exactly as the log gives it comes first, before the episode of that number in this database.
  const exact = found.filter((e) => e.ext_id === typed);
  entries.push(...exact.map(foundEntry), ...byNumber, ...found.filter((e) => e.ext_id !== typed).map(foundEntry));
  for (const v of VIEWS) {
    entries.push({ id: `view-${v.route.view}`, group: 'Go to', words: [v.label, ...v.words], icon: v.icon, label: v.label, onSelect: run(() => navigate(v.route)) });
  }
  if (lastEpisode) {
    entries.push({
      id: 'view-last-episode', group: 'Go to', words: ['inspector', 'last episode', 'back'], icon: <InspectorIcon />, hint: `#${lastEpisode.episodeId}`,
      label: 'Inspector: the last episode opened',
      onSelect: run(() => navigate({ view: 'episode', episodeId: lastEpisode.episodeId, turn: lastEpisode.turn })),
    });
  }
  for (const a of ANALYSIS_PAGES) {
    entries.push({ id: `analysis-${a.id}`, group: 'Analyses', words: [a.name, a.id, 'analysis', 'figure'], icon: <AnalysesIcon />, label: a.name, onSelect: run(() => navigate({ view: 'analyses', analysis: a.id })) });
  }
  if (runs.length > 0 && runIds.length > 0) {
    entries.push({ id: 'runs-all', group: 'Runs', words: ['all runs', 'select all', 'clear selection'], icon: <RunsIcon />, label: 'Select all runs', onSelect: run(() => setRunIds([])) });
  }
  for (const r of runs) {
    entries.push({
      id: `run-select-${r.id}`, group: 'Runs', words: [r.name, `${r.name} select`, `select ${r.name}`], icon: <RunsIcon />,
      hint: runIds.length === 1 && runIds[0] === r.id ? 'selected' : 'select only this run',
      label: <VisibleName name={r.name} />,
      onSelect: run(() => setRunIds([r.id])),
    });
  }
  for (const r of runs) {
    entries.push({
      id: `run-open-${r.id}`, group: 'Runs', words: [`episodes of ${r.name}`, `${r.name} episodes`, `open ${r.name}`], icon: <EpisodesIcon />,
      hint: 'select it, list its episodes',
      label: (
        <>
          Episodes of <VisibleName name={r.name} />
        </>
      ),
      onSelect: run(() => {
        setRunIds([r.id]);
        navigate({ view: 'episodes' });
      }),
    });
  }
  entries.push(
    { id: 'action-import', group: 'Actions', words: ['import logs', 'open files', 'add runs'], icon: <ImportIcon />, label: 'Import logs…', onSelect: run(() => openImport()) },
    {
      id: 'action-alert-rules', group: 'Actions', words: ['alert rules', 'alerts', 'notify', 'spend rate', 'watch'], icon: <BellIcon />, label: 'Alert rules…',
      onSelect: run(() => useAlertRulesDialog.getState().setOpen(true)),
    },
    {
      id: 'action-theme', group: 'Actions', words: ['theme', 'switch theme', 'dark theme', 'light theme', 'colours'], icon: theme === 'dark' ? <SunIcon /> : <MoonIcon />,
      label: `Switch to the ${theme === 'dark' ? 'light' : 'dark'} theme`,
      onSelect: run(toggleTheme),
    },
    { id: 'action-search', group: 'Actions', words: ['search', 'find', 'full text'], icon: <SearchIcon />, hint: <kbd>/</kbd>, label: 'Search the turns of episodes', onSelect: run(focusEpisodeSearch) },
  );
  if (exportButton) {
    entries.push({ id: 'action-export', group: 'Actions', words: ['export figure', 'png', 'svg', 'pdf', 'csv', 'download'], icon: <AnalysesIcon />, label: 'Export the figure on this page…', onSelect: run(() => exportButton.click()) });
  }
  entries.push({ id: 'action-help', group: 'Actions', words: ['keyboard shortcuts', 'keys', 'help'], hint: <kbd>?</kbd>, label: 'Keyboard shortcuts', onSelect: () => overlays.show('help') });
  if (typed !== '') {
    // Offered for any text, but whatever else matches is likelier what was meant: Enter takes it only alone.
    entries.push({
      id: 'search-turns', group: 'Search', words: [], always: SEARCH_LAST, icon: <SearchIcon />,
      label: (
        <>
          Search the turns of episodes for “<VisibleName name={typed} />”
        </>
      ),
      onSelect: run(() => {
        setEpisodeFilters({ search: typed });
        navigate({ view: 'episodes' });
      }),
    });
  }
  const groups = rankEntries(entries, typed, defaultFilter);
  // Enter takes the first entry: also once the episodes found by their id come in, after the rest was listed.
  const first = groups[0]?.entries[0]?.id ?? '';
  useEffect(() => setHighlighted(first), [first]);

  return (
    <PaletteShell open={open} onClose={overlays.close}>
      {/* The ranking is ours (rankEntries): cmdk's own sorts items but leaves its groups in place. */}
      <Command label="Command palette" shouldFilter={false} loop value={highlighted} onValueChange={setHighlighted}>
        <div className="palette-input-row">
          <SearchIcon />
          <Command.Input
            value={text}
            onValueChange={setText}
            placeholder="Go to a view, run, episode number or id, analysis, or action…"
            data-testid="palette-input"
            autoFocus
          />
          <kbd className="faint">Esc</kbd>
        </div>
        <Command.List className="palette-list">
          <Command.Empty className="palette-empty">Nothing matches. Try a view, a run&apos;s name, an episode number or an analysis.</Command.Empty>
          {groups.map((g) => (
            <Command.Group key={g.name} heading={g.name}>
              {g.entries.map((e) => (
                <Item key={e.id} entry={e} onSelect={e.onSelect} />
              ))}
            </Command.Group>
          ))}
        </Command.List>
        <div className="palette-foot faint">
          <span>
            <kbd>↑</kbd>
            <kbd>↓</kbd> move
          </span>
          <span>
            <kbd>Enter</kbd> open
          </span>
          <span>
            {keyLabel(GLOBAL_KEYS.palette.keys[0]).map((cap) => (
              <kbd key={cap}>{cap}</kbd>
            ))}{' '}
            close
          </span>
        </div>
      </Command>
    </PaletteShell>
  );
}
