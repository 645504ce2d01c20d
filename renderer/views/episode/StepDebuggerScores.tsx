/**
 * The debugger's view of the current turn: every candidate's ŝ (best first) with its difference from the
 * logged model's, the estimated cost of the turn on it, and which of the logged model / the chosen policy
 * picked it; then the regret of the logged choice. Shows the estimator in use with its training domain, flags
 * the turn when it lies outside it, and says when ŝ came from another estimator (the one in use has not scored
 * the episode's run). Says how to get ŝ when there is none.
 */
import type { TurnDetail } from '../../../shared/api.ts';
import { ModelChip } from '../../components/ModelChip.tsx';
import { formatCost } from '../../format/numbers.ts';
import { useAppStore } from '../../store/index.ts';
import { scoreCommand } from '../policy/scoreCommand.ts';
import type { ChoicesLoad } from './useEpisodeChoices.ts';
import { setWhatIfOpen } from './whatIfOpen.ts';
import { EstimatorInUse } from '../estimator/EstimatorInUse.tsx';

const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(3)}`;

export function StepDebuggerScores({
  turn,
  taskType,
  load,
  policyLoad,
  policy,
}: {
  turn: TurnDetail | null;
  /** The episode's task type, for the training-domain check. */
  taskType: string | null;
  load: ChoicesLoad;
  policyLoad: ChoicesLoad;
  policy: string | null;
}) {
  const dbPath = useAppStore((s) => s.dbInfo?.path);
  const navigate = useAppStore((s) => s.navigate);
  if (!turn) return null;
  if (load.status === 'loading' || load.status === 'idle') {
    return <section className="dbg-scores faint">Loading ŝ…</section>;
  }
  if (load.status === 'error') {
    return (
      <section className="dbg-scores">
        <p className="dbg-error">Could not load ŝ: {load.message}</p>
      </section>
    );
  }
  const value = load.value;
  const row = value.turns.find((r) => r.t === turn.t);
  const policyRow = policyLoad.status === 'ready' ? policyLoad.value.turns.find((r) => r.t === turn.t) : undefined;
  const policyChoice = policyRow?.choices[0];
  const entries = row ? Object.entries(row.s_hat).sort((a, b) => b[1] - a[1]) : [];

  if (value.s_hat_source === 'none' || entries.length === 0) {
    return (
      <section className="dbg-scores" data-testid="debugger-scores" data-source={value.s_hat_source}>
        <h4>Candidates at turn {turn.t}</h4>
        <EstimatorInUse testId="debugger-estimator" />
        <p className="faint" data-testid="debugger-no-scores">
          No ŝ for this turn: the estimator in use has not scored this episode’s run (nor has any other), and the log recorded no router
          scores. Score it with
        </p>
        <pre className="dbg-command">{scoreCommand(dbPath)}</pre>
        <p className="faint">
          or use the{' '}
          <button type="button" className="btn-link" onClick={() => navigate({ view: 'estimator' })}>
            Estimator view
          </button>
          .
        </p>
      </section>
    );
  }

  const logged = row?.s_hat[turn.model];
  return (
    <section className="dbg-scores" data-testid="debugger-scores" data-source={value.s_hat_source}>
      <h4>
        Candidates at turn {turn.t}{' '}
        <span className="faint">
          ŝ {value.s_hat_source === 'estimator' ? `from ${value.estimator?.name ?? 'the estimator'}` : 'from the log’s router scores'}
        </span>
      </h4>
      {value.s_hat_source === 'estimator' && (
        <EstimatorInUse testId="debugger-estimator" turn={{ task_type: taskType, model: turn.model }} usedId={value.estimator?.id ?? null} />
      )}
      <table className="dbg-table">
        <colgroup>
          <col />
          <col className="dbg-col-s" />
          <col className="dbg-col-delta" />
          <col className="dbg-col-cost" />
        </colgroup>
        <thead>
          <tr>
            <th>Model</th>
            <th className="num">ŝ</th>
            <th className="num" title="ŝ minus the logged model's ŝ">
              Δŝ
            </th>
            <th className="num" title="Estimated cost of this turn on the model">
              Cost
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([model, s]) => (
            <tr key={model} className={model === turn.model ? 'is-logged' : undefined} data-testid="debugger-candidate" data-model={model}>
              <td>
                <ModelChip name={model} compact />
                <span className="dbg-marks">
                  {model === turn.model && <span className="tag">logged</span>}
                  {policy && model === policyChoice && <span className="tag tag-policy" title={`${policy} chooses this model here`}>{policy}</span>}
                </span>
              </td>
              <td className="num">{s.toFixed(3)}</td>
              <td className={logged === undefined ? 'num faint' : s - logged > 0 ? 'num delta-up' : 'num'}>{logged === undefined ? '—' : signed(s - logged)}</td>
              <td className="num">{formatCost(row?.cost[model])}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="dbg-regret" data-testid="debugger-regret">
        {row?.regret == null ? (
          <span className="faint">No ŝ for the logged model here, so no regret.</span>
        ) : (
          <>
            Regret of the logged choice: <strong className="num">{row.regret.toFixed(3)}</strong>
            {row.propensity !== null && <span className="faint"> · logged propensity {row.propensity.toFixed(2)}</span>}
          </>
        )}
      </p>
      <p className="faint dbg-whatif">
        The logged turns nearest to this one for each candidate, with their outcomes:{' '}
        <button type="button" className="btn-link" onClick={() => setWhatIfOpen(true)} data-testid="debugger-open-whatif">
          what-if
        </button>{' '}
        <kbd>w</kbd>
      </p>
      {/* The evidence (nearest logged turns per model, with outcomes) is the What-if section beside this column; not drawn twice. */}
      <p className="faint dbg-evidence">
        The evidence for each model — nearest logged turns where it was chosen, with their outcomes — is in the what-if panel beside the
        conversation (<kbd>w</kbd>).
      </p>
    </section>
  );
}
