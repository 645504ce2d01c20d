/** Everything about one turn: model and switch, figures, errors, router candidates, and its action and observation. */
import type { ReactNode } from 'react';
import type { EpisodeDetail, TurnDetail } from '../../../shared/api.ts';
import { Cost, SeverityBadge } from '../../components/figures.tsx';
import { ModelChip } from '../../components/ModelChip.tsx';
import { formatCost, formatCount, formatLatency, formatUnit } from '../../format/numbers.ts';
import { unknownCumulativeTitle, unknownTurnCostTitle, type CostEpisode } from '../../format/unknownCost.ts';
import { formatHash } from '../../routing/route.ts';
import { useAppStore, useModelColors } from '../../store/index.ts';
import { actionFormat, actionLanguage, jsonInput } from '../../format/codeFence.ts';
import { actionRepeatsCalls, observationIsResults, shellCall, thoughtAndCommand } from '../../format/turnBlocks.ts';
import { HitText } from '../../components/HitText.tsx';
import { PlanTurnDag } from './PlanTurnDag.tsx';
import { TextBlock } from './TextBlock.tsx';
import { EpisodeContext, TurnAsImported, TurnViewSwitch, useTurnView } from './TurnReading.tsx';

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

type Child = EpisodeDetail['children'][number];

/** Subagent / compaction episodes this turn launched, nested under it: each opens in the inspector. */
function Launched({ children }: { children: Child[] }) {
  const runIds = useAppStore((s) => s.runIds);
  if (children.length === 0) return null;
  return (
    <section className="turn-launched" data-testid="turn-launched">
      <h3>
        Launched <span className="faint">child episodes run for this turn, counted once, as themselves</span>
      </h3>
      <ul>
        {children.map((c) => (
          <li key={c.id} data-testid="child-episode">
            <a href={formatHash({ route: { view: 'episode', episodeId: c.id, turn: null }, runIds })} className="mono">
              {c.ext_id}
            </a>
            <span className="tag">{c.kind ?? 'child'}</span>
            {c.models.map((m) => (
              <ModelChip key={m} name={m} compact />
            ))}
            <span className="faint num">
              {c.n_turns} turns · {c.total_cost === null ? '— (cost unknown)' : formatCost(c.total_cost)}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

const INPUT_TITLE: Record<string, string> = {
  user: 'User prompt',
  system: 'Injected by the agent',
  summary: 'Compaction summary',
  assistant: 'Shown as the assistant (no model call)',
  tool: 'Tool result (no call of this episode)',
};

/** The messages that reached the model between the previous response and this one, in order, as text. */
function TurnInputs({ turn, highlight }: { turn: TurnDetail; highlight?: string }) {
  return (
    <>
      {turn.inputs.map((m, i) => (
        <TextBlock
          key={`i${turn.t}-${i}`}
          title={`${INPUT_TITLE[m.role] ?? m.role}${m.timestamp ? ` · ${m.timestamp}` : ''}`}
          text={m.text}
          testId="turn-input"
          highlight={highlight}
        />
      ))}
    </>
  );
}

/** The tool calls of the response, each with the result the log joined to it. */
function ToolCalls({ calls, highlight }: { calls: TurnDetail['tool_calls']; highlight?: string }) {
  if (calls.length === 0) return null;
  return (
    <section className="tool-calls" data-testid="tool-calls">
      <h3>
        Tool calls <span className="faint">{calls.length}</span>
      </h3>
      {calls.map((c, i) => (
        <div key={c.id ?? i} className={c.is_error ? 'tool-call is-error' : 'tool-call'} data-testid="tool-call">
          <ToolInput name={c.name} isError={!!c.is_error} input={c.input ?? null} highlight={highlight} />
          {c.result != null && <TextBlock title="Result" text={c.result} testId="tool-call-result" highlight={highlight} />}
        </div>
      ))}
    </section>
  );
}

/**
 * A tool call's input: a shell call's command as highlighted bash with its other arguments (a description, a
 * working directory) beside the name; JSON indented and highlighted; anything else as logged.
 */
function ToolInput({ name, isError, input, highlight }: { name: string; isError: boolean; input: string | null; highlight?: string }) {
  const title = `${name}${isError ? ' · error' : ''}`;
  const shell = shellCall(name, input);
  if (shell) {
    const others = shell.others.join(' · ');
    return (
      <TextBlock
        title={title}
        text={shell.command}
        testId="tool-call-input"
        format="code"
        language={actionLanguage(name, '', shell.command) ?? undefined}
        highlight={highlight}
        aside={
          others ? (
            <span className="faint tool-call-args" title={shell.others.join('\n')} data-testid="tool-call-args">
              <HitText text={others} highlight={highlight} />
            </span>
          ) : undefined
        }
      />
    );
  }
  const json = input === null ? null : jsonInput(input);
  const language = json !== null ? 'json' : input === null ? null : actionLanguage(name, '', input);
  return (
    <TextBlock
      title={title}
      text={json ?? input}
      testId="tool-call-input"
      format={language ? 'code' : 'terminal'}
      language={language ?? undefined}
      highlight={highlight}
    />
  );
}

export function TurnDetailPanel({
  turn,
  previousModel,
  count,
  launched = [],
  episode,
  highlight,
}: {
  turn: TurnDetail;
  previousModel: string | null;
  count: number;
  launched?: Child[];
  /** The episode's system prompt and task, shown above the turn (open at its first turn). */
  episode?: Pick<EpisodeDetail['episode'], 'system_prompt' | 'task_text'> & CostEpisode;
  /** A search term: marked in every text block; a collapsed block holding it opens; the first hit is scrolled to. */
  highlight?: string;
}) {
  const [view, setView] = useTurnView();
  // A text agent's reply (mini-swe-agent): its thought reads as reasoning, the command it ran as the action.
  const split = turn.reasoning ? null : thoughtAndCommand(turn.action);
  const reasoning = split?.thought ?? turn.reasoning;
  const action = split?.command ?? turn.action;
  const actionAs = split ? { format: 'code' as const, language: 'bash' } : actionFormat(turn.tool, turn.action_type, turn.action);
  const costTitle =
    turn.cost_source === 'priced'
      ? `Estimated from token counts × list prices (${turn.price_provenance ?? 'price table not recorded: imported before RouteLens kept it'}); the log had no cost`
      : turn.cost_source === 'none'
        ? unknownTurnCostTitle(episode)
        : 'Cost as logged';
  return (
    <article className="turn-detail" data-testid="turn-detail" data-t={turn.t}>
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
        <span className="turn-kind">
          {turn.role && (
            <span className="tag" data-testid="turn-role">
              {turn.role}
            </span>
          )}
          <span className="tag">{turn.action_type}</span>
          {turn.tool && <span className="tag mono">{turn.tool}</span>}
        </span>
        <TurnViewSwitch view={view} onChange={setView} />
      </header>
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
        <Figure label="Cost" title={costTitle} testId="turn-cost">
          {turn.cost === null ? '—' : <Cost usd={turn.cost} estimated={turn.cost_source === 'priced'} />}
        </Figure>
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
      <Errors turn={turn} />
      <Candidates turn={turn} />
      <Launched children={launched} />
      <PlanTurnDag turn={turn} />
      {view === 'raw' ? (
        <TurnAsImported turn={turn} highlight={highlight} />
      ) : (
        <>
          {episode && <EpisodeContext episode={episode} firstTurn={turn.t === 0} highlight={highlight} />}
          <TurnInputs turn={turn} highlight={highlight} />
          {reasoning && <TextBlock key={`r${turn.t}`} title="Reasoning" text={reasoning} testId="turn-reasoning" format="markdown" highlight={highlight} />}
          {turn.message && <TextBlock key={`m${turn.t}`} title="Message" text={turn.message} testId="turn-message" format="markdown" highlight={highlight} />}
          {/* The calls' digest (`bash: ls`) is for the turn list; here the calls below say it in full. */}
          {!actionRepeatsCalls(turn.action, turn.tool_calls) && (
            <TextBlock
              key={`a${turn.t}`}
              title="Action"
              text={action}
              testId="turn-action"
              format={actionAs.format}
              language={actionAs.language}
              highlight={highlight}
            />
          )}
          <ToolCalls key={`c${turn.t}`} calls={turn.tool_calls} highlight={highlight} />
          {observationIsResults(turn.observation, turn.tool_calls) ? (
            <p className="faint turn-observation-same" data-testid="turn-observation-same">
              Observation: the tool results above, as the log gave them.
            </p>
          ) : (
            <TextBlock key={`o${turn.t}`} title="Observation" text={turn.observation} testId="turn-observation" highlight={highlight} />
          )}
        </>
      )}
    </article>
  );
}
