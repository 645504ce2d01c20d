/**
 * `routelens analyze calibration|embeddings` (DESIGN §8): the two analyses of the estimator's output. The
 * `analyze` command (analyze.ts) hands these ids here; --json prints exactly the analysis function's result.
 * The analyses themselves (they load ONNX Runtime) are imported when one runs on a database: `analyze … --store`
 * takes only the flags and printers from here.
 */
import type { ESTIMATOR_ANALYSES } from './analysisNames.ts';
import { intFlag, out, print, UsageError } from './common.ts';
import { visibleText as v } from '../../shared/displayText.ts';
import type { Db } from '../db/dbHandle.ts';
import { ScorerError } from '../estimator/scorerError.ts';
import type { CalibrationResult, EmbeddingsResult } from '../../shared/analysisResults.ts';

const fixed = (x: number | null, digits = 4): string => (x === null ? 'n/a' : x.toFixed(digits));

async function userErrors<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof RangeError || e instanceof ScorerError) throw new UsageError(e.message);
    throw e;
  }
}

/** Prints a calibration (the table, or its JSON); the exit code. */
export function showCalibration(r: CalibrationResult, json: boolean): number {
  if (json) return print(r);
  if (!r.estimator || r.note) {
    out(r.note ?? 'nothing to calibrate');
    return 0;
  }
  out(`estimator ${v(r.estimator.name)} (id ${r.estimator.id}): ŝ of the logged model against realised S̃`);
  out('run                              turns      MAE   Spearman ρ');
  out(`${'(all selected)'.padEnd(32)} ${String(r.overall.n).padStart(6)}  ${fixed(r.overall.mae).padStart(7)}  ${fixed(r.overall.spearman, 3).padStart(10)}`);
  for (const g of r.runs) {
    out(`${(v(g.run) + (g.in_training ? ' (trained on)' : '')).padEnd(32)} ${String(g.n).padStart(6)}  ${fixed(g.mae).padStart(7)}  ${fixed(g.spearman, 3).padStart(10)}`);
  }
  out('\nŝ bin          turns   mean ŝ   mean S̃   95% CI');
  for (const b of r.overall.bins) {
    const ci = b.ci ? `[${b.ci[0].toFixed(3)}, ${b.ci[1].toFixed(3)}]` : '';
    out(`[${b.lo.toFixed(2)}, ${b.hi.toFixed(2)})  ${String(b.n).padStart(6)}   ${fixed(b.mean_s_hat, 3).padStart(6)}   ${fixed(b.mean_s_tilde, 3).padStart(6)}   ${ci}`);
  }
  return 0;
}

/** `--estimator ID`, checked (absent: the one in use). */
export function estimatorFlag(values: Record<string, unknown>): number | undefined {
  return values.estimator === undefined ? undefined : intFlag(values, 'estimator', 0, 1);
}

/** Calibration's `--estimator ID` and `--bins N`, checked. */
export function calibrationFlags(values: Record<string, unknown>): { estimator: number | undefined; bins: number } {
  return { estimator: estimatorFlag(values), bins: intFlag(values, 'bins', 10, 2, 50) };
}

/** Runs one of ESTIMATOR_ANALYSES and prints it; the exit code. */
export async function analyzeEstimator(db: Db, analysis: (typeof ESTIMATOR_ANALYSES)[number], values: Record<string, unknown>, runs: string[]): Promise<number> {
  const estimator = estimatorFlag(values);
  if (analysis === 'calibration') {
    const { calibrationAnalysis } = await import('../analysis/calibration.ts');
    const { bins } = calibrationFlags(values);
    const split = values.split as string | undefined;
    return showCalibration(await userErrors(() => calibrationAnalysis(db, { runs, split, estimator, bins })), values.json === true);
  }
  const { embeddingsAnalysis } = await import('../analysis/embeddings.ts');
  const { color, sample, seed } = embeddingsFlags(values);
  return showEmbeddings(await userErrors(() => embeddingsAnalysis(db, { runs, estimator, color, sample, seed })), values.json === true);
}

/** The embedding map's options, checked: `--split` does not apply. */
export function embeddingsFlags(values: Record<string, unknown>): { color: 'model' | 'outcome'; sample: number; seed: number } {
  if (values.split !== undefined) throw new UsageError('embeddings does not take --split: it maps the models and a sample of all selected runs');
  const color = values.color ?? 'model';
  if (color !== 'model' && color !== 'outcome') throw new UsageError('--color is model or outcome');
  return { color, sample: intFlag(values, 'sample', 1000, 0, 2000), seed: intFlag(values, 'seed', 0, 0, 2 ** 31 - 1) };
}

/** Prints an embedding map (the points, or its JSON); the exit code. */
export function showEmbeddings(r: EmbeddingsResult, json: boolean): number {
  if (json) return print(r);
  if (r.note) out(r.note);
  if (r.estimator) out(`model embeddings z_a of ${v(r.estimator.name)} (t-SNE, perplexity ${fixed(r.models.perplexity, 2)}, seed ${r.seed}):`);
  for (const p of r.models.points) out(`  ${v(p.model).padEnd(28)} ${v(p.tier ?? 'unknown tier').padEnd(14)} (${p.x.toFixed(3)}, ${p.y.toFixed(3)})`);
  out(`turn histories: ${r.histories.points.length} of ${r.histories.sketched} sketched turns mapped`);
  return 0;
}
