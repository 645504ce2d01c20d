/**
 * The Compare view's figures by id: title, layout and CSV, for the window and for anything that exports a
 * comparison (the layouts take the whole `CompareResult`, as the API returns it).
 */
import type { CompareResult } from '../../apiCompare.ts';
import type { FigureContext } from '../context.ts';
import type { Scene } from '../scene.ts';
import { compareCostDiffCsv, compareCostDiffLayout } from './compareCostDiff.ts';
import { compareModelCostCsv, compareModelCostLayout } from './compareModelCost.ts';
import { compareScatterCsv, compareScatterLayout } from './compareScatter.ts';

export const COMPARE_FIGURE_IDS = ['paired-scatter', 'cost-diff', 'model-cost'] as const;
export type CompareFigureId = (typeof COMPARE_FIGURE_IDS)[number];

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

const safe = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 40);

/** `compare-paired-scatter-runA-vs-runB.svg`: what the file holds, safe on every file system. */
export function compareFigureFilename(result: CompareResult, id: CompareFigureId, ext: string): string {
  return `compare-${id}-${safe(result.a.label) || 'A'}-vs-${safe(result.b.label) || 'B'}.${ext}`;
}
