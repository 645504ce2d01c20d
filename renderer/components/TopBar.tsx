/** The top bar: the open database, the run selection, and the theme toggle. */
import { plural } from '../format/numbers.ts';
import { useAppStore } from '../store/index.ts';
import { useOverlays } from '../overlays.ts';
import { GLOBAL_KEYS, keyLabel } from '../shortcuts.ts';
import { useAlertRulesDialog } from '../views/alerts/alertRulesDialogState.ts';
import { BellIcon, DatabaseIcon, MoonIcon, SearchIcon, SunIcon } from './icons.tsx';
import { RunSelector } from './RunSelector.tsx';

function baseName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}

/** A store's URL (`clickhouse://h1:p1,h2:p2/DB?cluster=C`, no credentials) as its database and shard count. */
export function storeName(url: string): string {
  const m = /^clickhouse:\/\/([^/]*)\/([^?]*)/.exec(url);
  if (!m) return url;
  const shards = (m[1] ?? '').split(',').length;
  return `ClickHouse ${m[2]} · ${plural(shards, 'shard')}`;
}

export function TopBar() {
  const dbInfo = useAppStore((s) => s.dbInfo);
  // Sessions, as the Runs view and `info` count them: a subagent's episode is part of its parent's session.
  const sessions = useAppStore((s) => s.runs.reduce((a, r) => a + r.episodes, 0));
  const status = useAppStore((s) => s.status);
  const theme = useAppStore((s) => s.theme);
  const toggleTheme = useAppStore((s) => s.toggleTheme);
  return (
    <header className="topbar">
      <div className="topbar-db" title={dbInfo?.path} data-testid="db-name">
        <DatabaseIcon />
        <span className="topbar-db-name">{dbInfo ? (dbInfo.store === 'clickhouse' ? storeName(dbInfo.path) : baseName(dbInfo.path)) : 'RouteLens'}</span>
        {dbInfo && (
          <span className="topbar-db-counts faint" data-testid="db-counts">
            {plural(sessions, 'episode')} · {plural(dbInfo.turns, 'turn')}
          </span>
        )}
      </div>
      {status === 'ready' && <RunSelector />}
      <div className="topbar-spacer" />
      <button
        type="button"
        className="btn btn-ghost topbar-palette"
        onClick={() => useOverlays.getState().show('palette')}
        title="Command palette: go to a view, run, episode or analysis, or run an action"
        data-testid="palette-button"
      >
        <SearchIcon />
        <span className="topbar-palette-label">Go to…</span>
        {keyLabel(GLOBAL_KEYS.palette.keys[0]).map((cap) => (
          <kbd key={cap}>{cap}</kbd>
        ))}
      </button>
      <button
        type="button"
        className="btn btn-ghost btn-icon"
        onClick={() => useAlertRulesDialog.getState().setOpen(true)}
        title="Alert rules: what to be told about while logs are followed (spend rate, cost, a model streak, errors)"
        aria-label="Alert rules"
        data-testid="alert-rules-button"
      >
        <BellIcon />
      </button>
      <button
        type="button"
        className="btn btn-ghost btn-icon"
        onClick={toggleTheme}
        title={theme === 'dark' ? 'Switch to the light theme' : 'Switch to the dark theme'}
        aria-label={theme === 'dark' ? 'Switch to the light theme' : 'Switch to the dark theme'}
        data-testid="theme-toggle"
        data-theme={theme}
      >
        {theme === 'dark' ? <SunIcon /> : <MoonIcon />}
      </button>
    </header>
  );
}
