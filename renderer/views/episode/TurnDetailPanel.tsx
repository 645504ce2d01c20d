/** Everything about one turn: model and switch, figures, errors, router candidates, and its action and observation. */
import type { ReactNode } from 'react';
import type { TurnDetail } from '../../../shared/api.ts';
import { Cost, SeverityBadge } from '../../components/figures.tsx';
import { ModelChip } from '../../components/ModelChip.tsx';
import { formatCost, formatCount, formatLatency, formatUnit } from '../../format/numbers.ts';
import { useModelColors } from '../../store/index.ts';
import { TextBlock } from './TextBlock.tsx';

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
    <section className="turn-errors" data-testid="turn-errors">
      <h3>Errors</h3>
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

export function TurnDetailPanel({ turn, previousModel, count }: { turn: TurnDetail; previousModel: string | null; count: number }) {
  const costTitle =
    turn.cost_source === 'priced'
      ? 'Estimated from token counts × models/pool.json prices (the log had no cost)'
      : turn.cost_source === 'none'
        ? 'No cost logged and no price known for this model'
        : 'Cost as logged';
  return (
    <article className="turn-detail" data-testid="turn-detail" data-t={turn.t}>
      <header className="turn-detail-head">
        <h2 data-testid="turn-title">
          Turn {turn.t} <span className="faint">of {count}</span>
        </h2>
        <ModelChip name={turn.model} />
        {turn.switched && previousModel && (
          <span className="switch-note" data-testid="switch-note">
            switched from <ModelChip name={previousModel} compact />
          </span>
        )}
        <span className="turn-kind">
          <span className="tag">{turn.action_type}</span>
          {turn.tool && <span className="tag mono">{turn.tool}</span>}
        </span>
      </header>
      <dl className="figures">
        <Figure label="Tokens in">{formatCount(turn.tokens_in)}</Figure>
        <Figure label="Tokens out">{formatCount(turn.tokens_out)}</Figure>
        <Figure label="Cached">{formatCount(turn.tokens_cached)}</Figure>
        <Figure label="Cost" title={costTitle} testId="turn-cost">
          {turn.cost_source === 'none' ? '—' : <Cost usd={turn.cost} estimated={turn.cost_source === 'priced'} />}
        </Figure>
        <Figure label="Cumulative">{formatCost(turn.cumulative_cost)}</Figure>
        <Figure label="Latency">{formatLatency(turn.latency_ms)}</Figure>
        <Figure label="Propensity" title="Probability the logging router gave the chosen model">
          {formatUnit(turn.propensity)}
        </Figure>
        {turn.router && <RouterDecision router={turn.router} />}
        <Figure label="S̃ target" title="AEC target S̃_t = S_norm − Σ_{k≥t} penalty_k (DESIGN §5)">
          {formatUnit(turn.s_tilde, 3)}
        </Figure>
        <Figure label="Penalty" title="AEC penalty of this turn's errors">
          {turn.penalty ? formatUnit(turn.penalty, 3) : <span className="faint">0</span>}
        </Figure>
      </dl>
      <Errors turn={turn} />
      <Candidates turn={turn} />
      <TextBlock key={`a${turn.t}`} title="Action" text={turn.action} testId="turn-action" />
      <TextBlock key={`o${turn.t}`} title="Observation" text={turn.observation} testId="turn-observation" />
    </article>
  );
}
