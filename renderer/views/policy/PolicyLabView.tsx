/**
 * Policy lab: replay routing policies over the runs selected in the top bar, compare them in a table and on
 * the score/cost plane (with 95% CIs), and diff two policies or two runs turn by turn. State lives in
 * policyLabStore.ts, so results stay while the user follows a disagreement into the inspector and back.
 */
import type { ReactNode } from 'react';
import type { ReplayResult } from '../../../shared/apiReplay.ts';
import { EmptyState, ErrorNotice } from '../../components/EmptyState.tsx';
import { NoRunsYet } from '../../components/NoRunsYet.tsx';
import { formatCount, plural } from '../../format/numbers.ts';
import { useAppStore } from '../../store/index.ts';
import { DiffPanel } from './DiffPanel.tsx';
import { downloadText } from '../../charts/download.ts';
import { FrontierPanel } from './FrontierPanel.tsx';
import { checkPolicySpec } from './policyForm.ts';
import { PolicyPicker } from './PolicyPicker.tsx';
import { usePolicyLab } from './policyLabStore.ts';
import { exportName, labNotes, opeNote, replayCsv } from './policyResults.ts';
import { policyColors } from './policyColors.ts';
import { Progress } from './Progress.tsx';
import { scoreCommand } from './scoreCommand.ts';
import { ResultsTable } from './ResultsTable.tsx';
import { RunsCount } from './RunsCount.tsx';
import './policy.css';

/** How to get ŝ: the command for this database, or the Estimator view. */
function HowToScore({ children }: { children?: ReactNode }) {
  const dbPath = useAppStore((s) => s.dbInfo?.path);
  const navigate = useAppStore((s) => s.navigate);
  return (
    <>
      <span>Score the runs with</span>
      <pre className="empty-state-command">{scoreCommand(dbPath)}</pre>
      <span>
        or train and score one in the{' '}
        <button type="button" className="btn-link" onClick={() => navigate({ view: 'estimator' })}>
          Estimator view
        </button>
        , then replay again.
      </span>
      {children}
    </>
  );
}

function ScoreSourceNote({ result }: { result: ReplayResult }) {
  if (result.s_hat_source === 'estimator') {
    return (
      <p className="faint lab-source" data-testid="shat-source">
        ŝ from estimator <span className="mono">{result.estimator?.name}</span>
        {result.estimator ? `, created ${result.estimator.created_at.slice(0, 16).replace('T', ' ')}` : ''}.
      </p>
    );
  }
  return (
    <div className="lab-notice" data-testid="no-estimator">
      <strong>{result.s_hat_source === 'none' ? 'No estimator has scored these runs.' : 'No estimator has scored these runs: ŝ comes from the log’s router scores.'}</strong>
      <span>
        {result.s_hat_source === 'none'
          ? 'The direct-method and doubly-robust columns stay empty, and policies that choose by ŝ cannot be replayed.'
          : 'Where the log recorded candidate scores, ŝ-driven policies use them; the direct-method and doubly-robust columns need an estimator.'}
      </span>
      <HowToScore />
    </div>
  );
}

/** A replay refused because policies that choose by ŝ were asked for runs without any ŝ. */
function NeedsScores({ message, policies, onDrop }: { message: string; policies: string[]; onDrop(): void }) {
  return (
    <div className="lab-notice" data-testid="needs-scores">
      <strong>
        {policies.join(', ')} {policies.length === 1 ? 'chooses' : 'choose'} by ŝ, and no estimator has scored these runs (their logs have no router
        scores either).
      </strong>
      <span className="faint">{message}</span>
      <HowToScore>
        <button type="button" className="btn" onClick={onDrop} data-testid="drop-score-policies">
          Replay without {policies.length === 1 ? 'it' : 'them'}
        </button>
      </HowToScore>
    </div>
  );
}

function Results({ result, stale }: { result: ReplayResult; stale: boolean }) {
  const note = opeNote(result);
  const notes = labNotes(result);
  return (
    <>
      <div className="panel-head lab-results-head">
        <h2 className="panel-title">Results</h2>
        <span className="faint" data-testid="replay-scope">
          {plural(result.episodes, 'episode')} · {plural(result.turns, 'turn')} of <RunsCount runs={result.runs} testId="replay-scope-runs" />
          {result.logged.score !== null && ` · logged score ${result.logged.score.toFixed(3)}`}
          {result.bootstrap > 0 && ` · ${formatCount(result.bootstrap)} bootstrap resamples, seed ${result.seed}`}
        </span>
        <span className="toolbar-spacer" />
        <button type="button" className="btn" onClick={() => downloadText(exportName('policy-replay', result.runs), replayCsv(result), 'text/csv')} data-testid="replay-csv">
          Export CSV
        </button>
      </div>
      {stale && <p className="stale-note">The run selection changed since this replay; Replay again to update it.</p>}
      <ScoreSourceNote result={result} />
      <ResultsTable result={result} colorOf={policyColors(result)} />
      {note && (
        <p className="faint lab-footnote" data-testid="ope-note">
          {note}
        </p>
      )}
      {notes.length > 0 && (
        <ul className="lab-notes faint" data-testid="policy-notes">
          {notes.map((n, i) => (
            <li key={i}>
              {n.policies !== null && <span className="mono">{n.policies.join(', ')}: </span>}
              {n.note}
            </li>
          ))}
        </ul>
      )}
      <FrontierPanel result={result} />
    </>
  );
}

export default function PolicyLabView() {
  const runs = useAppStore((s) => s.runs);
  const runIds = useAppStore((s) => s.runIds);
  const policies = usePolicyLab((s) => s.policies);
  const phase = usePolicyLab((s) => s.replay);
  const runReplay = usePolicyLab((s) => s.runReplay);
  const cancelReplay = usePolicyLab((s) => s.cancelReplay);
  const setPolicies = usePolicyLab((s) => s.setPolicies);
  const models = useAppStore((s) => s.models);
  if (runs.length === 0) return <NoRunsYet />;

  const modelNames = models.map((m) => m.name);
  const scorePolicies = policies.filter((p) => {
    const check = checkPolicySpec(p, modelNames);
    return check.ok && check.needsScores;
  });

  const selected = runIds.length > 0 ? runs.filter((r) => runIds.includes(r.id)) : runs;
  const episodes = selected.reduce((a, r) => a + r.episodes, 0);
  const running = phase.kind === 'running';
  const result = phase.kind === 'done' ? phase.value : null;
  const stale = phase.kind === 'done' && phase.runIds.join(',') !== runIds.join(',');

  return (
    <div className="view-pad policy-lab" data-testid="policy-lab" data-state={running ? 'running' : phase.kind}>
      <div className="view-header view-header-tight">
        <h1>Policy lab</h1>
        <span className="muted">Replay routing policies on the logged turns, estimate their score and cost, and see where they disagree.</span>
      </div>
      <div className="lab-top">
        <PolicyPicker disabled={running} />
        <section className="card lab-run" data-testid="lab-run">
          <h2 className="panel-title">Replay</h2>
          <div className="lab-run-scope">
            {plural(policies.length, 'policy', 'policies')} over <RunsCount runs={selected} all={runIds.length === 0} testId="lab-runs" />{' '}
            <span className="faint">({plural(episodes, 'episode')}; change the runs in the top bar)</span>
          </div>
          <div className="lab-run-actions">
            <button
              type="button"
              className="btn btn-primary"
              disabled={running || policies.length === 0}
              onClick={() => void runReplay(runIds)}
              data-testid="replay-run"
            >
              {result ? 'Replay again' : 'Replay'}
            </button>
            {running && <Progress startedAt={phase.startedAt} onCancel={cancelReplay} what="Replaying" testId="replay-progress" />}
            {phase.kind === 'cancelled' && <span className="faint">Cancelled.</span>}
          </div>
          <p className="faint lab-explain">
            Each policy is asked, at every logged turn, which model it would have chosen given the history so far. Agreement and cost need
            nothing more; the estimated score needs ŝ from an estimator, and IPS / WIS / DR need the log’s propensities.
          </p>
        </section>
      </div>
      {phase.kind === 'failed' &&
        (scorePolicies.length > 0 && phase.message.includes('needs ŝ') ? (
          <NeedsScores
            message={phase.message}
            policies={scorePolicies}
            onDrop={() => {
              setPolicies(policies.filter((p) => !scorePolicies.includes(p)));
              void runReplay(runIds);
            }}
          />
        ) : (
          <ErrorNotice title="The replay failed." message={phase.message} />
        ))}
      {result ? (
        <Results result={result} stale={stale} />
      ) : (
        phase.kind !== 'failed' && (
          <EmptyState title={running ? 'Replaying…' : 'Nothing replayed yet'} testId="lab-empty">
            <p>Choose policies, then Replay. Results show here as a table and a score/cost figure.</p>
          </EmptyState>
        )
      )}
      <DiffPanel />
    </div>
  );
}
