/** The selected row's two turns in full, side by side in one scroll container, each with a link to the inspector. */
import type { EpisodeDetail } from '../../../shared/api.ts';
import { plural } from '../../format/numbers.ts';
import { formatHash } from '../../routing/route.ts';
import { useAppStore } from '../../store/index.ts';
import { TurnDetailPanel } from '../episode/TurnDetailPanel.tsx';
import type { Side } from './PairHeader.tsx';

function Column({ side, detail, index }: { side: Side; detail: EpisodeDetail; index: number }) {
  const runIds = useAppStore((s) => s.runIds);
  const turn = detail.turns[index];
  const count = detail.turns.length;
  return (
    <div className="pair-detail-column" data-testid={`pair-detail-${side.toLowerCase()}`}>
      <div className="pair-detail-head">
        <span className="pair-side-letter">{side}</span>
        <a
          href={formatHash({ route: { view: 'episode', episodeId: detail.episode.id, turn: turn ? index : null }, runIds })}
          data-testid="pair-open-turn"
        >
          {turn ? `Open turn ${index} in the inspector` : 'Open in the inspector'}
        </a>
      </div>
      {turn ? (
        <TurnDetailPanel
          key={index}
          turn={turn}
          previousModel={index > 0 ? (detail.turns[index - 1]?.model ?? null) : null}
          count={count}
          launched={detail.children.filter((c) => c.parent_t === turn.t)}
        />
      ) : (
        <p className="pair-detail-none faint" data-testid="pair-detail-none">
          {side} has no turn {index}: it ended after {plural(count, 'turn')}.
        </p>
      )}
    </div>
  );
}

export function PairTurnDetails({ a, b, index }: { a: EpisodeDetail; b: EpisodeDetail; index: number }) {
  return (
    <div className="pair-details" data-testid="pair-details">
      <Column side="A" detail={a} index={index} />
      <Column side="B" detail={b} index={index} />
    </div>
  );
}
