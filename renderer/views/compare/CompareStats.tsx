/** The comparison's head: what each side holds, how the tasks paired, and the paired statistics (B − A). */
import type { CompareResult } from '../../../shared/apiCompare.ts';
import { sideColors } from '../../../shared/charts/layouts/compareCommon.ts';
import { textOn } from '../../../shared/charts/marks.ts';
import { VisibleName } from '../../components/VisibleName.tsx';
import { formatCost, formatCount, formatPercent, formatUnit, plural } from '../../format/numbers.ts';
import { ciText, diffCost, diffPoints, diffUnit, pValue } from './compareFormat.ts';

type Summary = CompareResult['a'];

function SideSummary({ side, s, color }: { side: 'a' | 'b'; s: Summary; color: string }) {
  const cost =
    s.unpriced_episodes > 0 ? (
      <span title={`${plural(s.unpriced_episodes, 'episode')} had a call of unknown cost; their known part is included`}>
        ≥ {formatCost(s.known_cost)} <span className="faint">({formatCount(s.unpriced_episodes)} with unknown cost)</span>
      </span>
    ) : (
      formatCost(s.known_cost)
    );
  return (
    <section className="card compare-summary" data-testid={`compare-summary-${side}`}>
      <h3 className="compare-summary-title">
        <span className="compare-side-letter" style={{ background: color, color: textOn(color) }} aria-hidden="true" data-series={`${side.toUpperCase()}: ${s.label}`}>
          {side.toUpperCase()}
        </span>
        <span className="cell-ellipsis">
          <VisibleName name={s.label} />
        </span>
      </h3>
      <dl className="compare-kpis">
        <dt>Episodes</dt>
        <dd data-testid="kpi-episodes">{formatCount(s.episodes)}</dd>
        <dt>Tasks</dt>
        <dd>
          {formatCount(s.tasks)}
          {s.tasks_averaged > 0 && <span className="faint"> ({formatCount(s.tasks_averaged)} averaged)</span>}
        </dd>
        <dt>With outcome</dt>
        <dd>{formatCount(s.with_outcome)}</dd>
        <dt>Success</dt>
        <dd data-testid="kpi-success">{formatPercent(s.success_rate)}</dd>
        <dt>Mean score</dt>
        <dd>{formatUnit(s.mean_score, 3)}</dd>
        <dt>Cost</dt>
        <dd data-testid="kpi-cost">{cost}</dd>
      </dl>
      {s.runs.length > 1 && (
        <p className="faint compare-runs" title={s.runs.join('\n')}>
          {s.runs.length} runs: {s.runs.join(', ')}
        </p>
      )}
    </section>
  );
}

function Unpaired({ label, ids }: { label: string; ids: string[] }) {
  if (ids.length === 0) return null;
  return (
    <details className="compare-unpaired" data-testid={`unpaired-${label}`}>
      <summary>
        {plural(ids.length, 'task')} only on {label}
      </summary>
      <ul className="compare-id-list mono">
        {ids.slice(0, 500).map((id) => (
          <li key={id}>
            <VisibleName name={id} />
          </li>
        ))}
        {ids.length > 500 && <li className="faint">and {formatCount(ids.length - 500)} more (in the CSV of the table)</li>}
      </ul>
    </details>
  );
}

function Stat({ label, value, detail, testId }: { label: string; value: string; detail: string; testId: string }) {
  return (
    <div className="compare-stat" data-testid={testId}>
      <span className="compare-stat-label">{label}</span>
      <span className="compare-stat-value">{value}</span>
      <span className="faint compare-stat-detail">{detail}</span>
    </div>
  );
}

export function CompareStats({ result }: { result: CompareResult }) {
  const { pairing, stats } = result;
  const { success, score, cost, wins } = stats;
  const boot = stats.bootstrap > 0 ? `paired bootstrap, ${formatCount(stats.bootstrap)} resamples, seed ${stats.seed}` : 'no bootstrap';
  return (
    <>
      <div className="compare-summaries">
        <SideSummary side="a" s={result.a} color={sideColors(result).a} />
        <SideSummary side="b" s={result.b} color={sideColors(result).b} />
      </div>
      <section className="card compare-pairing" data-testid="compare-pairing">
        <h2 className="panel-title">Pairing by task</h2>
        <p>
          <strong data-testid="paired-count">{plural(pairing.paired_tasks, 'paired task')}</strong>
          <span className="faint">
            {' '}
            · {formatCount(pairing.unpaired_a.length)} only on A · {formatCount(pairing.unpaired_b.length)} only on B
          </span>
        </p>
        <Unpaired label="A" ids={pairing.unpaired_a} />
        <Unpaired label="B" ids={pairing.unpaired_b} />
        {pairing.notes.length > 0 && (
          <ul className="compare-notes faint" data-testid="pairing-notes">
            {pairing.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        )}
      </section>
      <section className="card compare-stats" data-testid="compare-stats">
        <h2 className="panel-title">Paired statistics, B − A</h2>
        {!result.outcomes_known && (
          <p className="compare-no-outcomes" data-testid="no-outcomes">
            No outcomes: only cost and behaviour are compared.
          </p>
        )}
        <div className="compare-stat-grid">
          {success && (
            <Stat
              testId="stat-success"
              label={`Success (n = ${formatCount(success.n)} tasks)`}
              value={diffPoints(success.diff)}
              detail={`${ciText(success.ci, diffPoints)} · exact McNemar ${pValue(success.p_value)} · both ${success.both}, A only ${success.a_only}, B only ${success.b_only}, neither ${success.neither}`}
            />
          )}
          {score && <Stat testId="stat-score" label={`Score (n = ${formatCount(score.n)})`} value={diffUnit(score.mean_diff)} detail={`${ciText(score.ci, diffUnit)} · ${boot}`} />}
          {cost && (
            <Stat
              testId="stat-cost"
              label={`Cost per task (n = ${formatCount(cost.n)})`}
              value={diffCost(cost.mean_diff)}
              detail={`${ciText(cost.ci, diffCost)} · ${boot}${cost.n_unknown > 0 ? ` · ${plural(cost.n_unknown, 'task')} with an unknown cost left out` : ''}`}
            />
          )}
          {result.outcomes_known && (
            <Stat
              testId="stat-wins"
              label="Tasks won"
              value={`A ${formatCount(wins.a)} · tie ${formatCount(wins.tie)} · B ${formatCount(wins.b)}`}
              detail="by score (success where there is no score)"
            />
          )}
          {!success && !score && !cost && <p className="faint">No paired task to test: the sides share no task id.</p>}
        </div>
      </section>
    </>
  );
}
