/**
 * The Compare view's figures by id: title, layout and CSV, for the window and for anything that exports a
 * comparison (the layouts take the whole `CompareResult`, as the API returns it).
 */
import type { CompareResult } from '../../apiCompare.ts';
import type { FigureContext } from '../context.ts';
import { figureExportName, type FigureCaption } from '../figureCaption.ts';
import type { Scene } from '../scene.ts';
import { compareCostDiffCsv, compareCostDiffLayout } from './compareCostDiff.ts';
import { compareModelCostCsv, compareModelCostLayout } from './compareModelCost.ts';
import type { CompareFigureId } from './compareFigureIds.ts';
import { compareScatterCsv, compareScatterLayout } from './compareScatter.ts';

export { COMPARE_FIGURE_IDS, type CompareFigureId } from './compareFigureIds.ts';

export interface CompareFigureSpec {
  title: string;
  layout(result: CompareResult, ctx: FigureContext): Scene;
  csv(result: CompareResult): string;
}

export const COMPARE_FIGURES: Record<CompareFigureId, CompareFigureSpec> = {
  'paired-scatter': { title: 'Per-task score, B against A', layout: compareScatterLayout, csv: compareScatterCsv },
  'cost-diff': { title: 'Cost difference per task (B − A)', layout: compareCostDiffLayout, csv: compareCostDiffCsv },
  'model-cost': { title: 'Cost per model', layout: compareModelCostLayout, csv: compareModelCostCsv },
};

/** The caption a drawn comparison carries: which figure, and the two sides by their labels. */
export function compareFigureCaption(result: CompareResult, id: CompareFigureId, date: string): FigureCaption {
  return { title: `${COMPARE_FIGURES[id].title}: A = ${result.a.label}, B = ${result.b.label}`, runs: [result.a.label, result.b.label], date };
}

/** `compare-paired-scatter_run-a-vs-run-b_2026-11-24.svg`: which figure of which comparison, and when. */
export function compareFigureFilename(result: CompareResult, id: CompareFigureId, ext: string, date: string): string {
  return figureExportName(`compare-${id}`, [`${result.a.label}-vs-${result.b.label}`], date, ext);
}
