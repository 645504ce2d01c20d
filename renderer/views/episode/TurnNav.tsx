/**
 * Buttons for the inspector's keyboard moves, each with its key; a short note when there is nowhere to go.
 * `children` go at the row's end (the layout toggles). On a narrow window the labels give way to the icons
 * and keys, the full words staying in each button's title.
 */
import type { ReactNode } from 'react';
import { ChevronLeftIcon, ChevronRightIcon, ErrorIcon, SwitchIcon } from '../../components/icons.tsx';
import type { TurnKeyActions } from '../../shortcuts.ts';

export function TurnNav({
  actions,
  canPrev,
  canNext,
  note,
  children,
}: {
  actions: TurnKeyActions;
  canPrev: boolean;
  canNext: boolean;
  note: string | null;
  children?: ReactNode;
}) {
  return (
    <div className="turn-nav" data-testid="turn-nav">
      <button type="button" className="btn" onClick={actions.prev} disabled={!canPrev} data-testid="prev-turn" aria-label="Previous turn" title="Previous turn (k or ↑)">
        <ChevronLeftIcon /> <span className="turn-nav-word">Prev</span> <kbd>k</kbd>
      </button>
      <button type="button" className="btn" onClick={actions.next} disabled={!canNext} data-testid="next-turn" aria-label="Next turn" title="Next turn (j or ↓)">
        <span className="turn-nav-word">Next</span> <kbd>j</kbd> <ChevronRightIcon />
      </button>
      <span className="turn-nav-sep" />
      <button type="button" className="btn" onClick={actions.prevError} data-testid="prev-error" aria-label="Previous error" title="Previous error (Shift+N)">
        <ErrorIcon /> <span className="turn-nav-label">Prev error</span> <kbd>N</kbd>
      </button>
      <button type="button" className="btn" onClick={actions.nextError} data-testid="next-error" aria-label="Next error" title="Next error (n)">
        <ErrorIcon /> <span className="turn-nav-label">Next error</span> <kbd>n</kbd>
      </button>
      <button type="button" className="btn" onClick={actions.nextSwitch} data-testid="next-switch" aria-label="Next model switch" title="Next model switch (s)">
        <SwitchIcon /> <span className="turn-nav-label">Next switch</span> <kbd>s</kbd>
      </button>
      <span className="turn-nav-sep" />
      <button
        type="button"
        className="btn"
        onClick={actions.prevEpisode}
        data-testid="prev-episode" aria-label="Previous episode"
        title="Previous episode ([ or Shift+K): in the Episodes list you came from, else by id in this run"
      >
        <ChevronLeftIcon /> <span className="turn-nav-label">Episode</span> <kbd>[</kbd>
      </button>
      <button
        type="button"
        className="btn"
        onClick={actions.nextEpisode}
        data-testid="next-episode" aria-label="Next episode"
        title="Next episode (] or Shift+J): in the Episodes list you came from, else by id in this run"
      >
        <span className="turn-nav-label">Episode</span> <kbd>]</kbd> <ChevronRightIcon />
      </button>
      <span className="turn-nav-note faint" aria-live="polite" title={note ?? undefined} data-testid="turn-nav-note">
        {note}
      </span>
      {children && <span className="turn-nav-end">{children}</span>}
    </div>
  );
}
