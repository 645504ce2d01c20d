/**
 * One estimator's model card (shared/apiEstimator.ts ModelCard): the data it learned from, its encoder and
 * candidates, its held-out metrics against the constant-predictor baseline with the training curves, and —
 * for simulated data — the decision-quality table: each policy's planted value and the best model per
 * category, planted against learned.
 */
import type { ReactNode } from 'react';
import type { ModelCard } from '../../../shared/apiEstimator.ts';
import { ModelChip } from '../../components/ModelChip.tsx';
import { formatCount, formatPercent } from '../../format/numbers.ts';
import { LossCurves } from './LossCurves.tsx';

function Fact({ label, children, title, testId }: { label: ReactNode; children: ReactNode; title?: string; testId?: string }) {
  return (
    <div className="est-fact" title={title} data-testid={testId}>
      <dt>{label}</dt>
      <dd className="num">{children}</dd>
    </div>
  );
}

const fx = (x: number | null | undefined, d = 4) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(d));

export function ModelCardPanel({ card }: { card: ModelCard }) {
  const m = card.metrics;
  const gain = m.baseline_mae ? 1 - m.val_mae / m.baseline_mae : null;
  const q = card.decision_quality;
  return (
    <div className="est-card" data-testid="model-card">
      <section>
        <h3>Held-out quality</h3>
        <dl className="est-facts">
          <Fact label="Validation MAE" title="Mean |ŝ − target| over the held-out episodes' turns (target: final score less later error penalties)" testId="card-val-mae">
            {fx(m.val_mae)}
          </Fact>
          <Fact label="Constant predictor" title="The same MAE for always predicting the mean training target: the bar to beat">
            {fx(m.baseline_mae)}
          </Fact>
          <Fact label="Better by" title="1 − validation MAE / constant predictor's MAE">
            <span className={gain !== null && gain > 0 ? 'est-good' : 'est-bad'}>{gain === null ? 'n/a' : formatPercent(gain)}</span>
          </Fact>
          <Fact label={<>Spearman <span className="est-keep-case">ρ</span></>} title="Rank correlation of ŝ and the target on the held-out turns">
            {fx(m.val_spearman, 3)}
          </Fact>
          <Fact label="Training MAE">{fx(m.train_mae)}</Fact>
          <Fact label="Epochs" title={m.stopped === 'early' ? 'Stopped early: validation MAE stopped improving' : 'Ran the maximum number of epochs'}>
            {m.epochs} <span className="faint">(best {m.best_epoch}, {m.stopped === 'early' ? 'early stop' : 'max'})</span>
          </Fact>
          <Fact label="Training time">
            {m.seconds.toFixed(0)} s <span className="faint">({formatCount(Math.round(m.train_rows_per_second))} rows/s)</span>
          </Fact>
        </dl>
        {m.history.length > 0 && <LossCurves epochs={m.history} baselineMae={m.baseline_mae} testId="card-loss-curves" />}
      </section>
      <section className="est-card-cols">
        <div>
          <h3>Data</h3>
          <dl className="est-facts">
            <Fact label="Episodes">
              {formatCount(card.data.episodes)} <span className="faint">({formatCount(card.data.train_episodes)} train / {formatCount(card.data.validation_episodes)} validation)</span>
            </Fact>
            <Fact label="Turns">
              {formatCount(card.data.train_rows)} <span className="faint">/ {formatCount(card.data.validation_rows)}</span>
            </Fact>
            <Fact label="Skipped" title="Episodes without an outcome (no target), and turns on models outside the candidate pool">
              {formatCount(card.data.skipped_episodes_no_outcome)} ep. · {formatCount(card.data.skipped_turns_outside_pool)} turns
            </Fact>
            <Fact label="Seed" title="The training seed: the train / validation cut and the network's first weights" testId="card-seed">
              {typeof card.config.seed === 'number' ? card.config.seed : '—'}
            </Fact>
          </dl>
          <p className="est-runs faint">
            Runs: <span className="mono">{card.data.runs.join(', ') || '—'}</span>
          </p>
          <p className="est-runs faint" data-testid="card-source">
            {card.data.simulated ? (
              <>
                Simulated: the <span className="mono">{card.data.simulated.preset}</span> preset with seed {card.data.simulated.seed},{' '}
                {formatCount(card.data.simulated.episodes)} episodes, of which these runs hold {formatCount(card.data.episodes)}
              </>
            ) : (
              <>
                From <span className="mono">{card.data.database}</span>
              </>
            )}
          </p>
        </div>
        <div>
          <h3>Encoder and candidates</h3>
          <dl className="est-facts">
            <Fact label="Encoder">
              <span className="mono">{card.encoder.name}</span>
            </Fact>
            <Fact label="History">
              {card.encoder.history_dim}-d, {formatCount(card.encoder.max_history_tokens)} tokens
            </Fact>
            <Fact label="Created">{card.created_at.slice(0, 16).replace('T', ' ')}</Fact>
          </dl>
          <div className="est-models">
            {card.models.map((name) => (
              <ModelChip key={name} name={name} compact />
            ))}
          </div>
        </div>
      </section>
      {q && (
        <section data-testid="decision-quality">
          <h3>
            Decision quality <span className="faint">under the simulator’s planted truth ({q.truth_preset}, {formatCount(q.turns)} held-out turns)</span>
          </h3>
          <div className="est-card-cols">
            <table className="est-table">
              <thead>
                <tr>
                  <th>Policy</th>
                  <th className="num" title="Mean planted P(progress) of the model each policy chooses">
                    Planted value
                  </th>
                </tr>
              </thead>
              <tbody>
                {[...q.policies]
                  .sort((a, b) => b.value - a.value)
                  .map((p) => (
                    <tr key={p.policy} className={p.value === q.estimator_value ? 'is-estimator' : undefined}>
                      <td className="mono">{p.policy}</td>
                      <td className="num">{p.value.toFixed(4)}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
            <table className="est-table">
              <thead>
                <tr>
                  <th>Category</th>
                  <th>Best planted</th>
                  <th>Best learned</th>
                  <th className="num">Turns</th>
                </tr>
              </thead>
              <tbody>
                {q.best_model_by_category.map((c) => (
                  <tr key={c.category} className={c.planted === c.learned ? 'is-match' : 'is-miss'}>
                    <td className="mono">{c.category}</td>
                    <td>
                      <ModelChip name={c.planted} compact />
                    </td>
                    <td>
                      <ModelChip name={c.learned} compact /> <span aria-label={c.planted === c.learned ? 'recovered' : 'missed'}>{c.planted === c.learned ? '✓' : '✗'}</span>
                    </td>
                    <td className="num">{formatCount(c.turns)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="faint">
            The estimator’s choices score {q.estimator_value.toFixed(4)}, {q.best_other.margin >= 0 ? 'ahead of' : 'behind'} the best other policy ({q.best_other.policy},{' '}
            {q.best_other.value.toFixed(4)}); it {q.beats_every_single_model_and_random ? 'beats' : 'does not beat'} every single model and random. Best model recovered in{' '}
            {q.categories_recovered} of {q.best_model_by_category.length} categories.
          </p>
        </section>
      )}
    </div>
  );
}
