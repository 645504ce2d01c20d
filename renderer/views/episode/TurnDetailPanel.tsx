/**
 * One turn (one model call) as a section of the conversation: a head line with its model, switch, cost, tokens and
 * latency; its errors; its other figures (propensity, router, targets, candidates), folded; then the conversation's
 * blocks for it (format/conversationBlocks.ts), or its record as imported (JSON). The inspector shows one per turn in a
 * scrolling column; the pair view one per side.
 */
import { useMemo, type ReactNode } from 'react';
import type { EpisodeDetail, TurnDetail } from '../../../shared/api.ts';
import { Cost, SeverityBadge } from '../../components/figures.tsx';
import { ModelChip } from '../../components/ModelChip.tsx';
import { turnBlocks, type Child } from '../../format/conversationBlocks.ts';
import { formatCost, formatCount, formatLatency, formatUnit } from '../../format/numbers.ts';
import { unknownCumulativeTitle, unknownTurnCostTitle, type CostEpisode } from '../../format/unknownCost.ts';
import { useAppStore, useModelColors } from '../../store/index.ts';
import { BlockView } from './ConversationBlocks.tsx';
import { PlanTurnDag } from './PlanTurnDag.tsx';
import { TurnAsImported, TurnViewSwitch, useTurnView, type TurnView } from './TurnReading.tsx';
// The blocks' and the head's look, in the pair view too (the inspector's column rules are scoped to it).
import './conversation.css';

function Figure({ label, children, title, testId, wide }: { label: string; children: ReactNode; title?: string; testId?: string; wide?: boolean }) {
  return (
    <div className={wide ? 'figure figure-wide' : 'figure'} title={title} data-testid={testId}>
      <dt>{label}</dt>
      <dd className="num">{children}</dd>
    </div>
  );
}

function Candidates({ turn }: { turn: TurnDetail }) {
  const colorOf = useModelColors();
  const entries = Object.entries(turn.candidates).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return null;
  const max = Math.max(...entries.map((e) => Math.abs(e[1])), 1e-9);
  return (
    <section className="candidates" data-testid="candidates">
      <h3>
        Router candidates <span className="faint">scores the log recorded for each model</span>
      </h3>
      <ul>
        {entries.map(([model, score]) => (
          <li key={model} className={model === turn.model ? 'is-chosen' : undefined}>
            <ModelChip name={model} compact />
            <span className="candidate-bar" aria-hidden="true">
              <span style={{ width: `${(Math.abs(score) / max) * 100}%`, background: colorOf(model) }} />
            </span>
            <span className="num">{score.toFixed(3)}</span>
            <span className="candidate-chosen">{model === turn.model ? 'chosen' : ''}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Errors({ turn }: { turn: TurnDetail }) {
  if (turn.errors.length === 0) return null;
  return (
    <section className="turn-errors" data-testid="turn-errors" aria-label="Errors">
      <ul>
        {turn.errors.map((e, i) => (
          <li key={`${e.type}-${i}`} data-testid="turn-error">
            <SeverityBadge severity={e.severity} />
            <span className="mono">{e.type}</span>
            <span className="faint">{e.source === 'rule' ? 'detected by an error rule' : 'from the log'}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A β-mixed router's own record: the model it would pick greedily, and whether this turn took it or explored. */
function RouterDecision({ router }: { router: NonNullable<TurnDetail['router']> }) {
  const decision = router.was_greedy === null ? null : router.was_greedy ? 'greedy' : 'explored';
  return (
    <Figure label="Router" title="The logging router's greedy model, whether it took it (greedy) or drew at random (explored), and its β" testId="turn-router" wide>
      {router.greedy_model ? <ModelChip name={router.greedy_model} compact /> : <span className="faint">—</span>}
      {decision && <span> {decision}</span>}
      {router.beta !== null && <span className="faint"> · β {router.beta}</span>}
    </Figure>
  );
}

/** Everything about the call past its head line: tokens, where the cost came from, propensity, targets, notes, candidates. */
function Figures({ turn, episode }: { turn: TurnDetail; episode?: CostEpisode }) {
  return (
    <>
      <dl className="figures">
        <Figure label="Tokens in">{formatCount(turn.tokens_in)}</Figure>
        <Figure label="Tokens out">{formatCount(turn.tokens_out)}</Figure>
        <Figure label="Cached" title="Cache reads (part of tokens in)">
          {formatCount(turn.tokens_cached)}
        </Figure>
        {turn.tokens_cache_write != null && (
          <Figure label="Cache writes" title="Cache creation (part of tokens in), priced apart">
            {formatCount(turn.tokens_cache_write)}
          </Figure>
        )}
        {turn.tokens_reasoning != null && (
          <Figure label="Reasoning" title="Reasoning tokens (part of tokens out)">
            {formatCount(turn.tokens_reasoning)}
          </Figure>
        )}
        <Figure wide label="Cost from" title="Where this turn's cost came from: the log, or the price table (and its version) and cache-write tier it was priced with" testId="turn-cost-provenance">
          {turn.cost_source === 'logged' ? 'log' : turn.cost_source === 'none' ? '—' : (turn.price_provenance ?? 'list price (table not recorded)')}
        </Figure>
        <Figure label="Cumulative" title={turn.cumulative_cost === null ? unknownCumulativeTitle(episode) : 'Cost of the turns up to this one'}>
          {formatCost(turn.cumulative_cost)}
        </Figure>
        <Figure label="Latency">{formatLatency(turn.latency_ms)}</Figure>
        <Figure label="Propensity" title="Probability the logging router gave the chosen model">
          {formatUnit(turn.propensity)}
        </Figure>
        {turn.router && <RouterDecision router={turn.router} />}
        <Figure label="Target" title="What this turn went on to reach: the episode’s normalised final score less the penalties of the errors from this turn on. The estimator learns to predict it.">
          {formatUnit(turn.s_tilde, 3)}
        </Figure>
        <Figure label="Error penalty" title="What this turn's errors take off the score of this turn and the turns before it (by error kind and severity)">
          {turn.penalty ? formatUnit(turn.penalty, 3) : <span className="faint">0</span>}
        </Figure>
      </dl>
      {turn.notes.length > 0 && (
        <ul className="turn-notes" data-testid="turn-notes">
          {turn.notes.map((n) => (
            <li key={n}>
              <span className="tag">inferred</span> {n}
            </li>
          ))}
        </ul>
      )}
      <Candidates turn={turn} />
    </>
  );
}

/** The call's cost, tokens and latency on the head line; the rest one click away. */
function HeadFigures({ turn, episode, open, onOpen }: { turn: TurnDetail; episode?: CostEpisode; open: boolean; onOpen(open: boolean): void }) {
  const costTitle =
    turn.cost_source === 'priced'
      ? `Estimated from token counts × list prices (${turn.price_provenance ?? 'price table not recorded: imported before RouteLens kept it'}); the log had no cost`
      : turn.cost_source === 'none'
        ? unknownTurnCostTitle(episode)
        : 'Cost as logged';
  return (
    <span className="turn-head-figures">
      <span className="num" title={costTitle} data-testid="turn-cost">
        {turn.cost === null ? '—' : <Cost usd={turn.cost} estimated={turn.cost_source === 'priced'} />}
      </span>
      {(turn.tokens_in !== null || turn.tokens_out !== null) && (
        <span className="num faint" title="Tokens in → tokens out (cache reads are part of tokens in)" data-testid="turn-tokens">
          {formatCount(turn.tokens_in)} → {formatCount(turn.tokens_out)} tok
        </span>
      )}
      {turn.latency_ms !== null && (
        <span className="num faint" title="Latency of the call" data-testid="turn-latency">
          {formatLatency(turn.latency_ms)}
        </span>
      )}
      <button
        type="button"
        className="btn btn-ghost turn-figures-toggle"
        aria-expanded={open}
        onClick={() => onOpen(!open)}
        title={open ? 'Hide the turn’s other figures' : 'Show the turn’s other figures: cache, cost source, propensity, router, target, candidates (for every turn)'}
        data-testid="turn-figures-toggle"
      >
        {open ? 'Less' : 'More'}
      </button>
    </span>
  );
}

const NONE_LAUNCHED: Child[] = [];

export function TurnDetailPanel({
  turn,
  previousModel,
  count,
  launched = NONE_LAUNCHED,
  episode,
  highlight,
  view: shownAs,
  current,
}: {
  turn: TurnDetail;
  previousModel: string | null;
  count: number;
  launched?: Child[];
  /** The episode's costs, to say why a turn's cost is unknown. */
  episode?: Pick<EpisodeDetail['episode'], 'system_prompt' | 'task_text'> & CostEpisode;
  /** A search term: marked in every text block; a folded or collapsed block holding it opens. */
  highlight?: string;
  /** Reader or JSON, chosen for the whole conversation; without it the panel has its own switch (the pair view). */
  view?: TurnView;
  /** The turn the inspector is on (the timeline's and the keys'). */
  current?: boolean;
}) {
  const [ownView, setOwnView] = useTurnView();
  const view = shownAs ?? ownView;
  const figuresOpen = useAppStore((s) => s.inspectorLayout.figures ?? false);
  const chooseLayout = useAppStore((s) => s.setInspectorLayout);
  const blocks = useMemo(() => turnBlocks(turn, launched), [turn, launched]);
  return (
    <article className="turn-detail" data-testid="turn-detail" data-t={turn.t} data-current={current ? 'true' : undefined}>
      <header className="turn-detail-head">
        <h2 data-testid="turn-title" title={`Turn numbers as in the log, from 0 (this episode has ${count})`}>
          Turn {turn.t}
        </h2>
        <ModelChip name={turn.model} />
        {turn.switched && previousModel && (
          <span className="switch-note" data-testid="switch-note">
            switched from <ModelChip name={previousModel} compact />
          </span>
        )}
        {turn.role && (
          <span className="tag" data-testid="turn-role">
            {turn.role}
          </span>
        )}
        <HeadFigures turn={turn} episode={episode} open={figuresOpen} onOpen={(figures) => chooseLayout({ figures })} />
        {shownAs === undefined && <TurnViewSwitch view={ownView} onChange={setOwnView} />}
      </header>
      <Errors turn={turn} />
      <div className="turn-figures" hidden={!figuresOpen} data-testid="turn-figures">
        <Figures turn={turn} episode={episode} />
      </div>
      <PlanTurnDag turn={turn} />
      {view === 'raw' ? (
        <TurnAsImported turn={turn} highlight={highlight} />
      ) : (
        <div className="cv-blocks">
          {blocks.map((b, i) => (
            <BlockView key={`${turn.t}-${i}-${b.kind}`} block={b} highlight={highlight} tool={turn.tool} actionType={turn.action_type} />
          ))}
        </div>
      )}
    </article>
  );
}
