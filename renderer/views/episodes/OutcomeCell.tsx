/**
 * The Episodes list's outcome cell: the outcome badge as a button that opens the episode with what explains its
 * outcome open (target, answer, scorers: OutcomePanel.tsx), one click from the list. The rest of the row opens the
 * episode as it last was.
 */
import type { MouseEvent } from 'react';
import type { EpisodeRow } from '../../../shared/api.ts';
import { OutcomeBadge } from '../../components/figures.tsx';
import { useAppStore } from '../../store/index.ts';
import { useOutcomeOpen } from '../episode/outcomeOpen.ts';
import './outcomeCell.css';

export function OutcomeCell({ episode }: { episode: EpisodeRow }) {
  const navigate = useAppStore((s) => s.navigate);
  const setOpen = useOutcomeOpen((s) => s.setOpen);
  // Enter and Space on the button are its click: the row leaves keys pressed inside it to them (onListRowKey).
  const open = (e: MouseEvent) => {
    // The row opens the episode too: this click is the cell's alone.
    e.stopPropagation();
    setOpen(true);
    navigate({ view: 'episode', episodeId: episode.id, turn: null });
  };
  return (
    <button
      type="button"
      className="outcome-cell"
      onClick={open}
      title="Open this episode with what explains its outcome: target, answer, scorers"
      data-testid="outcome-cell"
    >
      <OutcomeBadge success={episode.success} />
    </button>
  );
}
