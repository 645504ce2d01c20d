/**
 * The window: rail, top bar and the current view. Views are separate chunks, loaded when first shown.
 * Start-up: read the URL fragment (store), load the database's runs and models, then mark the root
 * `data-app-state="ready"` (tests wait on it instead of sleeping). Beside the shell, the import host listens
 * for files dropped anywhere on the window and holds the import dialog.
 */
import { lazy, Suspense, useEffect } from 'react';
import { CommandPalette } from './components/CommandPalette.tsx';
import { EmptyState, ErrorNotice } from './components/EmptyState.tsx';
import { Rail } from './components/Rail.tsx';
import { ShortcutHelp } from './components/ShortcutHelp.tsx';
import { TopBar } from './components/TopBar.tsx';
import { useAppStore, useOnStore } from './store/index.ts';
import { DATA_POLL_MS } from './store/sessionSlice.ts';
import { useGlobalKeys } from './useGlobalKeys.ts';
import { ImportHost } from './views/import/ImportHost.tsx';
import { AlertRulesHost } from './views/alerts/AlertRulesDialog.tsx';
import { AlertBanners } from './live/AlertBanner.tsx';
import { FollowFoldersHost } from './live/FollowFoldersDialog.tsx';
import { useLiveStore } from './live/liveStore.ts';
import { useLiveEvents } from './live/useLiveEvents.ts';

const RunsView = lazy(() => import('./views/runs/RunsView.tsx'));
const EpisodesView = lazy(() => import('./views/episodes/EpisodesView.tsx'));
const InspectorView = lazy(() => import('./views/episode/InspectorView.tsx'));
const AnalysesView = lazy(() => import('./views/analyses/AnalysesView.tsx'));
const EstimatorView = lazy(() => import('./views/estimator/EstimatorView.tsx'));
const PolicyLabView = lazy(() => import('./views/policy/PolicyLabView.tsx'));
const CompareView = lazy(() => import('./views/compare/CompareView.tsx'));
const PairView = lazy(() => import('./views/pair/PairView.tsx'));

function CurrentView() {
  const route = useAppStore((s) => s.route);
  const status = useAppStore((s) => s.status);
  const loadError = useAppStore((s) => s.loadError);
  const loadSession = useAppStore((s) => s.loadSession);
  const onStore = useOnStore();
  if (status === 'loading') return <div className="view-loading" data-testid="app-loading">Opening the database…</div>;
  if (status === 'error') {
    return (
      <div className="view-pad">
        <ErrorNotice title="The database could not be read." message={loadError ?? 'unknown error'} />
        <button type="button" className="btn" onClick={() => void loadSession()}>
          Try again
        </button>
      </div>
    );
  }
  if (onStore && route.view in NOT_ON_STORE) return <NotOnStore what={NOT_ON_STORE[route.view] as string} />;
  switch (route.view) {
    case 'runs':
      return <RunsView />;
    case 'episodes':
      return <EpisodesView />;
    case 'episode':
      return <InspectorView key={route.episodeId} episodeId={route.episodeId} turn={route.turn} q={route.q} at={route.at} />;
    case 'analyses':
      return <AnalysesView analysis={route.analysis} />;
    case 'estimator':
      return <EstimatorView />;
    case 'policy':
      return <PolicyLabView />;
    case 'compare':
      return <CompareView />;
    case 'pair':
      return <PairView key={`${route.a}/${route.b}`} a={route.a} b={route.b} turn={route.turn} />;
  }
}

/** Views that read estimator scores, replay or write: not built on a ClickHouse store yet (DESIGN §2). */
const NOT_ON_STORE: Partial<Record<string, string>> = {
  estimator: 'Estimators (training, scoring)', policy: 'The policy lab',
};

function NotOnStore({ what }: { what: string }) {
  return (
    <div className="view-pad">
      <EmptyState title={`${what} needs a SQLite database`} command="routelens serve --db FILE" testId="not-on-store">
        <p>
          This window reads a ClickHouse store: runs, episodes, the inspector and the analyses work here; {what.toLowerCase()} does
          not yet. Open a SQLite database holding the logs (import them with routelens import PATH --db FILE).
        </p>
      </EmptyState>
    </div>
  );
}

export function App() {
  const status = useAppStore((s) => s.status);
  const importOpen = useAppStore((s) => s.importOpen);
  const followOpen = useLiveStore((s) => s.followOpen);
  const dialogOpen = importOpen || followOpen;
  useGlobalKeys();
  useLiveEvents();

  useEffect(() => {
    const { loadSession, syncFromHash } = useAppStore.getState();
    const onHash = () => syncFromHash(window.location.hash);
    onHash(); // normalises what was typed or linked (an unknown path becomes #/runs)
    void loadSession();
    window.addEventListener('popstate', onHash);
    window.addEventListener('hashchange', onHash);
    return () => {
      window.removeEventListener('popstate', onHash);
      window.removeEventListener('hashchange', onHash);
    };
  }, []);

  useEffect(() => {
    // Writes commit elsewhere too (a CLI import, a score job): refresh when the database's data version moves. While
    // the live event stream is up it says so itself (useLiveEvents); this asks only where there is none (a store).
    const timer = setInterval(() => {
      if (document.visibilityState === 'hidden' || useLiveStore.getState().connected) return;
      useAppStore.getState().checkForChanges().catch(() => undefined); // the next tick asks again
    }, DATA_POLL_MS);
    return () => clearInterval(timer);
  }, []);

  useEffect(() => {
    const root = document.getElementById('root');
    if (root) root.dataset.appState = status;
  }, [status]);

  return (
    <>
      {/* Behind an open dialog the app is inert: no focus, no clicks, hidden from screen readers. */}
      <div className="app" inert={dialogOpen}>
        <Rail />
        <div className="app-main">
          <TopBar />
          <main className="view" data-testid="view">
            <Suspense fallback={<div className="view-loading">Loading…</div>}>
              <CurrentView />
            </Suspense>
          </main>
        </div>
      </div>
      <ImportHost />
      <AlertRulesHost />
      <FollowFoldersHost />
      <AlertBanners />
      <CommandPalette />
      <ShortcutHelp />
    </>
  );
}
