/**
 * "Alert rules…" (issue 36 item 5): the rules of this database, the same ones `routelens alerts` lists and
 * `watch --alert` adds. Each can be turned off or removed; a new one is checked as it is typed with the parser the
 * core uses (shared/alertRules.ts), which says what is wrong and where, and in words what a valid rule watches for.
 * The alerts themselves show as banners (renderer/live/AlertBanner.tsx), not here.
 */
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { describeRule, parseRule } from '../../../shared/alertRules.ts';
import type { AlertRuleInfo } from '../../../shared/apiAlerts.ts';
import { api, errorMessage } from '../../api/index.ts';
import { Modal } from '../../components/Modal.tsx';
import { useAppStore } from '../../store/index.ts';
import { useAlertRulesDialog } from './alertRulesDialogState.ts';
import './alertRules.css';

const EXAMPLES = ['rate>5/h', 'cost>10', 'model~opus streak>20', 'errors>=3 in 5'];

export function AlertRulesHost() {
  const open = useAlertRulesDialog((s) => s.open);
  return open ? <AlertRulesDialog /> : null;
}

/** What the rule typed so far is: nothing yet, wrong (with the column), or a rule (canonical, in words). */
function useDraftCheck(draft: string, rules: readonly AlertRuleInfo[] | null) {
  return useMemo(() => {
    if (draft.trim() === '') return { kind: 'empty' as const };
    const parsed = parseRule(draft);
    if (!parsed.ok) return { kind: 'error' as const, column: parsed.column, message: parsed.reason };
    const existing = rules?.find((r) => r.rule === parsed.text);
    return { kind: 'ok' as const, text: parsed.text, words: describeRule(parsed.rule), existing };
  }, [draft, rules]);
}

function AlertRulesDialog() {
  const setOpen = useAlertRulesDialog((s) => s.setOpen);
  const dataVersion = useAppStore((s) => s.dataVersion);
  const onStore = useAppStore((s) => s.dbInfo?.store === 'clickhouse');
  const [rules, setRules] = useState<readonly AlertRuleInfo[] | null>(null);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const check = useDraftCheck(draft, rules);

  // Read again when the database changes: `routelens alerts --add` or `watch --alert` may have added rules.
  useEffect(() => {
    if (onStore) return;
    let live = true;
    api.alertRules({}).then(
      (list) => live && setRules(list),
      (err: unknown) => live && setProblem(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [dataVersion, onStore]);

  const change = (call: () => Promise<readonly AlertRuleInfo[]>, after?: () => void) => {
    setBusy(true);
    setProblem(null);
    call()
      .then(
        (list) => {
          setRules(list);
          after?.();
        },
        (err: unknown) => {
          setProblem(errorMessage(err));
          // Whatever was shown ahead of the answer goes back to what the database holds.
          api.alertRules({}).then(setRules, () => undefined);
        },
      )
      .finally(() => setBusy(false));
  };
  // A checkbox answers the click at once; the list the core answers replaces it.
  const toggle = (rule: string, enabled: boolean) => {
    setRules((list) => list?.map((r) => (r.rule === rule ? { ...r, enabled } : r)) ?? list);
    change(() => api.setAlertRule({ rule, enabled }));
  };
  const add = (e: FormEvent) => {
    e.preventDefault();
    if (check.kind !== 'ok' || check.existing) return;
    change(() => api.setAlertRule({ rule: check.text, enabled: true }), () => setDraft(''));
  };

  return (
    <Modal title="Alert rules" onClose={() => setOpen(false)} testId="alert-rules-dialog" className="alert-rules-modal">
      {onStore ? (
        <p className="muted" data-testid="alert-rules-not-on-store">
          Alert rules work on a SQLite database, not on a ClickHouse store: nothing follows logs into a store. Open one
          with <span className="mono">routelens serve --db FILE</span>.
        </p>
      ) : (
        <>
          <p className="muted alert-rules-intro">
            While logs are followed (<span className="mono">routelens watch</span> or Follow folders…), every enabled rule is
            checked as calls arrive and fires once per episode: a banner here, a line in the terminal. These are the rules
            of this database, the same ones <span className="mono">routelens alerts</span> lists.
          </p>
          {rules === null && !problem && <p className="muted">Loading…</p>}
          {rules !== null && rules.length === 0 && (
            <p className="faint alert-rules-none" data-testid="alert-rules-none">
              No rules yet.
            </p>
          )}
          {rules !== null && rules.length > 0 && (
            <ul className="alert-rules-list" data-testid="alert-rules-list">
              {rules.map((r) => (
                <RuleRow
                  key={r.rule}
                  rule={r}
                  busy={busy}
                  onToggle={(enabled) => toggle(r.rule, enabled)}
                  onRemove={() => change(() => api.removeAlertRule({ rule: r.rule }))}
                />
              ))}
            </ul>
          )}
          <form className="alert-rules-add" onSubmit={add}>
            <label className="alert-rules-field" htmlFor="alert-rule-input">
              New rule
            </label>
            <div className="alert-rules-entry">
              <div className="alert-rules-input-wrap">
                <input
                  id="alert-rule-input"
                  type="text"
                  className="mono"
                  value={draft}
                  onChange={(e) => setDraft(e.target.value)}
                  placeholder="rate>5/h"
                  maxLength={200}
                  spellCheck={false}
                  autoComplete="off"
                  aria-invalid={check.kind === 'error'}
                  aria-describedby="alert-rule-feedback"
                  data-autofocus
                  data-testid="alert-rule-input"
                />
                {check.kind === 'error' && (
                  // Under the character the parser stopped at (the input is monospaced; 1ch is one character).
                  <span className="mono alert-rules-caret" style={{ left: `calc(11px + ${check.column - 1}ch)` }} aria-hidden="true" />
                )}
              </div>
              <button
                type="submit"
                className="btn btn-primary"
                disabled={busy || check.kind !== 'ok' || check.existing !== undefined}
                data-testid="alert-rule-add"
              >
                Add
              </button>
            </div>
            <p id="alert-rule-feedback" className={`alert-rules-feedback is-${check.kind}`} aria-live="polite" data-testid="alert-rule-feedback">
              {check.kind === 'empty' && 'Type a rule, or start from an example below.'}
              {check.kind === 'error' && `Column ${check.column}: ${check.message}`}
              {check.kind === 'ok' &&
                (check.existing
                  ? `${check.text} is already a rule${check.existing.enabled ? '' : ' (turned off)'}.`
                  : `${check.text}: fires once per episode with ${check.words}.`)}
            </p>
          </form>
          <div className="alert-rules-examples">
            <span className="faint">Examples:</span>
            {EXAMPLES.map((x) => (
              <button key={x} type="button" className="btn btn-ghost mono alert-rules-example" onClick={() => setDraft(x)} data-testid="alert-rule-example">
                {x}
              </button>
            ))}
          </div>
          <p className="faint alert-rules-hint">
            rate (per m, h or d over the last 10 min, or <span className="mono">in 30m</span>) · cost · calls · streak · switches ·
            errors (<span className="mono">in 5</span> calls or <span className="mono">in 10m</span>); comparisons &gt; &gt;= &lt;
            &lt;= =; <span className="mono">model~TEXT</span> first keeps calls to models whose name holds TEXT. A call of unknown
            cost is never counted as $0. See docs/alerts.md.
          </p>
          {problem && (
            <p className="alert-rules-problem" role="alert" data-testid="alert-rules-problem">
              {problem}
            </p>
          )}
        </>
      )}
    </Modal>
  );
}

function RuleRow({ rule, busy, onToggle, onRemove }: { rule: AlertRuleInfo; busy: boolean; onToggle(enabled: boolean): void; onRemove(): void }) {
  const parsed = parseRule(rule.rule);
  const id = `alert-rule-${rule.rule}`;
  return (
    <li className={`alert-rules-item${rule.enabled ? '' : ' is-off'}`} data-testid="alert-rule-row" data-rule={rule.rule}>
      <input
        type="checkbox"
        id={id}
        checked={rule.enabled && rule.error === null}
        disabled={busy || rule.error !== null}
        onChange={(e) => onToggle(e.target.checked)}
        title={rule.enabled ? 'Turn this rule off (it stays in the list)' : 'Turn this rule on'}
        data-testid="alert-rule-toggle"
      />
      <label htmlFor={id} className="alert-rules-text">
        <span className="mono alert-rules-rule">{rule.rule}</span>
        <span className={parsed.ok ? 'faint alert-rules-words' : 'alert-rules-invalid'}>
          {/* Stored elsewhere (by hand, or by a later RouteLens): never evaluated here, and said why. */}
          {parsed.ok ? describeRule(parsed.rule) : `not a rule this RouteLens reads: column ${parsed.column}: ${parsed.reason}`}
          {!rule.error && !rule.enabled && ' · off'}
        </span>
      </label>
      <button type="button" className="btn btn-ghost" disabled={busy} onClick={onRemove} aria-label={`Remove the rule ${rule.rule}`} data-testid="alert-rule-remove">
        Remove
      </button>
    </li>
  );
}
