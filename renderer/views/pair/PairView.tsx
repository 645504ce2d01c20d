/**
 * The split inspector (issue 18): episode A and episode B of one task, turns aligned by index, the first
 * divergence marked, the selected row's two turns in full below. Keys as in the inspector, except that n / N step
 * through the rows that differ; Escape goes back to Compare. The selected row lives in the URL
 * (#/pair/<A>/<B>/turn/<t>), replaced rather than pushed as the user steps.
 */
import { useEffect, useMemo, useState } from 'react';
import { TURN_PAGE } from '../../../shared/api.ts';
import { EmptyState, ErrorNotice } from '../../components/EmptyState.tsx';
import { ChevronLeftIcon, ChevronRightIcon } from '../../components/icons.tsx';
import { useAppStore } from '../../store/index.ts';
import { clampTurn } from '../episode/turnNavigation.ts';
import { useEpisode, type EpisodeLoad } from '../episode/useEpisode.ts';
import { matches, PAIR_KEYS } from '../../shortcuts.ts';
import { typingInto, useKeyTable } from '../../useKeyTable.ts';
import { AlignedTurns } from './AlignedTurns.tsx';
import { alignTurns, describeDivergence, differenceStops, firstDivergence, nextStop, prevStop } from './alignTurns.ts';
import { DivergeIcon } from './DivergeIcon.tsx';
import { PairHeader } from './PairHeader.tsx';
import { PairTurnDetails } from './PairTurnDetails.tsx';
import '../episode/episode.css';
import './pair.css';

/** Escape leaves for Compare, unless it is closing something open (a popover, a dialog) or typed into a field. */
function useEscapeTo(leave: () => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!matches(PAIR_KEYS.back, e) || e.defaultPrevented || typingInto(e.target)) return;
      if (e.target instanceof Element && e.target.closest('.popover, [role="dialog"]')) return;
      e.preventDefault();
      leave();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [leave]);
}

function notReady(load: EpisodeLoad, side: string, id: number) {
  if (load.status === 'loading') return null;
  if (load.status === 'not_found') return <EmptyState title={`Episode ${side} (${id}) is not in this database`} testId="pair-not-found" />;
  if (load.status === 'error') return <ErrorNotice title={`Could not load episode ${side} (${id}).`} message={load.message} />;
  return null;
}

function agreeing(until: number): string {
  if (until === 0) return '.';
  return until === 1 ? '; turn 0 agrees.' : `; turns 0–${until - 1} agree.`;
}

export default function PairView({ a, b, turn }: { a: number; b: number; turn: number | null }) {
  const loadA = useEpisode(a);
  const loadB = useEpisode(b);
  const navigate = useAppStore((s) => s.navigate);
  const [note, setNote] = useState<string | null>(null);
  const detailA = loadA.status === 'ready' ? loadA.detail : null;
  const detailB = loadB.status === 'ready' ? loadB.detail : null;
  const rows = useMemo(() => (detailA && detailB ? alignTurns(detailA.turns, detailB.turns) : []), [detailA, detailB]);
  const first = useMemo(() => firstDivergence(rows), [rows]);
  const stops = useMemo(() => differenceStops(rows), [rows]);
  const current = clampTurn(turn, rows.length);
  const switched = (i: number) => rows[i]?.a?.switched === true || rows[i]?.b?.switched === true;

  const go = (t: number | null, miss: string) => {
    if (t === null) {
      setNote(miss);
      return;
    }
    setNote(null);
    navigate({ view: 'pair', a, b, turn: t }, { replace: true });
  };
  const seekSwitch = (step: 1 | -1) => {
    for (let i = current + step; i >= 0 && i < rows.length; i += step) if (switched(i)) return i;
    return null;
  };
  // Escape (back) is bound by useEscapeTo, which leaves it to a popover or dialog that is open.
  const actions: Omit<Record<keyof typeof PAIR_KEYS, () => void>, 'back'> = {
    next: () => go(current + 1 < rows.length ? current + 1 : null, 'This is the last turn.'),
    prev: () => go(current > 0 ? current - 1 : null, 'This is the first turn.'),
    first: () => go(rows.length > 0 ? 0 : null, ''),
    last: () => go(rows.length > 0 ? rows.length - 1 : null, ''),
    nextDifference: () => go(nextStop(stops, current), 'No difference after this turn.'),
    prevDifference: () => go(prevStop(stops, current), 'No difference before this turn.'),
    nextSwitch: () => go(seekSwitch(1), 'No model switch after this turn in A or B.'),
    prevSwitch: () => go(seekSwitch(-1), 'No model switch before this turn in A or B.'),
  };
  useKeyTable(PAIR_KEYS, actions);
  const leave = useMemo(() => () => navigate({ view: 'compare' }), [navigate]);
  useEscapeTo(leave);

  // A deep link to a row the pair does not have shows the nearest one; make the URL say so.
  const loaded = detailA !== null && detailB !== null;
  useEffect(() => {
    if (loaded && rows.length > 0 && turn !== current) navigate({ view: 'pair', a, b, turn: current }, { replace: true });
  }, [loaded, rows.length, turn, current, a, b, navigate]);

  if (!detailA || !detailB) {
    const problem = notReady(loadA, 'A', a) ?? notReady(loadB, 'B', b);
    return (
      <div className="view-pad" data-testid="pair-view" data-state={problem ? 'error' : 'loading'}>
        {problem ?? <div className="view-loading">Loading episodes {a} and {b}…</div>}
      </div>
    );
  }

  // A long episode comes a page at a time; side by side would read only its first page, so say so instead.
  const long = [detailA, detailB].find((d) => d.outline !== null);
  if (long) {
    return (
      <div className="view-pad" data-testid="pair-view" data-state="ready">
        <EmptyState title="Too long to read side by side" testId="pair-too-long">
          <p>
            Episode {long.episode.ext_id} has {long.turn_count.toLocaleString('en')} turns; the pair view reads episodes of up to{' '}
            {TURN_PAGE.toLocaleString('en')}. Open each in the inspector, which reads a long episode a page at a time.
          </p>
          <button type="button" className="btn" onClick={() => navigate({ view: 'episode', episodeId: long.episode.id, turn: null })}>
            Open {long.episode.ext_id} in the inspector
          </button>
        </EmptyState>
      </div>
    );
  }

  return (
    <div className="view-fill pair-view" data-testid="pair-view" data-state="ready">
      <PairHeader a={detailA} b={detailB} />
      <div className="turn-nav pair-nav" data-testid="pair-nav">
        <button type="button" className="btn" onClick={leave} data-testid="pair-back" title="Back to Compare (Escape)">
          <ChevronLeftIcon /> Compare <kbd>Esc</kbd>
        </button>
        <span className="turn-nav-sep" />
        <button type="button" className="btn" onClick={actions.prev} disabled={current === 0} data-testid="prev-turn" title="Previous turn (k or ↑)">
          <ChevronLeftIcon /> Prev <kbd>k</kbd>
        </button>
        <button type="button" className="btn" onClick={actions.next} disabled={current >= rows.length - 1} data-testid="next-turn" title="Next turn (j or ↓)">
          Next <kbd>j</kbd> <ChevronRightIcon />
        </button>
        <button type="button" className="btn" onClick={actions.prevDifference} data-testid="prev-difference" title="Previous difference (Shift+N)">
          Prev difference <kbd>N</kbd>
        </button>
        <button type="button" className="btn" onClick={actions.nextDifference} data-testid="next-difference" title="Next difference (n)">
          Next difference <kbd>n</kbd>
        </button>
        <span className="turn-nav-note faint" aria-live="polite" data-testid="turn-nav-note">
          {note}
        </span>
      </div>
      {rows.length === 0 ? (
        <EmptyState title="Neither episode has turns">The logs recorded the task and outcome only.</EmptyState>
      ) : (
        <>
          <p className="pair-summary" data-testid="divergence-summary" data-t={first?.index ?? ''}>
            {first === null ? (
              'No divergence: the same model, tool and action at every turn.'
            ) : (
              <>
                <button type="button" className="btn btn-ghost pair-summary-jump" onClick={() => go(first.index, '')}>
                  <DivergeIcon /> First divergence at turn {first.index}
                </button>
                <span>
                  {describeDivergence(first)}
                  {agreeing(first.index)}
                </span>
              </>
            )}
          </p>
          <div className="pair-body">
            <AlignedTurns
              rows={rows}
              current={current}
              first={first?.index ?? null}
              labels={{ a: detailA.episode.run, b: detailB.episode.run }}
              onSelect={(t) => go(t, '')}
            />
            <PairTurnDetails a={detailA} b={detailB} index={current} />
          </div>
        </>
      )}
    </div>
  );
}
