/**
 * Laying out an analysis response as a Scene, and deciding where: on the main thread when it is quick, in
 * a worker (layout.worker.ts) when it would hold up the window. The measure is the number of data items in
 * the result (array elements, a few levels deep), which predicts layout time and is cheap to count.
 */
import type { AnalysisResponse } from '../../shared/analysisResults.ts';
import type { ModelInfo } from '../../shared/api.ts';
import { chartTheme, figureScene, modelColorFrom, type ThemeName } from '../../shared/charts/figures.ts';
import type { Scene } from '../../shared/charts/scene.ts';

export interface LayoutJob {
  response: AnalysisResponse;
  width: number;
  theme: ThemeName;
  models: Pick<ModelInfo, 'name' | 'color_index'>[];
}

export function layoutFigure(job: LayoutJob): Scene {
  return figureScene(job.response, { theme: chartTheme(job.theme), width: job.width, modelColor: modelColorFrom(job.models) });
}

/**
 * Data items in a value: elements of arrays and entries of records, counted down to `depth` levels, stopping
 * once past `cap` (only "is it large" matters).
 */
export function countItems(value: unknown, cap = 100_000, depth = 4): number {
  let count = 0;
  const walk = (v: unknown, level: number): void => {
    if (count > cap || level > depth || v === null || typeof v !== 'object') return;
    const children = Array.isArray(v) ? v : Object.values(v);
    count += children.length;
    for (const child of children) walk(child, level + 1);
  };
  walk(value, 0);
  return count;
}

/**
 * Results with more data items than this are laid out in the worker. Measured (Node, same V8 as the window)
 * on a 470k-turn simulated database: switch-cost, the slowest per item, took 918 ms for 101k items (≈9 µs an
 * item); lift 29 ms for 1.2k, pareto 20 ms for 74 (mostly warm-up). 5,000 items ≈ 45 ms, under the 50 ms a
 * main-thread task may take before the window feels stuck.
 */
export const WORKER_THRESHOLD_ITEMS = 5_000;

export function layoutOffThread(response: AnalysisResponse): boolean {
  return countItems(response.result, WORKER_THRESHOLD_ITEMS) > WORKER_THRESHOLD_ITEMS;
}
