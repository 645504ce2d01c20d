/**
 * Compare (issue 18): side A against side B — each a run, a group of runs, or one run's episodes with one
 * value of a field — paired by task. Shows what each side holds, the pairing, paired statistics (B − A), cost
 * by model, an optional counterfactual cost, three figures, and the per-task table whose rows open the split
 * inspector. State lives in compareStore.ts, so it is all still here after a trip to a pair and back.
 */
import { useEffect } from 'react';
import { COMPARE_FIGURE_IDS } from '../../../shared/charts/layouts/compareFigures.ts';
import { EmptyState, ErrorNotice } from '../../components/EmptyState.tsx';
import { NoRunsYet } from '../../components/NoRunsYet.tsx';
import { useAppStore } from '../../store/index.ts';
import { Progress } from '../policy/Progress.tsx';
import { CompareFigure } from './CompareFigure.tsx';
import { compareInput } from './compareForm.ts';
import { CompareStats } from './CompareStats.tsx';
import { ShareCaseButton } from '../../components/ShareCaseButton.tsx';
import { useCompare } from './compareStore.ts';
import { CostAttribution } from './CostAttribution.tsx';
import { SidePicker } from './SidePicker.tsx';
import { TaskTable } from './TaskTable.tsx';
import '../analyses/analyses.css';
import '../policy/policy.css';
import './compare.css';

function CounterfactualPicker({ disabled }: { disabled: boolean }) {
  const models = useAppStore((s) => s.models);
  const value = useCompare((s) => s.counterfactual);
  const set = useCompare((s) => s.setCounterfactual);
  const priced = models.filter((m) => m.price_in_per_m !== null && m.price_out_per_m !== null);
  return (
    <label className="compare-cf">
      <span className="field-label">Counterfactual</span>
      <select value={value} onChange={(e) => set(e.target.value)} disabled={disabled} data-testid="compare-counterfactual" title="What each side would have cost with every turn on this model">
        <option value="">none</option>
        {priced.map((m) => (
          <option key={m.name} value={m.name}>
            every turn on {m.name}
          </option>
        ))}
      </select>
    </label>
  );
}

export default function CompareView() {
  const runs = useAppStore((s) => s.runs);
  const runIds = useAppStore((s) => s.runIds);
  const a = useCompare((s) => s.a);
  const b = useCompare((s) => s.b);
  const counterfactual = useCompare((s) => s.counterfactual);
  const call = useCompare((s) => s.call);
  const shownInput = useCompare((s) => s.shownInput);
  const shownRequest = useCompare((s) => s.shownRequest);
  const run = useCompare((s) => s.run);

  // Two runs chosen in the top bar and nothing chosen here yet: they are A and B.
  useEffect(() => {
    const { a, b, setSide } = useCompare.getState();
    if (a.runIds.length === 0 && b.runIds.length === 0 && runIds.length === 2) {
      setSide('a', { runIds: [runIds[0] as number] });
      setSide('b', { runIds: [runIds[1] as number] });
    }
  }, [runIds]);

  if (runs.length === 0) return <NoRunsYet />;
  const check = compareInput(a, b, counterfactual);
  const running = call.kind === 'running';
  const result = call.kind === 'done' ? call.value : null;
  const stale = result !== null && check.ok && JSON.stringify(check.input) !== shownInput;

  return (
    <div className="view-pad compare-view" data-testid="compare-view" data-state={call.kind}>
      <div className="view-header view-header-tight">
        <h1>Compare</h1>
        <span className="muted">Two runs, groups of runs or one run split by a field, paired by task. Differences are B − A.</span>
        {result && shownRequest && (
          <div className="view-header-actions">
            <ShareCaseButton what="this comparison: its statistics, cost by model and per-task table" request={{ compare: shownRequest }} />
          </div>
        )}
      </div>
      <form
        className="compare-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (check.ok) void run(check.input);
        }}
      >
        <SidePicker side="a" disabled={running} />
        <SidePicker side="b" disabled={running} />
        <div className="card compare-go">
          <CounterfactualPicker disabled={running} />
          <div className="compare-go-row">
            <button type="submit" className="btn btn-primary" disabled={running || !check.ok} data-testid="compare-run">
              {result ? 'Compare again' : 'Compare'}
            </button>
            <button type="button" className="btn btn-ghost" disabled={running} onClick={() => useCompare.getState().swap()} title="Swap A and B" data-testid="compare-swap">
              A ⇄ B
            </button>
          </div>
          {!check.ok && (
            <p className="field-message faint" data-testid="compare-form-message">
              {check.message}
            </p>
          )}
          {call.kind === 'cancelled' && <span className="faint">Cancelled.</span>}
          {running && <Progress startedAt={call.startedAt} onCancel={() => useCompare.getState().cancel()} what="Comparing" testId="compare-progress" />}
        </div>
      </form>
      {call.kind === 'failed' && <ErrorNotice title="The comparison failed." message={call.message} />}
      {stale && <p className="stale-note">The form changed since this comparison; Compare again to update it.</p>}
      {result ? (
        <div className={stale ? 'compare-result is-stale' : 'compare-result'} data-testid="compare-result">
          <CompareStats result={result} />
          <CostAttribution result={result} />
          <div className="compare-figures">
            {shownRequest &&
              COMPARE_FIGURE_IDS.map((id) => <CompareFigure key={id} id={id} result={result} request={shownRequest} />)}
          </div>
          <TaskTable result={result} />
        </div>
      ) : (
        call.kind !== 'failed' && (
          <EmptyState title={running ? 'Comparing…' : 'Nothing compared yet'} testId="compare-empty">
            <p>Choose the runs of A and of B (several runs make a group; a field keeps one model, policy, budget mode or split), then Compare.</p>
          </EmptyState>
        )
      )}
    </div>
  );
}
