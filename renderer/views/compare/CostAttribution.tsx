/**
 * Where each side's money went: per model and scope (main loop / subagents), tokens split input / output /
 * cache, known cost, and calls of unknown cost counted apart (their cost shows '—', never $0). Under it, the
 * counterfactual: what each side would have cost with every turn on one model, and the assumption behind it.
 */
import type { CompareResult, ModelCost } from '../../../shared/apiCompare.ts';
import { sideName } from '../../../shared/charts/layouts/compareCommon.ts';
import { ModelDot } from '../../components/ModelChip.tsx';
import { VisibleName } from '../../components/VisibleName.tsx';
import { formatCost, formatCount, plural } from '../../format/numbers.ts';

function Cost({ m }: { m: Pick<ModelCost, 'cost' | 'calls' | 'unknown_calls'> }) {
  if (m.unknown_calls === m.calls && m.calls > 0) return <span className="faint" title="Every call of this model has an unknown cost">—</span>;
  return (
    <>
      {formatCost(m.cost)}
      {m.unknown_calls > 0 && <span className="faint"> + {plural(m.unknown_calls, 'call')} unknown</span>}
    </>
  );
}

function SideTable({ result, side }: { result: CompareResult; side: 'a' | 'b' }) {
  const rows = [...result.attribution[side]].sort((p, q) => q.cost - p.cost || q.calls - p.calls || p.model.localeCompare(q.model) || p.scope.localeCompare(q.scope));
  const total = rows.reduce(
    (t, m) => ({ calls: t.calls + m.calls, unknown_calls: t.unknown_calls + m.unknown_calls, cost: t.cost + m.cost, tokens_in: t.tokens_in + m.tokens_in, tokens_out: t.tokens_out + m.tokens_out, tokens_cached: t.tokens_cached + m.tokens_cached, tokens_cache_write: t.tokens_cache_write + m.tokens_cache_write }),
    { calls: 0, unknown_calls: 0, cost: 0, tokens_in: 0, tokens_out: 0, tokens_cached: 0, tokens_cache_write: 0 },
  );
  return (
    <div className="compare-attr-side">
      <h3 className="compare-attr-title">
        <VisibleName name={sideName(result, side)} />
      </h3>
      <div className="table-scroll">
        <table className="compare-table" data-testid={`attribution-${side}`}>
          <thead>
            <tr>
              <th>Model</th>
              <th>Scope</th>
              <th className="num">Calls</th>
              <th className="num" title="Input tokens, cached ones included">Tokens in</th>
              <th className="num">Out</th>
              <th className="num" title="Input tokens read from the cache">Cached</th>
              <th className="num" title="Input tokens written to the cache">Cache write</th>
              <th className="num">Cost (known)</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((m) => (
              <tr key={`${m.model}|${m.scope}`} data-testid="attribution-row" data-model={m.model} data-scope={m.scope}>
                <td>
                  <span className="compare-model">
                    <ModelDot name={m.model} />
                    <VisibleName name={m.model} />
                  </span>
                </td>
                <td>{m.scope === 'main' ? 'main loop' : 'subagents'}</td>
                <td className="num">{formatCount(m.calls)}</td>
                <td className="num">{formatCount(m.tokens_in)}</td>
                <td className="num">{formatCount(m.tokens_out)}</td>
                <td className="num">{formatCount(m.tokens_cached)}</td>
                <td className="num">{formatCount(m.tokens_cache_write)}</td>
                <td className="num" data-col="cost">
                  <Cost m={m} />
                </td>
              </tr>
            ))}
            {rows.length === 0 && (
              <tr>
                <td colSpan={8} className="faint">
                  No model calls on this side.
                </td>
              </tr>
            )}
          </tbody>
          {rows.length > 1 && (
            <tfoot>
              <tr>
                <th colSpan={2}>Total</th>
                <td className="num">{formatCount(total.calls)}</td>
                <td className="num">{formatCount(total.tokens_in)}</td>
                <td className="num">{formatCount(total.tokens_out)}</td>
                <td className="num">{formatCount(total.tokens_cached)}</td>
                <td className="num">{formatCount(total.tokens_cache_write)}</td>
                <td className="num">
                  <Cost m={total} />
                </td>
              </tr>
            </tfoot>
          )}
        </table>
      </div>
    </div>
  );
}

export function CostAttribution({ result }: { result: CompareResult }) {
  const cf = result.counterfactual;
  return (
    <section className="card compare-attribution" data-testid="compare-attribution">
      <h2 className="panel-title">Cost by model</h2>
      <div className="compare-attr-grid">
        <SideTable result={result} side="a" />
        <SideTable result={result} side="b" />
      </div>
      {cf && (
        <div className="compare-counterfactual" data-testid="counterfactual">
          <p>
            <strong>
              Every turn on <span className="mono">{cf.model}</span>:
            </strong>{' '}
            A {formatCost(cf.a_cost)} · B {formatCost(cf.b_cost)}
            {cf.n_unknown > 0 && <span className="faint"> · {plural(cf.n_unknown, 'episode')} left out (no tokens logged, or no price)</span>}
          </p>
          <p className="faint" data-testid="counterfactual-assumption">
            {cf.assumption}
          </p>
        </div>
      )}
    </section>
  );
}
