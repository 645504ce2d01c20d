/** Buttons for the inspector's keyboard moves, each with its key; a short note when there is nowhere to go. */
import { ChevronLeftIcon, ChevronRightIcon, ErrorIcon, SwitchIcon } from '../../components/icons.tsx';
import type { TurnKeyActions } from './useTurnKeys.ts';

export function TurnNav({
  actions,
  canPrev,
  canNext,
  note,
}: {
  actions: TurnKeyActions;
  canPrev: boolean;
  canNext: boolean;
  note: string | null;
}) {
  return (
    <div className="turn-nav" data-testid="turn-nav">
      <button type="button" className="btn" onClick={actions.prev} disabled={!canPrev} data-testid="prev-turn" title="Previous turn (k or ↑)">
        <ChevronLeftIcon /> Prev <kbd>k</kbd>
      </button>
      <button type="button" className="btn" onClick={actions.next} disabled={!canNext} data-testid="next-turn" title="Next turn (j or ↓)">
        Next <kbd>j</kbd> <ChevronRightIcon />
      </button>
      <span className="turn-nav-sep" />
      <button type="button" className="btn" onClick={actions.prevError} data-testid="prev-error" title="Previous error (Shift+N)">
        <ErrorIcon /> Prev error <kbd>N</kbd>
      </button>
      <button type="button" className="btn" onClick={actions.nextError} data-testid="next-error" title="Next error (n)">
        <ErrorIcon /> Next error <kbd>n</kbd>
      </button>
      <button type="button" className="btn" onClick={actions.nextSwitch} data-testid="next-switch" title="Next model switch (s)">
        <SwitchIcon /> Next switch <kbd>s</kbd>
      </button>
      <span className="turn-nav-note faint" aria-live="polite" data-testid="turn-nav-note">
        {note}
      </span>
    </div>
  );
}
