/** The split inspector's header: episode A and episode B side by side (run, outcome, cost, turns), and their task. */
import type { EpisodeDetail } from '../../../shared/api.ts';
import { Cost, KnownCost, OutcomeBadge } from '../../components/figures.tsx';
import { VisibleName } from '../../components/VisibleName.tsx';
import { formatCost, formatCount, plural } from '../../format/numbers.ts';
import { formatHash } from '../../routing/route.ts';
import { useAppStore } from '../../store/index.ts';

export type Side = 'A' | 'B';

function SideCard({ side, detail }: { side: Side; detail: EpisodeDetail }) {
  const runIds = useAppStore((s) => s.runIds);
  const ep = detail.episode;
  const costTitle =
    ep.total_cost === null ? `${plural(ep.unpriced_turns, 'turn')} of unknown cost; the known part is ${formatCost(ep.known_cost)}` : undefined;
  return (
    <section className="pair-side" data-testid={`pair-side-${side.toLowerCase()}`} data-episode-id={ep.id}>
      <div className="pair-side-title">
        <span className="pair-side-letter">{side}</span>
        <VisibleName name={ep.run} className="pair-side-run" />
        <a
          className="mono pair-side-episode"
          href={formatHash({ route: { view: 'episode', episodeId: ep.id, turn: null }, runIds })}
          title="Open this episode in the inspector"
          data-testid="pair-open-episode"
        >
          <VisibleName name={ep.ext_id} />
        </a>
      </div>
      <dl className="pair-side-stats">
        <div>
          <dt>Outcome</dt>
          <dd>
            <OutcomeBadge success={ep.success} score={ep.final_score} />
          </dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd data-testid="pair-cost" title={costTitle}>
            {ep.total_cost === null ? (
              <KnownCost known={ep.known_cost} unpriced={ep.unpriced_turns} />
            ) : (
              <Cost usd={ep.total_cost} estimated={detail.turns.some((t) => t.cost_source === 'priced')} />
            )}
          </dd>
        </div>
        <div>
          <dt>Turns</dt>
          <dd className="num" data-testid="pair-turns">
            {formatCount(ep.n_turns)}
          </dd>
        </div>
      </dl>
    </section>
  );
}

export function PairHeader({ a, b }: { a: EpisodeDetail; b: EpisodeDetail }) {
  const taskA = a.episode.task_id;
  const taskB = b.episode.task_id;
  return (
    <header className="pair-header" data-testid="pair-header">
      <p className="pair-task">
        {taskA === taskB ? (
          <>
            Task <VisibleName name={taskA ?? 'without an id'} className="mono" />
          </>
        ) : (
          <span className="pair-task-warning" data-testid="pair-task-mismatch">
            Different tasks (A <VisibleName name={taskA ?? '—'} className="mono" />, B <VisibleName name={taskB ?? '—'} className="mono" />): the
            turns are aligned by index all the same.
          </span>
        )}
      </p>
      <div className="pair-sides">
        <SideCard side="A" detail={a} />
        <SideCard side="B" detail={b} />
      </div>
    </header>
  );
}
