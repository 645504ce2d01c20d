/**
 * "What if another model had taken this turn?" (issue 5 item 7), a panel beside the inspector's conversation, open
 * on demand: for each candidate model ŝ, Δŝ against the logged model, what the turn would have
 * cost on it against what it cost, and the nearest logged histories where that model was chosen, with their
 * real outcomes (each opens its turn), those of the turn's task type first. Shows the estimator in use (and
 * lets the user pick another, for every view), what it was trained on, whether ŝ was stored or computed now
 * (and on which provider), and flags a turn outside its training domain as extrapolation. `w` (or the inspector's
 * button) opens or closes it; it stays open while the user steps, and across reloads.
 */
import type { ReactNode } from 'react';
import type { WhatIfResult } from '../../../shared/apiEstimator.ts';
import { ModelChip } from '../../components/ModelChip.tsx';
import { formatCost, plural } from '../../format/numbers.ts';
import { useAppStore, useOnStore } from '../../store/index.ts';
import { extrapolationText } from '../../../shared/estimatorDomain.ts';
import { inUseOf } from '../../store/estimatorSlice.ts';
import { EstimatorInUse } from '../estimator/EstimatorInUse.tsx';
import { useEstimators } from '../estimator/useEstimators.ts';
import { scoreCommand } from '../policy/scoreCommand.ts';
import { useWhatIf } from './useWhatIf.ts';
import './whatIf.css';

const signed = (x: number, digits = 3) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(digits)}`;

function costDelta(cost: number | null, base: number): string {
  if (cost === null) return '';
  const d = cost - base;
  if (Math.abs(d) < 5e-7) return 'same';
  return `${d > 0 ? '+' : '−'}${formatCost(Math.abs(d))}`;
}

function Source({ r }: { r: WhatIfResult }) {
  const where =
    r.source === 'estimates'
      ? `stored estimates${r.provider !== 'stored' ? ` (scored on ${r.provider})` : ''}`
      : `computed now on ${r.provider}`;
  const turn = { task_type: r.task_type, model: r.logged_model };
  return (
    <>
      <EstimatorInUse testId="whatif-estimator" />
      <p className="whatif-source faint" data-testid="whatif-source" data-source={r.source} data-provider={r.provider} data-estimator-id={r.estimator.id}>
        ŝ from estimator <strong className="mono">{r.estimator.name}</strong>, {where}. ŝ estimates the target: the episode’s normalised final
        score less the penalties of the errors from this turn on.
      </p>
      {r.extrapolation.length > 0 && (
        <p className="est-extrapolation" role="note" data-testid="extrapolation-flag" data-reasons={r.extrapolation.join(' ')}>
          <strong>Extrapolation:</strong> {r.extrapolation.map((x) => extrapolationText(x, turn)).join('; ')}. Read ŝ here as a guess, not evidence.
        </p>
      )}
    </>
  );
}

function Neighbours({ c, r }: { c: WhatIfResult['candidates'][number]; r: WhatIfResult }) {
  if (r.sketched_turns === 0) return <span className="faint">—</span>;
  if (c.neighbours.length === 0) return <span className="faint">none logged on it</span>;
  return (
    <ul className="whatif-neighbours">
      {c.neighbours.map((n) => (
        <li key={`${n.episode_id}-${n.turn}`}>
          <a
            href={`#/episode/${n.episode_id}/turn/${n.turn}`}
            className={`${n.success === null ? 'whatif-neighbour' : n.success ? 'whatif-neighbour is-success' : 'whatif-neighbour is-failure'}${n.same_task_type ? '' : ' is-other-type'}`}
            data-testid="whatif-neighbour"
            data-episode-id={n.episode_id}
            data-turn={n.turn}
            data-same-task-type={n.same_task_type}
            title={`Open turn ${n.turn} of episode ${n.episode}: its history is ${n.similarity.toFixed(2)} similar (cosine of sketches); the episode's outcome is ${n.outcome === null ? 'unknown' : `${n.outcome.toFixed(3)}${n.success === null ? '' : n.success ? ', solved' : ', failed'}`}${n.same_task_type ? '' : `; another task type than this turn's${r.task_type ? ` (${r.task_type})` : ''}, shown for lack of closer evidence`}`}
            aria-label={`Episode ${n.episode}, turn ${n.turn}, outcome ${n.outcome === null ? 'unknown' : n.outcome.toFixed(2)}, similarity ${n.similarity.toFixed(2)}`}
          >
            <span className="whatif-outcome">{n.outcome === null ? '?' : n.outcome.toFixed(2)}</span>
            <span className="whatif-sim">{n.similarity.toFixed(2)}</span>
            {!n.same_task_type && r.task_type !== null && <span className="whatif-other-type" aria-hidden="true">≠</span>}
          </a>
        </li>
      ))}
    </ul>
  );
}

export function WhatIfPanel({ episodeId, turn, onClose }: { episodeId: number; turn: number; onClose(): void }) {
  const dataVersion = useAppStore((s) => s.dataVersion);
  const dbPath = useAppStore((s) => s.dbInfo?.path);
  const navigate = useAppStore((s) => s.navigate);
  const { list } = useEstimators();
  const inUseId = inUseOf(list)?.id ?? null;
  // Wait for the list, so the first question already names the estimator in use.
  const onStore = useOnStore();
  const load = useWhatIf(episodeId, list && !onStore ? turn : null, dataVersion, inUseId);

  const toEstimator = (
    <button type="button" className="btn-link" onClick={() => navigate({ view: 'estimator' })}>
      Estimator view
    </button>
  );

  return (
    <section className="whatif is-open" data-testid="whatif-panel" data-open="true" data-state={load.status} aria-label="What if another model had taken this turn">
      <header className="whatif-head">
        <h3 className="whatif-title" data-testid="whatif-title">
          What if another model had taken turn {turn}?
        </h3>
        <button type="button" className="btn btn-ghost whatif-close" onClick={onClose} title="Close the what-if panel (w)" data-testid="whatif-close">
          Hide
        </button>
      </header>
      <p className="faint whatif-sub">ŝ, Δŝ, cost and nearest logged evidence per model</p>
      {onStore && (
        <div className="whatif-body">
          <p className="faint" data-testid="whatif-store-note">
            What-if (ŝ of every candidate at this turn, and the nearest logged evidence) is not read from a ClickHouse store
            yet: open a SQLite database (routelens serve --db FILE) for it.
          </p>
        </div>
      )}
      {!onStore && (
        <div className="whatif-body">
          {(load.status === 'loading' || load.status === 'idle') && (
            <p className="faint whatif-loading" role="status">
              <span className="spinner" aria-hidden="true" /> Estimating every candidate at this turn…
            </p>
          )}
          {load.status === 'error' && (
            <div className="whatif-error" data-testid="whatif-error" role="alert">
              <p>No what-if for this turn: {load.message}</p>
              <p className="faint">
                Train or score an estimator in the {toEstimator}, or score the database with the default model:
              </p>
              <pre className="whatif-command">{scoreCommand(dbPath)}</pre>
            </div>
          )}
          {load.status === 'ready' && <WhatIfTable r={load.value} dbPath={dbPath} toEstimator={toEstimator} />}
        </div>
      )}
    </section>
  );
}

function WhatIfTable({ r, dbPath, toEstimator }: { r: WhatIfResult; dbPath: string | undefined; toEstimator: ReactNode }) {
  const loggedRow = r.candidates.find((c) => c.model === r.logged_model);
  const loggedKnown = loggedRow !== undefined;
  // Priced against priced: a log's own cost (discounts, caching) is not what list prices give another model.
  const base = loggedRow?.cost_usd ?? r.logged_cost_usd;
  return (
    <>
      <Source r={r} />
      {/* The extrapolation flag already says the logged model is no candidate; say it once. */}
      {!loggedKnown && !r.extrapolation.includes('model_not_candidate') && (
        <p className="faint" data-testid="whatif-logged-unknown">
          The logged model <span className="mono">{r.logged_model}</span> is not one of this estimator’s candidates, so there is no Δŝ.
        </p>
      )}
      <table className="whatif-table" data-testid="whatif-table">
        <thead>
          <tr>
            <th>Model</th>
            <th className="num" title="Estimated target (final score less later error penalties) had this model taken the turn">
              ŝ
            </th>
            <th className="num" title="ŝ minus the logged model's ŝ">
              Δŝ
            </th>
            <th className="num" title={`This turn's tokens at the model's list price (the output scaled by its learned output-length ratio), and the difference from the logged model's at its list price. The log says the turn cost ${formatCost(r.logged_cost_usd)}.`}>
              Turn cost
            </th>
            <th title="Logged turns with the most similar history where this model was chosen: the episode's outcome, then the similarity. Hover for the episode; click to open the turn.">
              Nearest logged turns <span className="faint whatif-th-sub">outcome · similarity</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {r.candidates.map((c) => {
            const logged = c.model === r.logged_model;
            return (
              <tr key={c.model} className={logged ? 'is-logged' : undefined} data-testid="whatif-candidate" data-model={c.model}>
                <td>
                  <ModelChip name={c.model} compact />
                  {logged && <span className="tag">logged</span>}
                </td>
                <td className="num">{c.s_hat.toFixed(3)}</td>
                <td className={c.delta === null || logged ? 'num faint' : c.delta > 0 ? 'num delta-up' : c.delta < 0 ? 'num delta-down' : 'num'} data-testid="whatif-delta">
                  {c.delta === null ? '—' : logged ? '·' : signed(c.delta)}
                </td>
                <td className="num">
                  {formatCost(c.cost_usd)}
                  {logged ? (
                    <span className="whatif-cost-delta faint" title="What the log recorded for this turn">
                      logged {formatCost(r.logged_cost_usd)}
                    </span>
                  ) : (
                    c.cost_usd !== null && <span className={c.cost_usd > base ? 'whatif-cost-delta cost-up' : 'whatif-cost-delta cost-down'}>{costDelta(c.cost_usd, base)}</span>
                  )}
                </td>
                <td>
                  <Neighbours c={c} r={r} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {r.sketched_turns === 0 ? (
        <div className="whatif-note" data-testid="whatif-no-sketches">
          <p className="faint">
            No nearest logged turns yet: they are searched among scored turns, and this database has none. Score it in the {toEstimator} or run
          </p>
          <pre className="whatif-command">{scoreCommand(dbPath)}</pre>
        </div>
      ) : (
        <p className="faint whatif-foot">
          Neighbours are searched among {plural(r.sketched_turns, 'scored turn')}: at most one per episode, never from this episode,
          {r.task_type ? ` ${r.task_type} episodes first (≠ marks another task type)` : ' by similarity alone (this episode names no task type)'}.
        </p>
      )}
    </>
  );
}
