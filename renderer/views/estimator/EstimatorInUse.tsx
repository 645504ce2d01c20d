/**
 * The estimator in use, as every view that shows ŝ shows it (what-if, the step debugger, calibration, the
 * policy lab): its name in a picker (a pick here changes the one choice for the database, so every view
 * follows), what it was trained on, and, for one turn, a flag when ŝ there is extrapolation (a task type
 * never seen in training, or a logged model that is none of its candidates). `usedId` is the estimator that
 * actually gave the ŝ on screen, when the view knows it: a view that could not use the one in use says so.
 */
import type { EstimatorList } from '../../../shared/apiEstimator.ts';
import { domainTaskTypesText, extrapolationReasons, extrapolationText, type EstimatorDomain, type TurnInDomain } from '../../../shared/estimatorDomain.ts';
import { plural } from '../../format/numbers.ts';
import { useAppStore } from '../../store/index.ts';
import { inUseOf } from '../../store/estimatorSlice.ts';
import { useEstimators } from './useEstimators.ts';
import './estimatorInUse.css';

const DEFAULT_VALUE = 'default';

function DomainLine({ domain }: { domain: EstimatorDomain | null }) {
  if (!domain) {
    return (
      <span className="faint est-domain" data-testid="estimator-domain" data-known="false" title="No model card beside its ONNX file, so what it was trained on is not known">
        training domain unknown (no model card)
      </span>
    );
  }
  const from = domain.task_types_from === 'runs_here' ? ' (read from the runs of the same names in this database; its card predates recording task types)' : '';
  return (
    <span
      className="faint est-domain"
      data-testid="estimator-domain"
      data-known={domain.task_types !== null}
      title={`Trained on ${plural(domain.runs.length, 'run')}: ${domain.runs.join(', ')}${from}.\nCandidates: ${domain.models.join(', ')}.`}
    >
      trained on {domainTaskTypesText(domain)}
      {domain.task_types_from === 'runs_here' && ' (inferred)'} · {plural(domain.models.length, 'candidate model')}
    </span>
  );
}

/** The extrapolation flag for one turn, or nothing inside the domain. */
export function ExtrapolationFlag({ domain, turn }: { domain: EstimatorDomain | null; turn: TurnInDomain }) {
  if (!domain) return null;
  const reasons = extrapolationReasons(domain, turn);
  if (reasons.length === 0) return null;
  return (
    <p className="est-extrapolation" role="note" data-testid="extrapolation-flag" data-reasons={reasons.join(' ')}>
      <strong>Extrapolation:</strong> {reasons.map((r) => extrapolationText(r, turn)).join('; ')}. Read ŝ here as a guess, not evidence.
    </p>
  );
}

function options(list: EstimatorList) {
  const opts = list.estimators.map((e) => ({ value: String(e.id), label: `${e.name}${e.scored_turns === 0 ? ' (not scored here)' : ''}` }));
  if (list.default_model && !list.estimators.some((e) => e.is_default)) {
    opts.push({ value: DEFAULT_VALUE, label: `${list.default_model.card?.name ?? 'default-estimator'} (shipped default)` });
  }
  return opts;
}

export function EstimatorInUse({ turn, usedId, testId = 'estimator-in-use' }: { turn?: TurnInDomain; usedId?: number | null; testId?: string }) {
  const { list, error } = useEstimators();
  const choose = useAppStore((s) => s.chooseEstimator);
  const choiceError = useAppStore((s) => s.estimatorChoiceError);
  if (error) return <p className="faint est-inuse" data-testid={testId}>Estimators could not be listed: {error}</p>;
  if (!list) return null;
  const inUse = inUseOf(list);
  const opts = options(list);
  // Before any estimator is registered, what-if uses the shipped default: its domain is the one that applies.
  const domain = inUse ? inUse.domain : (list.default_model?.domain ?? null);
  const used = usedId != null && inUse && usedId !== inUse.id ? list.estimators.find((e) => e.id === usedId) : undefined;
  return (
    <div className="est-inuse" data-testid={testId} data-estimator-id={inUse?.id ?? ''} data-chosen={list.in_use?.chosen ?? false}>
      <label className="est-inuse-pick">
        <span className="est-inuse-label" title="One estimator gives ŝ to what-if, the step debugger, calibration and the policy lab. Picking one here picks it for all of them, for this database.">
          Estimator in use
        </span>
        <select
          value={inUse ? String(inUse.id) : opts.length ? DEFAULT_VALUE : ''}
          onChange={(e) => void choose(e.target.value === DEFAULT_VALUE ? { default: true } : { estimatorId: Number(e.target.value) })}
          data-testid="estimator-in-use-select"
          disabled={opts.length === 0}
        >
          {opts.length === 0 && <option value="">none yet</option>}
          {opts.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      <DomainLine domain={domain} />
      {used && (
        <p className="est-extrapolation" role="note" data-testid="estimator-not-in-use">
          ŝ here is from <span className="mono">{used.name}</span>: the estimator in use, <span className="mono">{inUse?.name}</span>, has not scored all of these turns.
        </p>
      )}
      {turn && !used && <ExtrapolationFlag domain={domain} turn={turn} />}
      {choiceError && <p className="dbg-error">Could not change the estimator in use: {choiceError}</p>}
    </div>
  );
}
