/** Choosing the policies to replay: presets, a free spec with inline checking, and the chosen list. */
import { useId, useState, type FormEvent } from 'react';
import { CloseIcon } from '../../components/icons.tsx';
import { useAppStore } from '../../store/index.ts';
import { addSpec, checkPolicySpec, policyHelp, POLICY_PRESETS, SPEC_SYNTAX } from './policyForm.ts';
import { usePolicyLab } from './policyLabStore.ts';
import { EstimatorInUse } from '../estimator/EstimatorInUse.tsx';

export function PolicyPicker({ disabled }: { disabled: boolean }) {
  const policies = usePolicyLab((s) => s.policies);
  const setPolicies = usePolicyLab((s) => s.setPolicies);
  const models = useAppStore((s) => s.models);
  const [draft, setDraft] = useState('');
  const [touched, setTouched] = useState(false);
  const inputId = useId();
  const names = models.map((m) => m.name);
  const check = draft.trim() === '' ? null : checkPolicySpec(draft, names);
  const duplicate = check?.ok && policies.includes(check.spec);

  const add = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!check?.ok || duplicate) return;
    setPolicies(addSpec(policies, check.spec));
    setDraft('');
    setTouched(false);
  };

  const message = check && !check.ok ? check.message : duplicate ? 'Already in the list.' : null;
  return (
    <section className="card policy-picker" data-testid="policy-picker">
      <h2 className="panel-title">Policies</h2>
      <ul className="policy-chosen" data-testid="policy-chosen">
        {policies.map((spec) => (
          <li key={spec} className="policy-chip" title={policyHelp(spec)} data-testid="policy-chip" data-policy={spec}>
            <span className="mono">{spec}</span>
            <button
              type="button"
              className="btn btn-ghost btn-icon policy-chip-remove"
              aria-label={`Remove ${spec}`}
              disabled={disabled}
              onClick={() => setPolicies(policies.filter((p) => p !== spec))}
            >
              <CloseIcon />
            </button>
          </li>
        ))}
        {policies.length === 0 && <li className="faint">No policy chosen: add a preset or type a spec.</li>}
      </ul>
      <div className="policy-presets" aria-label="Presets">
        {POLICY_PRESETS.map((p) => (
          <button
            key={p.spec}
            type="button"
            className="btn policy-preset"
            title={`${p.spec}: ${policyHelp(p.spec)}`}
            disabled={disabled || policies.includes(p.spec)}
            onClick={() => setPolicies(addSpec(policies, p.spec))}
            data-testid="policy-preset"
            data-policy={p.spec}
          >
            + {p.label}
          </button>
        ))}
      </div>
      <form className="policy-free" onSubmit={add}>
        <label htmlFor={inputId} className="field-label">
          Any spec
        </label>
        <div className="policy-free-row">
          <input
            id={inputId}
            type="text"
            className={message && touched ? 'mono is-invalid' : 'mono'}
            placeholder="e.g. cost-aware:5 or fixed:gpt-5"
            value={draft}
            onChange={(e) => {
              setDraft(e.target.value);
              setTouched(true);
            }}
            aria-invalid={message !== null}
            aria-describedby={`${inputId}-msg`}
            disabled={disabled}
            data-testid="policy-spec-input"
            spellCheck={false}
            autoComplete="off"
          />
          <button type="submit" className="btn" disabled={disabled || !check?.ok || duplicate} data-testid="policy-spec-add">
            Add
          </button>
        </div>
        <p id={`${inputId}-msg`} className={message ? 'field-message is-error' : 'field-message faint'} data-testid="policy-spec-message" aria-live="polite">
          {message ?? (check?.ok ? `Adds ${check.spec}: ${policyHelp(check.spec)}` : SPEC_SYNTAX)}
        </p>
      </form>
      {/* Policies that choose by ŝ, and the direct-method and doubly-robust values, read the database's estimator in use. */}
      <div className="est-inuse-block">
        <EstimatorInUse testId="policy-estimator" />
      </div>
    </section>
  );
}
