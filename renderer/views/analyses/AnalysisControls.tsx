/**
 * The controls an analysis page has besides the run selection: lift's min n, pareto's reference run and cost axis, ρ per
 * model, and the ŝ bins, colouring and sample of calibration and the embedding map (their estimator is the
 * database's estimator in use: EstimatorInUse picks it).
 */
import { useEffect, useState } from 'react';
import { ModelDot } from '../../components/ModelChip.tsx';
import { DEFAULT_CALIBRATION_BINS, DEFAULT_EMBEDDING_SAMPLE, MAX_CALIBRATION_BINS, MAX_EMBEDDING_SAMPLE, MIN_CALIBRATION_BINS } from '../../../shared/analysisResults.ts';
import { nameKeyed, ownValue } from '../../../shared/nameKeyed.ts';
import { FIELD_KEYS, matches } from '../../shortcuts.ts';
import { DEFAULT_MIN_N } from './analysisRequest.ts';

/** Typing pauses shorter than this do not recompute (an analysis over 500k turns takes a few hundred ms). */
const COMMIT_DELAY_MS = 400;

/** A number box that commits a valid value after a pause, or at once on Enter or leaving it. */
function NumberField({
  label,
  value,
  onCommit,
  min,
  max,
  step,
  placeholder,
  testId,
  integer,
  required,
}: {
  label: string;
  value: number | undefined;
  onCommit(value: number | undefined): void;
  min: number;
  max: number;
  step: number;
  placeholder?: string;
  testId?: string;
  integer?: boolean;
  /** Empty is not a value (else it clears it). */
  required?: boolean;
}) {
  const [text, setText] = useState(value === undefined ? '' : String(value));
  useEffect(() => setText(value === undefined ? '' : String(value)), [value]);
  const parsed = text.trim() === '' ? undefined : Number(text);
  const valid = parsed === undefined ? !required : (Number.isFinite(parsed) && parsed >= min && parsed <= max && (!integer || Number.isInteger(parsed)));
  const commit = () => {
    if (valid && parsed !== value) onCommit(parsed);
  };
  useEffect(() => {
    if (!valid || parsed === value) return;
    const timer = setTimeout(() => onCommit(parsed), COMMIT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [parsed, valid, value, onCommit]);
  return (
    <input
      type="number"
      className={valid ? 'number-field' : 'number-field is-invalid'}
      aria-label={label}
      aria-invalid={!valid}
      title={valid ? label : `${label}: a number from ${min} to ${max}`}
      value={text}
      min={min}
      max={max}
      step={step}
      placeholder={placeholder}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (matches(FIELD_KEYS.apply, e)) commit();
      }}
      data-testid={testId}
    />
  );
}

export function MinNControl({ value, onChange }: { value: number | undefined; onChange(n: number | undefined): void }) {
  return (
    <label className="control">
      <span className="control-label">Minimum turns per cell</span>
      <NumberField label="Minimum turns per cell (min n)" value={value ?? DEFAULT_MIN_N} min={1} max={1_000_000} step={1} integer required onCommit={onChange} testId="control-min-n" />
      <span className="faint">cells with fewer are hidden</span>
    </label>
  );
}

export function ReferenceControl({ runs, value, onChange }: { runs: string[]; value: string | undefined; onChange(run: string | undefined): void }) {
  const current = value !== undefined && runs.includes(value) ? value : '';
  return (
    <label className="control">
      <span className="control-label">Savings measured against</span>
      <select value={current} onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)} data-testid="control-reference">
        <option value="">no reference run</option>
        {runs.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Linear, or logarithmic when runs' costs differ by orders of magnitude (a cheap run otherwise sits on the axis). */
export function CostAxisControl({ value, onChange }: { value: 'linear' | 'log' | undefined; onChange(axis: 'linear' | 'log'): void }) {
  const current = value ?? 'linear';
  return (
    <div className="control" role="group" aria-label="Cost axis">
      <span className="control-label">Cost axis</span>
      <span className="segmented" data-testid="control-cost-axis">
        {(['linear', 'log'] as const).map((axis) => (
          <button key={axis} type="button" className={current === axis ? 'is-on' : undefined} aria-pressed={current === axis} onClick={() => onChange(axis)}>
            {axis === 'linear' ? 'Linear' : 'Log'}
          </button>
        ))}
      </span>
    </div>
  );
}

/**
 * ρ targets with `model`'s set to `r` (or cleared). Models are log text: in a plain `{}` a model named
 * `__proto__` could not be given a target and one named `toString` read as having one (issue 38 item 4).
 */
export function rhoWith(value: Readonly<Record<string, number>> | undefined, model: string, r: number | undefined): Record<string, number> {
  const next = nameKeyed<number>();
  for (const [m, x] of Object.entries(value ?? {})) if (m !== model) next[m] = x;
  if (r !== undefined) next[model] = r;
  return next;
}

/**
 * ρ per model. A model the user has not set shows the ρ the runs' logs state (`logged`, loggedRho.ts), which the
 * figure already draws; typing a value sets that model's, clearing it goes back to the log's.
 */
export function RhoControl({
  models, value, logged, onChange,
}: { models: string[]; value: Record<string, number> | undefined; logged?: Record<string, number>; onChange(rho: Record<string, number>): void }) {
  const set = (model: string, r: number | undefined) => onChange(rhoWith(value, model, r));
  const fromLog = models.filter((m) => (value === undefined || ownValue(value, m) === undefined) && logged !== undefined && ownValue(logged, m) !== undefined);
  return (
    <div className="control control-rho" role="group" aria-label="Target usage share ρ per model">
      <span className="control-label" title="The controller's usage constraint: the share of calls each model should get at most">
        Target share ρ
      </span>
      {models.map((m) => (
        <label key={m} className="rho-field">
          <ModelDot name={m} />
          <span className="rho-model">{m}</span>
          <NumberField
            label={`ρ for ${m}`}
            value={(value && ownValue(value, m)) ?? (logged && ownValue(logged, m))}
            min={0}
            max={1}
            step={0.05}
            placeholder="—"
            onCommit={(r) => set(m, r)}
            testId={`rho-${m}`}
          />
        </label>
      ))}
      {fromLog.length > 0 && (
        <span className="faint" data-testid="rho-from-log" title={`The runs' logs state ρ for ${fromLog.join(', ')}: the figure draws those until you set others`}>
          {fromLog.length === models.length ? 'as the runs’ logs state' : `${fromLog.join(', ')}: as the runs’ logs state`}
        </span>
      )}
    </div>
  );
}

export function BinsControl({ value, onChange }: { value: number | undefined; onChange(n: number | undefined): void }) {
  return (
    <label className="control">
      <span className="control-label">ŝ bins</span>
      <NumberField label="Equal-width ŝ bins" value={value ?? DEFAULT_CALIBRATION_BINS} min={MIN_CALIBRATION_BINS} max={MAX_CALIBRATION_BINS} step={1} integer required onCommit={onChange} testId="control-bins" />
    </label>
  );
}

export function ColorControl({ value, onChange }: { value: 'model' | 'outcome' | undefined; onChange(c: 'model' | 'outcome'): void }) {
  return (
    <label className="control">
      <span className="control-label">Colour histories by</span>
      <select value={value ?? 'model'} onChange={(e) => onChange(e.target.value === 'outcome' ? 'outcome' : 'model')} data-testid="control-color">
        <option value="model">the model chosen</option>
        <option value="outcome">the episode's outcome</option>
      </select>
    </label>
  );
}

export function SampleControl({ value, onChange }: { value: number | undefined; onChange(n: number | undefined): void }) {
  return (
    <label className="control">
      <span className="control-label">Histories mapped</span>
      <NumberField label="Turn histories to map (0: models only)" value={value ?? DEFAULT_EMBEDDING_SAMPLE} min={0} max={MAX_EMBEDDING_SAMPLE} step={100} integer required onCommit={onChange} testId="control-sample" />
      <span className="faint">t-SNE is quadratic: more takes longer</span>
    </label>
  );
}
