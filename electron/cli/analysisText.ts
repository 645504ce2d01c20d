/**
 * How `routelens info` and `analyze` print what both stores answer (SQLite's typed arrays and ClickHouse's SQL):
 * one printer each, so `--db` and `--store` print alike.
 */
import type { RunLogTotals } from '../../shared/api.ts';
import type { ErrorRecoveryResult, LiftResult, ParetoResult, SwitchCostResult, TargetsResult, UsageByTurnResult } from '../../shared/analysisResults.ts';
import { visibleText as v } from '../../shared/displayText.ts';
import { money, out, print } from './common.ts';
import type { StoreRunInfo } from '../store/clickhouse/queries/storeInfo.ts';

export type StoreAnalysis =
  | ['pareto', ParetoResult]
  | ['switch-cost', SwitchCostResult]
  | ['error-recovery', ErrorRecoveryResult]
  | ['usage-by-turn', UsageByTurnResult]
  | ['targets', TargetsResult]
  | ['lift', LiftResult];

/** Prints `result` as JSON (`--json`) or as text lines; returns exit code 0. */
export function showAnalysis<A extends StoreAnalysis>(id: A[0], result: A[1], json: boolean): number {
  const shown = [id, result] as StoreAnalysis;
  if (json) return print(shown[0] === 'targets' ? { episode: shown[1].episode, turns: shown[1].turns } : result);
  switch (shown[0]) {
    case 'lift':
      out('model                      category              lift   95% CI             n');
      for (const c of shown[1].cells) {
        out(`${v(c.model).padEnd(26)} ${v(c.category).padEnd(20)} ${c.lift.toFixed(2).padStart(5)}   [${c.ci[0].toFixed(2)}, ${c.ci[1].toFixed(2)}]`.padEnd(70) + String(c.n).padStart(6));
      }
      return 0;
    case 'targets':
      out('   t   s_tilde   penalty  errors');
      for (const t of shown[1].turns) {
        const st = t.s_tilde === null ? '      n/a' : t.s_tilde.toFixed(4).padStart(9);
        out(`${String(t.t).padStart(4)} ${st} ${t.penalty.toFixed(4).padStart(9)}  ${t.errors.map(v).join(', ')}`);
      }
      return 0;
    case 'error-recovery': {
      const pct = (x: number | null): string => (x === null ? '   n/a' : `${(x * 100).toFixed(1)}%`.padStart(6));
      out('run                              pairs  P(switch)  P(recover)  stay    switch');
      for (const g of shown[1].groups) {
        out(`${v(g.run).padEnd(32)} ${String(g.n).padStart(5)}  ${pct(g.p_switch)}     ${pct(g.p_recover)}      ${pct(g.p_recover_stay)}  ${pct(g.p_recover_switch)}`);
      }
      return 0;
    }
    case 'usage-by-turn':
      for (const r of shown[1].runs) {
        out(v(r.run));
        for (const t of r.turns) {
          // Largest share first, then by name: the same line whichever store answered.
          const shares = Object.entries(t.shares).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
            .map(([m, x]) => `${v(m)} ${(x * 100).toFixed(0)}%`).join(', ');
          out(`  t=${String(t.t).padEnd(4)} n=${String(t.n).padEnd(6)} ${shares}`);
        }
      }
      return 0;
    case 'switch-cost':
      for (const r of shown[1].runs) {
        const n = r.episodes.length;
        const mean = (f: (e: (typeof r.episodes)[number]) => number): number => r.episodes.reduce((a, e) => a + f(e), 0) / Math.max(1, n);
        out(`${v(r.run)}: ${n} successful episodes, ${mean((e) => e.switches).toFixed(2)} switches and ${money(mean((e) => e.cost))} per episode`);
      }
      return 0;
    case 'pareto':
      out('run                              episodes  mean score  mean cost  frontier  savings vs reference');
      for (const p of shown[1].points) {
        const saving = p.savings_vs_reference === null ? '' : `${(p.savings_vs_reference * 100).toFixed(1)}%`;
        out(`${v(p.run).padEnd(32)} ${String(p.n).padStart(8)}  ${p.mean_score.toFixed(3).padStart(10)}  ${money(p.mean_cost).padStart(9)}  ${p.frontier ? '   yes  ' : '        '}  ${saving}`);
      }
      return 0;
  }
}

const RUNS_INFO_FIELDS = [
  'name', 'format', 'episodes', 'child_episodes', 'turns', 'models', 'total_cost', 'known_cost', 'unpriced_turns', 'unpriced_episodes',
  'success_rate', 'unknown_outcome', 'splits', 'log_totals', 'cost_sources',
] as const;
export type RunsInfoLine = Pick<StoreRunInfo, (typeof RUNS_INFO_FIELDS)[number]>;

/** `routelens info`: the same lines and JSON for a SQLite database and a ClickHouse store. */
export function showRunsInfo(runs: RunsInfoLine[], json: boolean): number {
  if (json) {
    // The same fields from either store, in one order (the store's richer rows feed the window too).
    return print({ runs: runs.map((r) => Object.fromEntries(RUNS_INFO_FIELDS.map((k) => [k, r[k]]))) });
  }
  if (runs.length === 0) {
    out('no runs yet: routelens import PATH --db FILE');
    return 0;
  }
  for (const r of runs) {
    const rate = r.success_rate === null ? 'n/a' : `${(r.success_rate * 100).toFixed(1)}%`;
    const n = r.unpriced_turns;
    const known = r.known_cost > 0 ? `; ${money(r.known_cost)} known` : '';
    const cost = r.total_cost === null ? `cost unknown (${n} turn${n === 1 ? '' : 's'} unpriced${known})` : money(r.total_cost);
    const children = r.child_episodes > 0 ? ` (+${r.child_episodes} subagent/child episodes)` : '';
    const noOutcome = r.unknown_outcome > 0 ? ` (${r.unknown_outcome} without an outcome)` : '';
    out(`${v(r.name)}  [${r.format}]  ${r.episodes} episodes${children}, ${r.turns} turns, ${cost}, success ${rate}${noOutcome}`);
    out(`  models: ${r.models.map(v).join(', ')}`);
    const bySplit = Object.entries(r.splits);
    if (bySplit.length) out(`  splits: ${bySplit.map(([s, k]) => `${v(s)} ${k}`).join(', ')}`);
    out(`  log totals: ${logTotalsLine(r.log_totals)}`);
    out(`  costs: ${r.cost_sources.map((c) => `${c.turns} ${c.source === 'priced' ? `priced (${c.provenance})` : c.source === 'none' ? 'unknown' : c.source}`).join(', ') || 'no turns'}`);
  }
  return 0;
}

/**
 * `reconciled (12 episodes)`, `differ in 3 of 12 episodes (up to 10.6%): log $1.23, turns $1.10`, `not comparable (2
 * episodes: …)`, `none in the log`; episodes that could not be compared are named beside the others.
 */
export function logTotalsLine(t: RunLogTotals): string {
  if (t.status === 'no totals in the log') return 'none in the log';
  const n = `${t.episodes_with_totals} episode${t.episodes_with_totals === 1 ? '' : 's'}`;
  if (t.status === 'not comparable') return `not comparable (${n}: the logs total only what the turns do not carry)`;
  const cost = t.log_cost === null ? '' : `: log ${money(t.log_cost)}, turns ${t.counted_cost === null ? 'unknown' : money(t.counted_cost)}`;
  const unchecked = t.episodes_not_comparable > 0 ? `, ${t.episodes_not_comparable} not comparable` : '';
  if (t.status === 'reconciled') return `reconciled (${n}${unchecked})${cost}`;
  const worst = t.worst_rel === null ? '' : ` (up to ${(t.worst_rel * 100).toFixed(1)}%)`;
  return `differ in ${t.episodes_differing} of ${n}${worst}${unchecked}${cost}`;
}

/** budget-modes, usage-ratio, confusion: small nested tables, whose readable form is indented JSON. */
export function showTables(result: unknown, json: boolean): number {
  out(json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
  return 0;
}
