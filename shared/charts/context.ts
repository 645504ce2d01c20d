/** What every figure layout is given besides the analysis result. */
import type { ModelInfo } from '../api.ts';
import { paletteColor, UNKNOWN_MODEL_COLOR, type ModelColorOf } from './palette.ts';
import type { ChartTheme } from './theme.ts';

export interface FigureContext {
  theme: ChartTheme;
  /** Width of the figure in CSS px. */
  width: number;
  /** Height in CSS px; omitted, the layout picks one for its content (small multiples grow with the runs compared). */
  height?: number;
  /** A model's colour, the same in every view and export: `paletteColor(color_index)` from listModels. */
  modelColor: ModelColorOf;
  /**
   * The runs of the selection that figures draw, in run colours (`request.draw` as runAnalysis answered it:
   * shared/drawnRuns.ts). Every figure of a selection colours runs from this one list, so a run has one colour
   * in all of them. Absent (a result laid out without its request), a figure draws the first of its own runs by name.
   */
  drawnRuns?: readonly string[];
  /** pareto: the cost axis (the request's `costAxis`; default linear). */
  costAxis?: 'linear' | 'log';
}

/**
 * `modelColor` from a `listModels` answer; models it does not know get the "unknown" grey. Its order (which of two
 * models that share a colour keeps it) is the answer's, the older model first.
 */
export function modelColorFrom(models: readonly Pick<ModelInfo, 'name' | 'color_index'>[]): ModelColorOf {
  const byName = new Map(models.map((m) => [m.name, paletteColor(m.color_index)]));
  const index = new Map(models.map((m, i) => [m.name, i]));
  return Object.assign((name: string) => byName.get(name) ?? UNKNOWN_MODEL_COLOR, { order: (name: string) => index.get(name) ?? Number.MAX_SAFE_INTEGER });
}
