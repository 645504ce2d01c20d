/**
 * Per-model output-length ratio, learned from the logs: how many output tokens a model writes relative to
 * the pool's typical model for the same kind of turn. A replay that gives a turn to another model prices its
 * output as tokens_out × ratio(chosen) / ratio(logged) (DESIGN §7).
 *
 * Model: log(tokens_out) = a_c + b_m + ε over turns with a positive output count, c the turn's tool (else its
 * action type). The category term matters: models routed mostly to verbose tools would otherwise look
 * verbose. Fitted by alternating weighted means over the (model, category) cell means (exact for this
 * two-way additive model; 50 sweeps converge far below token resolution), then ratio_m = exp(b_m) with the
 * b_m centred to mean 0 over the models that have turns, so ratios are relative to their geometric mean.
 * Models without any logged output get ratio 1.
 */
import type { Db } from '../db/dbHandle.ts';

export interface OutputRatios {
  /** models.id → ratio. */
  ratio: Map<number, number>;
  /** Turns the fit used. */
  turns: number;
}

export interface CellMean {
  model: number;
  category: string;
  n: number;
  /** Mean of ln(tokens_out) in the cell. */
  meanLog: number;
}

/** Fits the ratios from (model, category) cell means of ln(tokens_out). Pure, for tests. */
export function fitOutputRatios(cells: readonly CellMean[], sweeps = 50): Map<number, number> {
  const models = [...new Set(cells.map((c) => c.model))];
  const cats = [...new Set(cells.map((c) => c.category))];
  const b = new Map(models.map((m) => [m, 0]));
  const a = new Map(cats.map((c) => [c, 0]));
  for (let s = 0; s < sweeps; s++) {
    for (const c of cats) {
      let n = 0;
      let sum = 0;
      for (const cell of cells) {
        if (cell.category !== c) continue;
        n += cell.n;
        sum += cell.n * (cell.meanLog - (b.get(cell.model) as number));
      }
      a.set(c, n > 0 ? sum / n : 0);
    }
    for (const m of models) {
      let n = 0;
      let sum = 0;
      for (const cell of cells) {
        if (cell.model !== m) continue;
        n += cell.n;
        sum += cell.n * (cell.meanLog - (a.get(cell.category) as number));
      }
      b.set(m, n > 0 ? sum / n : 0);
    }
  }
  const centre = models.length > 0 ? [...b.values()].reduce((x, y) => x + y, 0) / models.length : 0;
  return new Map(models.map((m) => [m, Math.exp((b.get(m) as number) - centre)]));
}

/** Learns the ratios from every turn in the database with a positive output count (~0.3 s at 500k turns, one GROUP BY). */
export function learnOutputRatios(db: Db): OutputRatios {
  const cells = db
    .prepare(`SELECT model_id AS model, COALESCE(tool, action_type) AS category, COUNT(*) AS n, AVG(ln(tokens_out)) AS meanLog
      FROM turns WHERE tokens_out > 0 GROUP BY model_id, COALESCE(tool, action_type)`)
    .all() as CellMean[];
  return { ratio: fitOutputRatios(cells), turns: cells.reduce((s, c) => s + c.n, 0) };
}
