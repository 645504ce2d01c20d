/**
 * The paired diff: two policies over the selected runs, or two runs matched by task, turn by turn. The
 * summary gives the differences with their CIs; each disagreeing turn is a row that opens that turn.
 */
import { useEffect, useRef, type MouseEvent, type RefObject } from 'react';
import type { DiffRow, PolicyDiffInput, PolicyDiffResult } from '../../../shared/apiReplay.ts';
import { ErrorNotice } from '../../components/EmptyState.tsx';
import { ModelChip } from '../../components/ModelChip.tsx';
import { formatCost, formatCount, formatPercent } from '../../format/numbers.ts';
import { formatHash } from '../../routing/route.ts';
import { onListRowKey } from '../../listRowKeys.ts';
import { useAppStore } from '../../store/index.ts';
import { downloadText } from '../../charts/download.ts';
import { BOOTSTRAP, usePolicyLab } from './policyLabStore.ts';
import { diffCsv, exportName } from './policyResults.ts';
import { Progress } from './Progress.tsx';

type Interval = readonly [number, number] | null;

function WithCi({ value, ci, format }: { value: number | null; ci: Interval; format(x: number): string }) {
  if (value === null) return <span className="faint">—</span>;
  return (
    <>
      {format(value)}
      {ci && (
        <span className="faint">
          {' '}
          [{format(ci[0])}, {format(ci[1])}]
        </span>
      )}
    </>
  );
}

const signed = (digits: number) => (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x).toFixed(digits)}`;
const signedCost = (x: number) => `${x > 0 ? '+' : ''}${formatCost(x)}`;

function Summary({ diff }: { diff: PolicyDiffResult }) {
  const s = diff.summary;
  const method = s.delta_score.method;
  return (
    <dl className="diff-summary" data-testid="diff-summary">
      <div>
        <dt>{diff.kind === 'runs' ? 'Task pairs' : 'Episodes'}</dt>
        <dd className="num">{formatCount(s.pairs)}</dd>
      </div>
      <div>
        <dt>Disagreements</dt>
        <dd className="num" data-testid="diff-disagreements">
          {formatCount(s.disagreements)} <span className="faint">of {formatCount(s.turns)} turns ({formatPercent(s.disagreement_rate)})</span>
        </dd>
      </div>
      <div title="Mean over disagreeing turns of ŝ(B's choice) − ŝ(A's choice), with its 95% bootstrap interval">
        <dt>Mean Δŝ (B − A)</dt>
        <dd className="num">
          <WithCi value={s.mean_delta_s_hat.estimate} ci={s.mean_delta_s_hat.ci} format={signed(3)} />
        </dd>
      </div>
      <div title={method === 'logged' ? 'Realised score difference over matched tasks' : 'Difference of the policies’ value estimates, paired over episodes'}>
        <dt>Δ score{method ? ` (${method === 'logged' ? 'realised' : method.toUpperCase()})` : ''}</dt>
        <dd className="num">
          <WithCi value={s.delta_score.estimate} ci={s.delta_score.ci} format={signed(3)} />
        </dd>
      </div>
      <div>
        <dt>Δ cost / episode</dt>
        <dd className="num">
          <WithCi value={s.delta_cost.estimate} ci={s.delta_cost.ci} format={signedCost} />
        </dd>
      </div>
    </dl>
  );
}

/** What the paired differences could not use: pairs with a side lacking an outcome, or with an unknown cost. */
function LeftOut({ diff }: { diff: PolicyDiffResult }) {
  const { unknown_outcome: outcome = 0, unknown_cost: cost = 0, pairs } = diff.summary;
  if (outcome === 0 && cost === 0) return null;
  const unit = diff.kind === 'runs' ? 'task pairs' : 'episodes';
  return (
    <p className="faint diff-left-out" data-testid="diff-left-out">
      {outcome > 0 && `${formatCount(outcome)} of ${formatCount(pairs)} ${unit} have no outcome on a side: left out of Δ score (not counted as failures). `}
      {cost > 0 && `${formatCount(cost)} of ${formatCount(pairs)} ${unit} have an unknown cost: left out of Δ cost.`}
    </p>
  );
}

function DiffRows({ diff }: { diff: PolicyDiffResult }) {
  const navigate = useAppStore((s) => s.navigate);
  const runIds = useAppStore((s) => s.runIds);
  const open = (r: DiffRow, side: 'a' | 'b') => {
    const episodeId = side === 'b' && r.episode_b !== null ? r.episode_b : r.episode;
    navigate({ view: 'episode', episodeId, turn: r.t });
  };
  const onRowClick = (e: MouseEvent, r: DiffRow) => {
    if (e.metaKey || e.ctrlKey || (e.target instanceof Element && e.target.closest('a'))) return;
    open(r, 'a');
  };
  const href = (episodeId: number, t: number) => formatHash({ route: { view: 'episode', episodeId, turn: t }, runIds });
  if (diff.rows.length === 0) {
    return (
      <p className="diff-none" data-testid="diff-none">
        {diff.a} and {diff.b} choose the same model at every compared turn.
      </p>
    );
  }
  return (
    <div className="diff-rows-scroll">
      <table className="policy-table diff-table" data-testid="diff-rows">
        <thead>
          <tr>
            <th>Episode</th>
            <th className="num">Turn</th>
            <th>A: {diff.a}</th>
            <th>B: {diff.b}</th>
            <th className="num" title="ŝ of B's choice minus ŝ of A's choice at this turn">
              Δŝ
            </th>
          </tr>
        </thead>
        <tbody>
          {diff.rows.map((r) => (
            <tr
              key={`${r.episode}-${r.episode_b ?? ''}-${r.t}`}
              className="diff-row"
              tabIndex={0}
              onClick={(e) => onRowClick(e, r)}
              onKeyDown={(e) => onListRowKey(e, () => open(r, 'a'))}
              data-testid="diff-row"
              data-episode-id={r.episode}
              data-t={r.t}
              title={`Open turn ${r.t} of ${r.ext_id}`}
            >
              <td className="mono cell-ellipsis" title={r.ext_id}>
                <a href={href(r.episode, r.t)} onClick={(e) => { e.preventDefault(); open(r, 'a'); }}>
                  {r.ext_id}
                </a>
                {r.episode_b !== null && (
                  <a className="diff-b-link" href={href(r.episode_b, r.t)} onClick={(e) => { e.preventDefault(); open(r, 'b'); }} title="Open B's episode of this task">
                    B
                  </a>
                )}
              </td>
              <td className="num">{r.t}</td>
              <td>{r.a === null ? <span className="faint">episode ended</span> : <ModelChip name={r.a} compact />}</td>
              <td>{r.b === null ? <span className="faint">episode ended</span> : <ModelChip name={r.b} compact />}</td>
              <td className={r.delta_s_hat === null ? 'num faint' : r.delta_s_hat > 0 ? 'num delta-up' : r.delta_s_hat < 0 ? 'num delta-down' : 'num'}>
                {r.delta_s_hat === null ? '—' : signed(3)(r.delta_s_hat)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {diff.total_rows > diff.rows.length && (
        <p className="faint diff-more">
          Showing the first {formatCount(diff.rows.length)} of {formatCount(diff.total_rows)} disagreeing turns; the CSV has the same rows.
        </p>
      )}
    </div>
  );
}

/**
 * The diff answers below the fold (under the results and the figure), so a Compare click seemed to do
 * nothing: when a new answer arrives it is scrolled into view. One already there when the view mounts (back
 * from the inspector) stays where the user left it.
 */
function useScrollIntoViewOnArrival(diff: PolicyDiffResult | null, panel: RefObject<HTMLElement | null>) {
  const seen = useRef(diff);
  useEffect(() => {
    if (!diff || diff === seen.current) return;
    seen.current = diff;
    const reduce = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
    panel.current?.scrollIntoView({ block: 'start', behavior: reduce ? 'auto' : 'smooth' });
  }, [diff, panel]);
}

export function DiffPanel() {
  const lab = usePolicyLab();
  const runs = useAppStore((s) => s.runs);
  const runIds = useAppStore((s) => s.runIds);
  const phase = lab.diff;
  const running = phase.kind === 'running';
  const policyOptions = [...new Set([...lab.policies, lab.diffA, lab.diffB])].filter((p) => p !== '');
  const ready =
    lab.diffMode === 'policies'
      ? lab.diffA !== '' && lab.diffB !== '' && lab.diffA !== lab.diffB
      : lab.diffRunA !== '' && lab.diffRunB !== '' && lab.diffRunA !== lab.diffRunB;

  const compare = () => {
    const input: PolicyDiffInput =
      lab.diffMode === 'policies'
        ? { kind: 'policies', a: lab.diffA, b: lab.diffB, runIds, bootstrap: BOOTSTRAP }
        : { kind: 'runs', runA: Number(lab.diffRunA), runB: Number(lab.diffRunB), bootstrap: BOOTSTRAP };
    void lab.runDiff(input, runIds);
  };
  const diff = phase.kind === 'done' ? phase.value : null;
  const stale = phase.kind === 'done' && phase.value.kind === 'policies' && phase.runIds.join(',') !== runIds.join(',');
  // The runs the diff read: the two compared, or the selection it was asked over (none selected = all).
  const panel = useRef<HTMLElement>(null);
  useScrollIntoViewOnArrival(diff, panel);
  const diffRuns = !diff ? [] : diff.kind === 'runs' ? [{ name: diff.a }, { name: diff.b }] : runs.filter((r) => phase.kind === 'done' && phase.runIds.includes(r.id));

  return (
    <section className="card policy-diff" data-testid="policy-diff" ref={panel}>
      <header className="panel-head">
        <h2 className="panel-title">Paired diff</h2>
        <div className="segmented" role="radiogroup" aria-label="Compare">
          {(['policies', 'runs'] as const).map((mode) => (
            <button
              key={mode}
              type="button"
              role="radio"
              aria-checked={lab.diffMode === mode}
              className={lab.diffMode === mode ? 'is-on' : undefined}
              onClick={() => lab.setDiff({ diffMode: mode })}
              disabled={running}
              data-testid={`diff-mode-${mode}`}
            >
              {mode === 'policies' ? 'Two policies' : 'Two runs'}
            </button>
          ))}
        </div>
        {lab.diffMode === 'policies' ? (
          <>
            <label className="diff-pick">
              A
              <select value={lab.diffA} onChange={(e) => lab.setDiff({ diffA: e.target.value })} disabled={running} data-testid="diff-a">
                {policyOptions.map((p) => (
                  <option key={p} value={p}>
                    {p}
                  </option>
                ))}
              </select>
            </label>
            <label className="diff-pick">
              B
              <select value={lab.diffB} onChange={(e) => lab.setDiff({ diffB: e.target.value })} disabled={running} data-testid="diff-b">
                {policyOptions.map((p) => (
                  <option key={p} value={p}>
                    {p}
                  </option>
                ))}
              </select>
            </label>
          </>
        ) : (
          <>
            <label className="diff-pick">
              A
              <select value={lab.diffRunA} onChange={(e) => lab.setDiff({ diffRunA: e.target.value })} disabled={running} data-testid="diff-run-a">
                <option value="">choose a run…</option>
                {runs.map((r) => (
                  <option key={r.id} value={String(r.id)}>
                    {r.name}
                  </option>
                ))}
              </select>
            </label>
            <label className="diff-pick">
              B
              <select value={lab.diffRunB} onChange={(e) => lab.setDiff({ diffRunB: e.target.value })} disabled={running} data-testid="diff-run-b">
                <option value="">choose a run…</option>
                {runs.map((r) => (
                  <option key={r.id} value={String(r.id)}>
                    {r.name}
                  </option>
                ))}
              </select>
            </label>
          </>
        )}
        <button type="button" className="btn btn-primary" onClick={compare} disabled={running || !ready} data-testid="diff-run">
          Compare
        </button>
        {running && <Progress startedAt={phase.startedAt} onCancel={lab.cancelDiff} what="Comparing" testId="diff-progress" />}
        <span className="toolbar-spacer" />
        {diff && (
          <button type="button" className="btn btn-ghost" onClick={() => downloadText(exportName('policy-diff', diffRuns, diff.kind === 'policies' ? `${diff.a}-vs-${diff.b}` : undefined), diffCsv(diff), 'text/csv')} data-testid="diff-csv">
            CSV
          </button>
        )}
      </header>
      {!ready && !running && !diff && (
        <p className="faint diff-hint">
          {lab.diffMode === 'policies'
            ? 'Pick two different policies: the diff lists every turn of the selected runs where they choose different models.'
            : 'Pick two runs of the same tasks: episodes are paired by task id and compared turn by turn.'}
        </p>
      )}
      {phase.kind === 'failed' && <ErrorNotice title="The diff failed." message={phase.message} />}
      {phase.kind === 'cancelled' && <p className="faint">Cancelled: nothing shown.</p>}
      {diff && (
        <>
          {stale && <p className="stale-note">The run selection changed since this diff; Compare again to update it.</p>}
          <p className="diff-caption faint" data-testid="diff-caption">
            {diff.kind === 'runs' ? 'B − A over tasks both runs attempted' : 'B − A at the logged histories'}: A ={' '}
            <span className="mono">{diff.a}</span>, B = <span className="mono">{diff.b}</span>
            {diff.s_hat_source === 'none' && ' · Δŝ is empty: no ŝ (score the runs with an estimator)'}
            {diff.s_hat_source === 'logged_candidates' && ' · ŝ from the log’s router scores'}
          </p>
          <Summary diff={diff} />
          <LeftOut diff={diff} />
          <DiffRows diff={diff} />
        </>
      )}
    </section>
  );
}
