/**
 * Episode inspector: header, timeline, and the turn list beside the conversation (every turn, top to bottom). The
 * current turn lives in the URL (#/episode/<id>/turn/<t>), replaced rather than pushed as the user steps through
 * turns or scrolls the conversation. The step debugger and the what-if panel open on demand beside it (a button and a
 * key each, remembered); header and timeline fold (useInspectorLayout), so a small window leaves the text the room.
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { EmptyState, ErrorNotice } from '../../components/EmptyState.tsx';
import { ShareCaseButton } from '../../components/ShareCaseButton.tsx';
import { INSPECTOR_PANEL_KEYS, type TurnKeyActions } from '../../shortcuts.ts';
import { useAppStore } from '../../store/index.ts';
import { useKeyTable } from '../../useKeyTable.ts';
import { ConversationView } from './ConversationView.tsx';
import { EpisodeHeader } from './EpisodeHeader.tsx';
import { Timeline } from './Timeline.tsx';
import { clampTurn, nextError, nextSwitch, prevError, prevSwitch } from './turnNavigation.ts';
import { TurnList } from './TurnList.tsx';
import { TurnNav } from './TurnNav.tsx';
import { TurnViewSwitch, useTurnView } from './TurnReading.tsx';
import { StepDebugger } from './StepDebugger.tsx';
import { WhatIfPanel } from './WhatIfPanel.tsx';
import { useEpisode } from './useEpisode.ts';
import { useEpisodeStep } from './useEpisodeStep.ts';
import { useEpisodeTurns } from './useEpisodeTurns.ts';
import { useInspectorLayout } from './useInspectorLayout.ts';
import { useTurnKeys } from './useTurnKeys.ts';
import './episode.css';

/**
 * `q`: the search that opened the episode, marked in the conversation's text while stepping through turns; `at`:
 * the text it matched at the turn opened (routing/route.ts), where the reader lands.
 */
export default function InspectorView({ episodeId, turn, q, at }: { episodeId: number; turn: number | null; q?: string; at?: string }) {
  const load = useEpisode(episodeId, turn);
  const navigate = useAppStore((s) => s.navigate);
  const [note, setNote] = useState<string | null>(null);
  const episodeTurns = useEpisodeTurns(load.status === 'ready' ? load.detail : null);
  const turns = episodeTurns.lines;
  const current = clampTurn(turn, turns.length);
  const [layout, chooseLayout] = useInspectorLayout();
  const [view, setView] = useTurnView();
  const stepEpisode = useEpisodeStep(load.status === 'ready' ? load.detail.episode : null, setNote);

  const go = (t: number | null, miss: string) => {
    if (t === null) {
      setNote(miss);
      return;
    }
    setNote(null);
    navigate({ view: 'episode', episodeId, turn: t, q }, { replace: true });
  };
  const actions: TurnKeyActions = {
    next: () => go(current + 1 < turns.length ? current + 1 : null, 'This is the last turn.'),
    prev: () => go(current > 0 ? current - 1 : null, 'This is the first turn.'),
    first: () => go(turns.length > 0 ? 0 : null, ''),
    last: () => go(turns.length > 0 ? turns.length - 1 : null, ''),
    nextError: () => go(nextError(turns, current), 'No error after this turn.'),
    prevError: () => go(prevError(turns, current), 'No error before this turn.'),
    nextSwitch: () => go(nextSwitch(turns, current), 'No model switch after this turn.'),
    prevSwitch: () => go(prevSwitch(turns, current), 'No model switch before this turn.'),
    nextEpisode: () => stepEpisode(1),
    prevEpisode: () => stepEpisode(-1),
  };
  useTurnKeys(actions);
  const toggleWhatIf = () => chooseLayout({ whatIfOpen: !layout.whatIfOpen });
  const toggleDebugger = () => chooseLayout({ debuggerOpen: !layout.debuggerOpen });
  useKeyTable(INSPECTOR_PANEL_KEYS, { whatIf: toggleWhatIf, debugger: toggleDebugger });

  // The reader scrolled another turn into view: it is the current one (the URL, the timeline, the list follow).
  const onScrolledTo = useCallback(
    (t: number) => {
      setNote(null);
      navigate({ view: 'episode', episodeId, turn: t, q }, { replace: true });
    },
    [navigate, episodeId, q],
  );

  // A deep link to a turn the episode does not have shows the nearest one; make the URL say so.
  const loaded = load.status === 'ready';
  useEffect(() => {
    if (loaded && turns.length > 0 && turn !== current) navigate({ view: 'episode', episodeId, turn: current, q, at }, { replace: true });
  }, [loaded, turns.length, turn, current, episodeId, q, at, navigate]);

  // A long episode's turn shown comes in its page.
  const { want } = episodeTurns;
  useEffect(() => {
    if (loaded) want(current, current);
  }, [loaded, current, want]);

  if (load.status === 'loading') {
    return (
      <div className="view-loading" data-testid="inspector-view" data-state="loading">
        Loading episode {episodeId}…
      </div>
    );
  }
  if (load.status === 'not_found') {
    return (
      <div className="view-pad" data-testid="inspector-view" data-state="ready">
        <EmptyState title={`Episode ${episodeId} is not in this database`} testId="episode-not-found">
          <p>It may belong to another database, or its run was removed.</p>
          <button type="button" className="btn" onClick={() => navigate({ view: 'episodes' })}>
            Browse episodes
          </button>
        </EmptyState>
      </div>
    );
  }
  if (load.status === 'error') {
    return (
      <div className="view-pad" data-testid="inspector-view" data-state="error">
        <ErrorNotice title={`Could not load episode ${episodeId}.`} message={load.message} />
      </div>
    );
  }

  const detail = load.detail;
  const selected = episodeTurns.at(current);
  const sideOpen = layout.debuggerOpen || layout.whatIfOpen;
  return (
    <div className="view-fill inspector-view" data-testid="inspector-view" data-state="ready" data-episode-id={episodeId}>
      <EpisodeHeader detail={detail} lines={turns} density={layout.header} onDensity={(header) => chooseLayout({ header })} />
      {turns.length === 0 ? (
        <EmptyState title="This episode has no turns">The log recorded the task and outcome only.</EmptyState>
      ) : (
        <>
          <Timeline turns={turns} current={current} onSelect={(t) => go(t, '')} density={layout.timeline} />
          <TurnNav actions={actions} canPrev={current > 0} canNext={current < turns.length - 1} note={note}>
            <TurnViewSwitch view={view} onChange={setView} />
            <PanelToggle
              pressed={layout.timeline === 'full'}
              onClick={() => chooseLayout({ timeline: layout.timeline === 'compact' ? 'full' : 'compact' })}
              title={layout.timeline === 'compact' ? 'Show the cumulative cost and turn numbers above the model strip' : 'Fold the timeline to its model strip'}
              testId="timeline-toggle"
            >
              Cost plot
            </PanelToggle>
            <PanelToggle
              pressed={layout.whatIfOpen}
              onClick={toggleWhatIf}
              title="What if another model had taken this turn? ŝ, Δŝ, cost and the nearest logged evidence per model (w)"
              testId="whatif-toggle"
            >
              What-if <kbd>w</kbd>
            </PanelToggle>
            <PanelToggle
              pressed={layout.debuggerOpen}
              onClick={toggleDebugger}
              title="The step debugger: breakpoints on errors, switches, regret or a policy's disagreement, and ŝ per candidate (d)"
              testId="debugger-toggle"
            >
              Debugger <kbd>d</kbd>
            </PanelToggle>
            <ShareCaseButton what="this episode and its subagents: the conversation with its timeline, models, costs and errors" request={{ episode: episodeId }} compact />
          </TurnNav>
          <div className="inspector-body" data-side={sideOpen ? 'open' : 'closed'}>
            <TurnList
              turns={turns}
              full={episodeTurns}
              current={current}
              onSelect={(t) => go(t, '')}
              launched={launchedAt(detail)}
              episode={detail.episode}
            />
            <ConversationView
              detail={detail}
              lines={turns}
              turns={episodeTurns}
              current={current}
              onCurrent={onScrolledTo}
              highlight={q}
              hitAt={at}
              view={view}
            />
            <aside className="inspector-side" data-testid="inspector-side" hidden={!sideOpen}>
              {layout.whatIfOpen && selected && <WhatIfPanel episodeId={episodeId} turn={selected.t} onClose={() => chooseLayout({ whatIfOpen: false })} />}
              <StepDebugger
                detail={detail}
                lines={turns}
                selected={selected ?? null}
                current={current}
                onGo={(t) => go(t, '')}
                open={layout.debuggerOpen}
                onOpenChange={(debuggerOpen) => chooseLayout({ debuggerOpen })}
              />
            </aside>
          </div>
        </>
      )}
    </div>
  );
}

/** How many child episodes each turn launched, for the turn list's flag. */
function launchedAt(detail: { children: { parent_t: number | null }[] }): Map<number, number> {
  const out = new Map<number, number>();
  for (const c of detail.children) if (c.parent_t !== null) out.set(c.parent_t, (out.get(c.parent_t) ?? 0) + 1);
  return out;
}

/** A button of the nav row that shows or hides a part of the inspector, pressed while it is shown. */
function PanelToggle({ pressed, onClick, title, testId, children }: { pressed: boolean; onClick(): void; title: string; testId: string; children: ReactNode }) {
  return (
    <button type="button" className="btn panel-toggle" onClick={onClick} aria-pressed={pressed} title={title} data-testid={testId}>
      {children}
    </button>
  );
}
