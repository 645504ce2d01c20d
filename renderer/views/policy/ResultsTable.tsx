/**
 * One row per replayed policy, sortable by any figure (client-side: a replay has at most 20 policies).
 * Every estimate shows its 95% CI beneath it; an empty OPE cell says why in its tooltip.
 */
import {
  createColumnHelper,
  createSortedRowModel,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  tableFeatures,
  useTable,
  type SortingState,
} from '@tanstack/react-table';
import { useState, type ReactNode } from 'react';
import type { PolicyReplay, ReplayResult } from '../../../shared/apiReplay.ts';
import { formatCost, formatPercent, formatUnit } from '../../format/numbers.ts';
import { policyHelp } from './policyForm.ts';

interface Row {
  index: number;
  p: PolicyReplay;
  color: string;
}

const features = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { basic: sortFn_basic, alphanumeric: sortFn_alphanumeric },
});
const helper = createColumnHelper<typeof features, Row>();

/** Nulls become undefined so the sorted model puts them last in either direction. */
const num = (x: number | null | undefined): number | undefined => (x === null ? undefined : x);

function Estimate({ value, ci, format, why }: { value: number | null | undefined; ci?: readonly [number, number] | null; format(x: number): string; why?: string }) {
  if (value === null || value === undefined) {
    return (
      <span className="faint" title={why}>
        —
      </span>
    );
  }
  return (
    <span className="estimate">
      <span>{format(value)}</span>
      {ci && (
        <span className="estimate-ci faint" title="95% episode-bootstrap interval">
          {format(ci[0])} – {format(ci[1])}
        </span>
      )}
    </span>
  );
}

/**
 * An importance-weighted estimate the log does not support: said in words, the value (when one could be computed)
 * and the reason in the tooltip, so it is never read as the policy's score.
 */
function Unsupported({ value, why, format }: { value: number | null; why: string; format(x: number): string }) {
  const label = value === null ? 'no support' : 'insufficient support';
  return (
    <span className="unsupported faint" data-support={value === null ? 'none' : 'insufficient'} title={value === null ? why : `${format(value)}: ${why}`}>
      {label}
    </span>
  );
}

/** Values on the score scale; importance-sampling estimates can run to 1e20 when weights explode, shown as such. */
const unit3 = (x: number) => (Math.abs(x) >= 1000 ? x.toExponential(2) : formatUnit(x, 3));

function opeWhy(p: PolicyReplay, which: 'ips' | 'wis' | 'dr', sHat: ReplayResult['s_hat_source']): string {
  if (!p.ope) return 'No replayed episode has a logged propensity on every turn.';
  if (which === 'dr' && sHat !== 'estimator') return 'DR needs ŝ from an estimator: score the runs first.';
  if (which === 'wis') return 'Every importance weight is 0: the policy never chose what the log chose.';
  return '';
}

function columns(sHat: ReplayResult['s_hat_source']) {
  const dmWhy = sHat === 'estimator' ? 'No estimate for this policy.' : 'The direct method needs ŝ from an estimator: score the runs first.';
  return helper.columns([
    helper.accessor((r) => r.p.policy, {
      id: 'policy',
      header: 'Policy',
      sortFn: 'alphanumeric',
      cell: (info) => (
        <span className="policy-cell" title={policyHelp(info.getValue())}>
          <span className="policy-swatch" style={{ background: info.row.original.color }} aria-hidden="true" />
          <span>
            <span className="mono">{info.getValue()}</span>
            <span className="policy-label faint">{info.row.original.p.label}</span>
          </span>
        </span>
      ),
    }),
    helper.accessor((r) => r.p.agreement, {
      id: 'agreement',
      header: 'Agreement',
      sortFn: 'basic',
      sortDescFirst: true,
      meta: { title: 'Share of turns where the policy chose the logged model (below: share of episodes agreeing on every turn)' },
      cell: (info) => (
        <span className="estimate">
          <span>{formatPercent(info.getValue())}</span>
          <span className="estimate-ci faint">{formatPercent(info.row.original.p.episode_agreement)} of episodes</span>
        </span>
      ),
    }),
    helper.accessor((r) => num(r.p.first_divergence.median), {
      id: 'divergence',
      header: 'First divergence',
      sortFn: 'basic',
      sortUndefined: 'last',
      meta: { title: 'Median turn of the first disagreement with the log (below: episodes that never disagree)' },
      cell: (info) => {
        const d = info.row.original.p.first_divergence;
        return (
          <span className="estimate">
            <span>{d.median === null ? <span className="faint">never</span> : `turn ${d.median}`}</span>
            <span className="estimate-ci faint">{d.never} never</span>
          </span>
        );
      },
    }),
    helper.accessor((r) => num(r.p.est_score), {
      id: 'est_score',
      header: 'Est. score (DM)',
      sortFn: 'basic',
      sortUndefined: 'last',
      sortDescFirst: true,
      meta: { title: 'Direct method: mean ŝ of the policy’s choices (normalised score)' },
      cell: (info) => <Estimate value={info.getValue()} ci={info.row.original.p.est_score_ci} format={unit3} why={dmWhy} />,
    }),
    helper.accessor((r) => r.p.est_cost, {
      id: 'est_cost',
      header: 'Est. cost / episode',
      sortFn: 'basic',
      meta: { title: 'Tokens at the chosen model’s prices, output scaled by its learned length ratio' },
      cell: (info) => <Estimate value={info.getValue()} ci={info.row.original.p.est_cost_ci} format={(x) => formatCost(x)} />,
    }),
    helper.accessor((r) => r.p.switches, {
      id: 'switches',
      header: 'Switches',
      sortFn: 'basic',
      meta: { title: 'Mean model switches per episode along the policy’s choices' },
      cell: (info) => formatUnit(info.getValue()),
    }),
    ...(['ips', 'wis', 'dr'] as const).map((which) =>
      // An estimate the log does not support sorts with the empty ones.
      helper.accessor((r) => (r.p.ope?.support[which] ? undefined : num(r.p.ope?.[which])), {
        id: which,
        header: which.toUpperCase(),
        sortFn: 'basic',
        sortUndefined: 'last',
        sortDescFirst: true,
        meta: {
          title: {
            ips: 'Per-decision importance sampling estimate of the policy’s value',
            wis: 'Weighted (self-normalised) importance sampling',
            dr: 'Doubly robust: DM corrected with importance-weighted residuals',
          }[which],
        },
        cell: (info) => {
          const ope = info.row.original.p.ope;
          const unsupported = ope?.support[which] ?? null;
          if (ope && unsupported !== null) return <Unsupported value={ope[which]} why={unsupported} format={unit3} />;
          return <Estimate value={info.getValue()} ci={ope?.ci[which]} format={unit3} why={opeWhy(info.row.original.p, which, sHat)} />;
        },
      }),
    ),
    helper.accessor((r) => num(r.p.ope?.ess), {
      id: 'ess',
      header: 'ESS',
      sortFn: 'basic',
      sortUndefined: 'last',
      meta: { title: 'Effective sample size of the importance weights, of the n episodes with propensities' },
      cell: (info) => {
        const ope = info.row.original.p.ope;
        if (!ope) return <span className="faint">—</span>;
        // Below a tenth of the episodes, a few heavy weights carry the importance-sampling estimates.
        const low = ope.ess < Math.max(2, 0.1 * ope.n);
        return (
          <span className="estimate" title={low ? `Only ${ope.ess.toFixed(1)} effective episodes of ${ope.n}: IPS / WIS / DR rest on a few heavy weights` : undefined}>
            <span className={low ? 'ess-low' : undefined}>{ope.ess.toFixed(1)}</span>
            <span className="estimate-ci faint">of {ope.n}</span>
          </span>
        );
      },
    }),
  ]);
}

const NUMERIC = new Set(['agreement', 'divergence', 'est_score', 'est_cost', 'switches', 'ips', 'wis', 'dr', 'ess']);

export function ResultsTable({ result, colorOf }: { result: ReplayResult; colorOf(index: number): string }) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const data: Row[] = result.policies.map((p, index) => ({ index, p, color: colorOf(index) }));
  const table = useTable({
    features,
    columns: columns(result.s_hat_source),
    data,
    state: { sorting },
    onSortingChange: setSorting,
    getRowId: (r) => r.p.policy,
  });
  return (
    <div className="card table-card">
      <table className="policy-table" data-testid="policy-results">
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const dir = header.column.getIsSorted();
                const meta = header.column.columnDef.meta as { title?: string } | undefined;
                return (
                  <th
                    key={header.id}
                    className={NUMERIC.has(header.column.id) ? 'num' : undefined}
                    title={meta?.title}
                    aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : undefined}
                  >
                    <button type="button" className="th-sort" onClick={header.column.getToggleSortingHandler()}>
                      <table.FlexRender header={header} />
                      <span className={dir ? 'sort-arrow' : 'sort-arrow is-idle'}>{dir === 'asc' ? '↑' : dir === 'desc' ? '↓' : '↕'}</span>
                    </button>
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} data-testid="policy-row" data-policy={row.original.p.policy}>
              {row.getAllCells().map((cell): ReactNode => (
                <td key={cell.id} className={NUMERIC.has(cell.column.id) ? 'num' : undefined} data-col={cell.column.id}>
                  <table.FlexRender cell={cell} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
