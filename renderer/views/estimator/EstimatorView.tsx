/**
 * The Estimator view (DESIGN §8b; issue 5 item 8): the estimators of the database and the default model
 * shipped in models/, the selected one's model card, Train (on the runs selected in the top bar) and Score
 * buttons with a live job panel (loss curves while training, provider and turns/s while scoring), then the
 * estimator's calibration and embedding figures, drawn and exported like every analysis figure.
 */
import { useEffect, useMemo, useState } from 'react';
import type { AnalysisRequest } from '../../../shared/analysisResults.ts';
import { DEFAULT_TRAIN_PATIENCE, MAX_TRAIN_EPOCHS, type EstimatorSummary } from '../../../shared/apiEstimator.ts';
import { EmptyState, ErrorNotice } from '../../components/EmptyState.tsx';
import { formatCount, plural } from '../../format/numbers.ts';
import { useAppStore } from '../../store/index.ts';
import { analysisPage } from '../analyses/catalog.ts';
import { FigurePanel } from '../analyses/FigurePanel.tsx';
import { useEstimatorJob } from './estimatorJobStore.ts';
import { useEstimators } from './useEstimators.ts';
import { JobPanel } from './JobPanel.tsx';
import { RenameEstimator } from './RenameEstimator.tsx';
import { ModelCardPanel } from './ModelCardPanel.tsx';
import { trainingSummary } from './trainingSummary.ts';
import { inUseOf } from '../../store/estimatorSlice.ts';
import { domainTaskTypesText, type EstimatorDomain } from '../../../shared/estimatorDomain.ts';
import '../analyses/analyses.css';
import './estimator.css';
import './estimatorInUse.css';

/** The selected entry: an estimator of this database, or the shipped default not yet used here. */
type Selection = { kind: 'db'; id: number } | { kind: 'default' };

const DEFAULT_MAX_EPOCHS = 30;
const SAMPLES = [500, 1000, 2000] as const;

/** A whole number of epochs, 1 … MAX_TRAIN_EPOCHS; other entries are ignored. */
function EpochsInput({ value, onChange, label, testId }: { value: number; onChange(v: number): void; label: string; testId: string }) {
  return (
    <input
      type="number"
      className="est-epochs"
      min={1}
      max={MAX_TRAIN_EPOCHS}
      value={value}
      onChange={(e) => {
        const v = Math.round(Number(e.target.value));
        if (v >= 1 && v <= MAX_TRAIN_EPOCHS) onChange(v);
      }}
      aria-label={label}
      data-testid={testId}
    />
  );
}

function EstimatorItem({ e, selected, inUse, onSelect, turns }: { e: EstimatorSummary; selected: boolean; inUse: boolean; onSelect(): void; turns: number }) {
  return (
    <li>
      <button type="button" className={selected ? 'est-item is-selected' : 'est-item'} onClick={onSelect} aria-pressed={selected} data-testid="estimator-item" data-estimator-id={e.id}>
        <span className="est-item-name mono" title={e.name}>
          {e.name}
        </span>
        {e.is_default && <span className="tag">default model</span>}
        {inUse && (
          <span className="tag tag-in-use" data-testid="estimator-in-use-tag" title="What-if, the step debugger, calibration and the policy lab read ŝ from this one">
            in use
          </span>
        )}
        <span className="faint est-item-line">
          {e.encoder} · {e.created_at.slice(0, 10)}
        </span>
        <span className="faint est-item-line" data-testid="estimator-scored">
          {e.scored_turns > 0
            ? `scored ${formatCount(e.scored_turns)} of ${formatCount(turns)} turns${e.provider ? ` on ${e.provider}` : ''}`
            : 'has not scored this database'}
        </span>
      </button>
    </li>
  );
}

/** What the estimator was trained on, in one line: the domain every view that shows its ŝ checks turns against. */
function DomainSummary({ domain }: { domain: EstimatorDomain | null }) {
  if (!domain) return <span data-testid="card-domain">Training domain unknown: no model card.</span>;
  return (
    <span data-testid="card-domain">
      Training domain: {domainTaskTypesText(domain)}
      {domain.task_types_from === 'runs_here' && ' (read from the runs of the same names here: the card predates recording task types)'}; runs{' '}
      {domain.runs.join(', ')}; candidates {domain.models.join(', ')}. A turn outside it (another task type, or a logged model not among the
      candidates) is flagged as extrapolation wherever its ŝ is shown.
    </span>
  );
}

export default function EstimatorView() {
  const { list, error } = useEstimators();
  const runs = useAppStore((s) => s.runs);
  const runIds = useAppStore((s) => s.runIds);
  const dbPath = useAppStore((s) => s.dbInfo?.path);
  const job = useEstimatorJob((s) => s.job);
  const start = useEstimatorJob((s) => s.start);
  const [choice, setChoice] = useState<Selection | null>(null);
  const chooseEstimator = useAppStore((s) => s.chooseEstimator);
  const [maxEpochs, setMaxEpochs] = useState(DEFAULT_MAX_EPOCHS);
  const [patience, setPatience] = useState<number>(DEFAULT_TRAIN_PATIENCE);
  const [color, setColor] = useState<'model' | 'outcome'>('model');
  const [sample, setSample] = useState<number>(1000);

  // A model just trained here is the one the user wants to read about next.
  const trained = job?.state === 'done' && job.kind === 'train' ? job.estimatorId : null;
  useEffect(() => {
    if (trained !== null) setChoice({ kind: 'db', id: trained });
  }, [trained]);

  const selectedRuns = runIds.length > 0 ? runs.filter((r) => runIds.includes(r.id)) : runs;
  const runNames = useMemo(() => (runIds.length > 0 ? selectedRuns.map((r) => r.name).sort() : []), [runIds.length, selectedRuns]);
  const showDefault = list?.default_model && !list.estimators.some((e) => e.is_default);
  // Until the user opens another: the estimator in use (the database's one choice), else the shipped default.
  const inUse = inUseOf(list);
  const selection: Selection | null =
    choice && (choice.kind === 'default' ? showDefault : list?.estimators.some((e) => e.id === choice.id))
      ? choice
      : inUse
        ? { kind: 'db', id: inUse.id }
        : showDefault
          ? { kind: 'default' }
          : null;
  const selected = selection?.kind === 'db' ? list?.estimators.find((e) => e.id === selection.id) : undefined;
  const card = selection?.kind === 'default' ? (list?.default_model?.card ?? null) : (selected?.card ?? null);
  const running = job?.state === 'running';
  const scope = runIds.length === 0 ? `all ${plural(runs.length, 'run')}` : selectedRuns.map((r) => r.name).join(', ');

  const estimatorParam = selection?.kind === 'db' ? { estimator: selection.id } : {};
  const calibration: AnalysisRequest = { id: 'calibration', runs: runNames, ...estimatorParam };
  const embeddings: AnalysisRequest = { id: 'embeddings', runs: runNames, color, sample, ...estimatorParam };

  const train = () => void start({ kind: 'train', runs: runNames.length ? runNames : undefined, maxEpochs, patience });
  const score = () =>
    void start({ kind: 'score', ...(selection?.kind === 'db' ? { estimatorId: selection.id } : {}), ...(runIds.length ? { runIds } : {}) });

  return (
    <div className="view-pad estimator-view" data-testid="estimator-view" data-state={list ? 'ready' : error ? 'error' : 'loading'}>
      <header className="view-header">
        <h1>Estimator</h1>
        <p className="faint est-lede">
          ŝ estimates, for a turn and a model, the target the turn would reach had that model taken it: the episode’s normalised
          final score less the penalties of the errors from that turn on. It drives what-if, replay and the step debugger.
        </p>
      </header>
      {error && <ErrorNotice title="The estimators could not be listed." message={error} />}
      {list && (
        <div className="est-layout">
          <aside className="card est-list" aria-label="Estimators">
            <h2>Estimators of this database</h2>
            {list.estimators.length === 0 && (
              <p className="faint" data-testid="no-estimators">
                None yet. Train one on the selected runs, or score with the default model.
              </p>
            )}
            <ul>
              {list.estimators.map((e) => (
                <EstimatorItem
                  key={e.id}
                  e={e}
                  turns={list.turns}
                  inUse={inUse?.id === e.id}
                  selected={selection?.kind === 'db' && selection.id === e.id}
                  onSelect={() => setChoice({ kind: 'db', id: e.id })}
                />
              ))}
              {showDefault && list.default_model && (
                <li>
                  <button
                    type="button"
                    className={selection?.kind === 'default' ? 'est-item is-selected' : 'est-item'}
                    onClick={() => setChoice({ kind: 'default' })}
                    aria-pressed={selection?.kind === 'default'}
                    data-testid="estimator-default"
                  >
                    <span className="est-item-name mono">{list.default_model.card?.name ?? 'default-estimator'}</span>
                    <span className="tag">default model</span>
                    <span className="faint est-item-line" data-testid="default-trained-on" title={list.default_model.card?.data.runs.join(', ')}>
                      shipped in models/; {trainingSummary(list.default_model.card)}
                    </span>
                    <span className="faint est-item-line">not used on this database yet</span>
                  </button>
                </li>
              )}
            </ul>
            {!list.default_model && (
              <p className="faint est-missing" data-testid="no-default-model">
                The default model (models/default-estimator.onnx) is not installed: train one here.
              </p>
            )}
          </aside>

          <div className="est-main">
            <section className="card est-actions" data-testid="estimator-actions">
              <div className="est-action">
                <button type="button" className="btn btn-primary" onClick={score} disabled={running || !selection} data-testid="score-button">
                  Score
                </button>
                <span>
                  {selection ? (
                    <>
                      every turn of <strong>{scope}</strong> × each candidate with{' '}
                      <span className="mono">{selection.kind === 'db' ? (selected?.name ?? 'the estimator') : 'the default model'}</span> (ONNX Runtime: cuda → webgpu → cpu)
                    </>
                  ) : (
                    'Nothing to score with: train an estimator first.'
                  )}
                </span>
              </div>
              <div className="est-action">
                <button type="button" className="btn" onClick={train} disabled={running || runs.length === 0} data-testid="train-button">
                  Train
                </button>
                <span>
                  a new estimator on <strong>{scope}</strong>, at most{' '}
                  <EpochsInput value={maxEpochs} onChange={setMaxEpochs} label="Most epochs to train" testId="train-epochs" /> epochs,
                  stopping early after{' '}
                  <EpochsInput value={patience} onChange={setPatience} label="Epochs without improvement before stopping" testId="train-patience" />{' '}
                  epochs without a better validation MAE
                </span>
              </div>
            </section>
            <JobPanel />

            {selection === null ? (
              <EmptyState title="No estimator yet" testId="estimator-empty" command={`routelens train --db ${dbPath ?? 'FILE'} --out model.onnx`}>
                <p>Train one with the button above (on the runs selected in the top bar), or from a terminal:</p>
              </EmptyState>
            ) : (
              <section className="card est-card-wrap">
                <header className="est-card-head">
                  <h2>
                    Model card <span className="mono" data-testid="estimator-card-name">{selected?.name ?? card?.name}</span>
                  </h2>
                  {selected && <RenameEstimator key={selected.id} estimator={selected} />}
                  <div className="toolbar-spacer" />
                  {(selection.kind === 'default' || selection.id !== inUse?.id) ? (
                    <button
                      type="button"
                      className="btn"
                      onClick={() => void chooseEstimator(selection.kind === 'default' ? { default: true } : { estimatorId: selection.id })}
                      data-testid="use-estimator"
                      title="Make this the estimator what-if, the step debugger, calibration and the policy lab read ŝ from, for this database"
                    >
                      Use this estimator
                    </button>
                  ) : (
                    <span className="tag tag-in-use" title="What-if, the step debugger, calibration and the policy lab read ŝ from this one">
                      in use{list.in_use?.chosen ? '' : ' (it scored last; nobody picked one)'}
                    </span>
                  )}
                </header>
                <p className="faint est-card-domain">
                  <DomainSummary domain={selection.kind === 'default' ? (list.default_model?.domain ?? null) : (selected?.domain ?? null)} />
                </p>
                {card ? (
                  <ModelCardPanel card={card} />
                ) : (
                  <p className="faint" data-testid="no-card">
                    No model card beside this estimator’s ONNX file ({selected?.onnx_path ?? 'no file'}): it was made elsewhere or its card was removed.
                  </p>
                )}
              </section>
            )}

            <FigurePanel page={analysisPage('calibration')!} request={selection ? calibration : null} heading="Calibration: ŝ against the realised target" testId="calibration-figure" noRequest="Train or score an estimator to see its calibration." />
            <div className="est-figure-controls" role="group" aria-label="Embedding map options">
              <span className="faint">Turn histories coloured by</span>
              {(['model', 'outcome'] as const).map((c) => (
                <label key={c}>
                  <input type="radio" name="est-color" checked={color === c} onChange={() => setColor(c)} data-testid={`embeddings-color-${c}`} />
                  {c === 'model' ? 'chosen model' : 'outcome'}
                </label>
              ))}
              <label>
                <span className="faint">sample</span>
                <select value={sample} onChange={(e) => setSample(Number(e.target.value))} aria-label="Turn histories to map">
                  {SAMPLES.map((n) => (
                    <option key={n} value={n}>
                      {formatCount(n)} turns
                    </option>
                  ))}
                </select>
              </label>
            </div>
            <FigurePanel page={analysisPage('embeddings')!} request={selection ? embeddings : null} heading="Embeddings: models by price tier, turn histories" testId="embeddings-figure" noRequest="Train or score an estimator to map its model embeddings." />
          </div>
        </div>
      )}
    </div>
  );
}
