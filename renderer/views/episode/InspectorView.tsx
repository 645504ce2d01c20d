/**
 * Episode inspector: header, timeline, and the turn list beside the selected turn's detail. The selected turn
 * lives in the URL (#/episode/<id>/turn/<t>), replaced rather than pushed as the user steps through turns.
 * Header, timeline and step debugger fold (useInspectorLayout), so a small window leaves the turn the room.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { EmptyState, ErrorNotice } from '../../components/EmptyState.tsx';
import { useAppStore } from '../../store/index.ts';
import { EpisodeHeader } from './EpisodeHeader.tsx';
import { Timeline } from './Timeline.tsx';
import { clampTurn, nextError, nextSwitch, prevError, prevSwitch } from './turnNavigation.ts';
import { TurnDetailPanel } from './TurnDetailPanel.tsx';
import { TurnList } from './TurnList.tsx';
import { TurnNav } from './TurnNav.tsx';
import { StepDebugger } from './StepDebugger.tsx';
import { WhatIfPanel } from './WhatIfPanel.tsx';
import { useEpisode } from './useEpisode.ts';
import { useEpisodeStep } from './useEpisodeStep.ts';
import { useEpisodeTurns } from './useEpisodeTurns.ts';
import { useInspectorLayout } from './useInspectorLayout.ts';
import { useTurnKeys } from './useTurnKeys.ts';
import type { TurnKeyActions } from '../../shortcuts.ts';
import './episode.css';

/** `q`: the search that opened the episode, highlighted in the turn's text while stepping through turns. */
export default function InspectorView({ episodeId, turn, q }: { episodeId: number; turn: number | null; q?: string }) {
  const load = useEpisode(episodeId, turn);
  const navigate = useAppStore((s) => s.navigate);
  const [note, setNote] = useState<string | null>(null);
  const episodeTurns = useEpisodeTurns(load.status === 'ready' ? load.detail : null);
  const turns = episodeTurns.lines;
  const current = clampTurn(turn, turns.length);
  const [layout, chooseLayout] = useInspectorLayout();
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

  // A deep link to a turn the episode does not have shows the nearest one; make the URL say so.
  const loaded = load.status === 'ready';
  useEffect(() => {
    if (loaded && turns.length > 0 && turn !== current) navigate({ view: 'episode', episodeId, turn: current, q }, { replace: true });
  }, [loaded, turns.length, turn, current, episodeId, q, navigate]);

  // A long episode's turn shown comes in its page.
  const { want } = episodeTurns;
  useEffect(() => {
    if (loaded) want(current, current);
  }, [loaded, current, want]);

  // Another turn opens at its top; a re-render of the same turn (a what-if answer arriving) keeps the place.
  // A layout effect, so a search hit's scroll into view (a frame later) still wins.
  const detailScroll = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    detailScroll.current?.scrollTo({ top: 0 });
  }, [episodeId, current]);

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
  return (
    <div className="view-fill inspector-view" data-testid="inspector-view" data-state="ready" data-episode-id={episodeId}>
      <EpisodeHeader detail={detail} lines={turns} density={layout.header} onDensity={(header) => chooseLayout({ header })} />
      {turns.length === 0 ? (
        <EmptyState title="This episode has no turns">The log recorded the task and outcome only.</EmptyState>
      ) : (
        <>
          <Timeline turns={turns} current={current} onSelect={(t) => go(t, '')} density={layout.timeline} />
          <TurnNav actions={actions} canPrev={current > 0} canNext={current < turns.length - 1} note={note}>
            <button
              type="button"
              className="btn btn-ghost"
              onClick={() => chooseLayout({ timeline: layout.timeline === 'compact' ? 'full' : 'compact' })}
              aria-pressed={layout.timeline === 'full'}
              title={layout.timeline === 'compact' ? 'Show the cumulative cost and turn numbers above the model strip' : 'Fold the timeline to its model strip'}
              data-testid="timeline-toggle"
            >
              {layout.timeline === 'compact' ? 'Show cost plot' : 'Hide cost plot'}
            </button>
          </TurnNav>
          <div className="inspector-body" data-debugger={layout.debuggerOpen ? 'open' : 'hidden'}>
            <TurnList
              turns={turns}
              full={episodeTurns}
              current={current}
              onSelect={(t) => go(t, '')}
              launched={launchedAt(detail)}
              episode={detail.episode}
            />
            <div className="turn-detail-scroll" data-testid="turn-detail-scroll" ref={detailScroll}>
              {selected && <WhatIfPanel episodeId={episodeId} turn={selected.t} />}
              {!selected && (
                <div className="view-loading" data-testid="turn-loading">
                  Loading turn {turns[current]?.t ?? current}…
                </div>
              )}
              {selected && (
                <TurnDetailPanel
                  key={current}
                  turn={selected}
                  previousModel={current > 0 ? (turns[current - 1]?.model ?? null) : null}
                  count={turns.length}
                  launched={detail.children.filter((c) => c.parent_t === selected.t)}
                  episode={detail.episode}
                  highlight={q}
                />
              )}
            </div>
            <StepDebugger
              detail={detail}
              lines={turns}
              selected={selected ?? null}
              current={current}
              onGo={(t) => go(t, '')}
              open={layout.debuggerOpen}
              onOpenChange={(debuggerOpen) => chooseLayout({ debuggerOpen })}
            />
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
