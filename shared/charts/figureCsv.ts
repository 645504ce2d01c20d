/** The data behind each figure as CSV: one row per mark, columns with their units in the header. */
import type { LiftResult, ParetoResult } from '../analysisResults.ts';
import { toCsv } from './csv.ts';

export function paretoCsv(r: ParetoResult): string {
  return toCsv(
    ['run', 'episodes', 'mean_score', 'mean_cost_usd', 'frontier', 'reference', 'savings_vs_reference', 'score_delta_vs_reference'],
    r.points.map((p) => [p.run, p.n, p.mean_score, p.mean_cost, p.frontier, p.run === r.reference, p.savings_vs_reference, p.score_delta_vs_reference]),
  );
}

export function liftCsv(r: LiftResult): string {
  const rows = (run: string, cells: LiftResult['cells']) => cells.map((c) => [run, c.model, c.category, c.lift, c.ci[0], c.ci[1], c.n]);
  return toCsv(
    ['run', 'model', 'category', 'lift', 'ci_low', 'ci_high', 'n_turns'],
    [...rows('(all selected)', r.cells), ...(r.by_run ?? []).flatMap((b) => rows(b.run, b.cells))],
  );
}
