/**
 * The inspector's header: which episode, its task, outcome and totals, and the legend of models it used; or,
 * compact, one line of it and the task's first line, so a small window leaves the turn's text the room. The
 * outcome badge opens what explains the outcome (OutcomePanel.tsx); the full header also sums it up in one line.
 */
import { useLayoutEffect, useMemo, useRef, useState, type CSSProperties, type MouseEvent } from 'react';
import type { EpisodeDetail } from '../../../shared/api.ts';
import { KnownCost } from '../../components/figures.tsx';
import { ChevronDownIcon, ChevronLeftIcon } from '../../components/icons.tsx';
import { ModelChip } from '../../components/ModelChip.tsx';
import { VisibleName, visibleTitle } from '../../components/VisibleName.tsx';
import { formatCost, formatCount, formatUnit, plural } from '../../format/numbers.ts';
import { formatHash } from '../../routing/route.ts';
import { useAppStore } from '../../store/index.ts';
import type { Density } from './inspectorLayout.ts';
import { OutcomePanel, OutcomeSummary, OutcomeToggle } from './OutcomePanel.tsx';
import type { TurnLine } from './useEpisodeTurns.ts';
import { fromFirstLine } from '../../format/conversationBlocks.ts';
import { EpisodeLiveBadge } from '../../live/LiveBadge.tsx';
import { LiveStrip } from '../../live/LiveStrip.tsx';

/** Turns and cost per model; a model's cost is unknown (null, shown '—') as soon as one of its turns has no known cost. */
function modelUsage(turns: readonly TurnLine[]): Map<string, { turns: number; cost: number | null }> {
  const usage = new Map<string, { turns: number; cost: number | null }>();
  for (const t of turns) {
    const u = usage.get(t.model) ?? { turns: 0, cost: 0 };
    u.turns++;
    u.cost = u.cost === null || t.cost === null ? null : u.cost + t.cost;
    usage.set(t.model, u);
  }
  return usage;
}

function ModelLegend({ lines }: { lines: readonly TurnLine[] }) {
  // Once per episode, not per step through its turns.
  const usage = useMemo(() => modelUsage(lines), [lines]);
  return (
    <div className="legend" data-testid="model-legend">
      {[...usage.entries()].map(([model, u]) => (
        <ModelChip key={model} name={model} detail={`${plural(u.turns, 'turn')} · ${formatCost(u.cost)}`} />
      ))}
    </div>
  );
}

/** Subagent and compaction runs this episode launched: their cost is theirs, shown here beside the session's own. */
function ChildrenStat({ children }: { children: EpisodeDetail['children'] }) {
  const known = children.every((c) => c.total_cost !== null);
  const cost = children.reduce((a, c) => a + (c.total_cost ?? 0), 0);
  const turns = children.reduce((a, c) => a + c.n_turns, 0);
  return (
    <div data-testid="episode-children" title={`${plural(children.length, 'child episode')} (${plural(turns, 'turn')}), listed under the turns that launched them`}>
      <dt>Subagents</dt>
      <dd className="num">
        {formatCount(children.length)} · {known ? formatCost(cost) : '—'}
      </dd>
    </div>
  );
}

/**
 * The task, cut after whole lines (one when compact, three otherwise) with a toggle for the rest: the box's
 * height is a whole number of lines, so no line shows half. Whether it overflows is measured, not guessed
 * from the text's length, since wrapping depends on the width.
 */
function TaskText({ text, lines }: { text: string; lines: number }) {
  const [open, setOpen] = useState(false);
  const [overflows, setOverflows] = useState(false);
  const ref = useRef<HTMLPreElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || open) return;
    const measure = () => setOverflows(el.scrollHeight > el.clientHeight + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [open, text, lines]);
  return (
    <div className="task">
      {/* The padding is the box's, not the text's: a clip at the text's padding edge would show a sliver of the next line. */}
      <div className="task-box">
        <pre
          ref={ref}
          className={open ? 'task-text is-open' : 'task-text is-clamped'}
          style={{ '--task-lines': lines } as CSSProperties}
          data-testid="task-text"
        >
          {fromFirstLine(text)}
        </pre>
      </div>
      {(overflows || open) && (
        <button type="button" className="btn btn-ghost task-toggle" onClick={() => setOpen((o) => !o)} aria-expanded={open} data-testid="task-toggle">
          {open ? 'Less' : 'Full task'}
        </button>
      )}
    </div>
  );
}

/** The episode's total cost: at least its known part when a call's cost is unknown, '≈' when some was priced from token counts. */
function TotalCost({ detail, lines }: { detail: EpisodeDetail; lines: readonly TurnLine[] }) {
  const ep = detail.episode;
  const priced = useMemo(() => lines.some((t) => t.cost_source === 'priced'), [lines]);
  if (ep.unpriced_turns > 0) {
    return (
      <dd
        className="num"
        data-testid="episode-cost"
        data-unknown="true"
      >
        <KnownCost known={ep.known_cost} unpriced={ep.unpriced_turns} />
      </dd>
    );
  }
  return (
    <dd className="num" data-testid="episode-cost" title={priced ? 'Includes turns priced from token counts' : undefined}>
      {priced ? '≈' : ''}
      {formatCost(ep.total_cost)}
    </dd>
  );
}

function DensityToggle({ density, onDensity }: { density: Density; onDensity(d: Density): void }) {
  const compact = density === 'compact';
  return (
    <button
      type="button"
      className="btn btn-ghost header-toggle"
      onClick={() => onDensity(compact ? 'full' : 'compact')}
      aria-expanded={!compact}
      title={compact ? 'Show all totals, the task on three lines and the models' : 'Fold the header to one line, giving the turn more room'}
      data-testid="header-toggle"
    >
      {compact ? 'More' : 'Less'}
      <span className={compact ? 'chevron' : 'chevron is-up'}>
        <ChevronDownIcon />
      </span>
    </button>
  );
}

export function EpisodeHeader({
  detail,
  lines,
  density,
  onDensity,
}: {
  detail: EpisodeDetail;
  /** Every turn, light (useEpisodeTurns). */
  lines: readonly TurnLine[];
  density: Density;
  onDensity(d: Density): void;
}) {
  const navigate = useAppStore((s) => s.navigate);
  const runIds = useAppStore((s) => s.runIds);
  const ep = detail.episode;
  const compact = density === 'compact';
  const back = (e: MouseEvent) => {
    if (e.metaKey || e.ctrlKey || e.button !== 0) return;
    e.preventDefault();
    navigate({ view: 'episodes' });
  };
  const crumbs = (
    <div className="episode-crumbs">
      <a href={formatHash({ route: { view: 'episodes' }, runIds })} onClick={back} className="crumb-back">
        <ChevronLeftIcon /> Episodes
      </a>
      <span className="faint">/</span>
      <span className="muted crumb-run" title={visibleTitle(ep.run)}>
        <VisibleName name={ep.run} />
      </span>
      {ep.parent && (
        <>
          <span className="faint">/</span>
          <span className="muted" data-testid="episode-parent" title={`${ep.kind ?? 'child'} of ${visibleTitle(ep.parent.ext_id)}`}>
            {ep.kind ?? 'child'} of{' '}
            {ep.parent.id !== null ? (
              <a href={formatHash({ route: { view: 'episode', episodeId: ep.parent.id, turn: ep.parent.t }, runIds })}>
                <VisibleName name={ep.parent.ext_id} />
                {ep.parent.t !== null ? ` · turn ${ep.parent.t}` : ''}
              </a>
            ) : (
              <span title="The parent session is not in this database">
                <VisibleName name={ep.parent.ext_id} /> (not imported)
              </span>
            )}
          </span>
        </>
      )}
    </div>
  );
  const title = (
    <>
      <h1 className="mono" data-testid="episode-title" title={visibleTitle(ep.ext_id)}>
        <VisibleName name={ep.ext_id} />
      </h1>
      <OutcomeToggle episode={ep} />
      <EpisodeLiveBadge episodeId={ep.id} />
    </>
  );

  if (compact) {
    // One line: where, which, outcome and the three totals a reader checks first; the rest (the exit reason too) behind "More".
    return (
      <header className="episode-header is-compact" data-testid="episode-header" data-density="compact">
        <div className="episode-title-row">
          {crumbs}
          <span className="faint">/</span>
          {title}
          <dl className="episode-inline-stats">
            <div title="Total cost">
              <dt>cost</dt>
              <TotalCost detail={detail} lines={lines} />
            </div>
            <div>
              <dt>turns</dt>
              <dd className="num" data-testid="episode-turns">
                {formatCount(ep.n_turns)}
              </dd>
            </div>
            <div>
              <dt>errors</dt>
              <dd className="num">{formatCount(ep.n_errors)}</dd>
            </div>
          </dl>
          <DensityToggle density={density} onDensity={onDensity} />
        </div>
        <LiveStrip episodeId={ep.id} />
        <OutcomePanel episode={ep} />
        {ep.task_text && <TaskText text={ep.task_text} lines={1} />}
      </header>
    );
  }

  return (
    <header className="episode-header" data-testid="episode-header" data-density="full">
      <div className="episode-title-row">
        {crumbs}
        <DensityToggle density={density} onDensity={onDensity} />
      </div>
      <div className="episode-title-row">
        {title}
        {ep.exit_reason && <span className="tag">{ep.exit_reason}</span>}
      </div>
      <LiveStrip episodeId={ep.id} />
      <dl className="episode-stats">
        <div>
          <dt>Total cost</dt>
          <TotalCost detail={detail} lines={lines} />
        </div>
        {detail.children.length > 0 && <ChildrenStat children={detail.children} />}
        <div>
          <dt>Turns</dt>
          <dd className="num" data-testid="episode-turns">
            {formatCount(ep.n_turns)}
          </dd>
        </div>
        <div>
          <dt>Errors</dt>
          <dd className="num">{formatCount(ep.n_errors)}</dd>
        </div>
        <div>
          <dt>Switches</dt>
          <dd className="num">{formatCount(ep.n_switches)}</dd>
        </div>
        <div>
          <dt>Score (norm.)</dt>
          <dd className="num">{formatUnit(ep.score_norm)}</dd>
        </div>
        {ep.budget_usd != null && (
          <div>
            <dt>Budget</dt>
            <dd className="num">{formatCost(ep.budget_usd)}</dd>
          </div>
        )}
        {ep.max_turns != null && (
          <div>
            <dt>Max turns</dt>
            <dd className="num">{formatCount(ep.max_turns)}</dd>
          </div>
        )}
        {ep.task_category && (
          <div>
            <dt>Category</dt>
            <dd>{ep.task_category}</dd>
          </div>
        )}
        {ep.policy_name && (
          <div>
            <dt>Policy</dt>
            <dd>{ep.policy_name}</dd>
          </div>
        )}
      </dl>
      <OutcomeSummary episode={ep} />
      <OutcomePanel episode={ep} />
      {ep.task_text && <TaskText text={ep.task_text} lines={3} />}
      <ModelLegend lines={lines} />
      <span className="visually-hidden">{plural(lines.length, 'turn')}</span>
    </header>
  );
}
