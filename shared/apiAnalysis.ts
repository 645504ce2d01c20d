/**
 * API calls of the Analyses pages: run an analysis, and export its figure. Spread into `apiContract`
 * (shared/api.ts). The window's export menu and `routelens export` both go through `exportFigure`, so a file
 * saved from the window and one made by a script are the same bytes for the same request.
 */
import { z } from 'zod';
import { AnalysisRequest, AnalysisResponse } from './analysisResults.ts';

export const FIGURE_FORMATS = ['svg', 'png', 'pdf', 'csv'] as const;
export const FigureFormat = z.enum(FIGURE_FORMATS);
export type FigureFormat = z.infer<typeof FigureFormat>;

export const FIGURE_MIME: Record<FigureFormat, string> = {
  svg: 'image/svg+xml',
  png: 'image/png',
  pdf: 'application/pdf',
  csv: 'text/csv',
};

/** Default figure width in CSS px when neither the window nor the script gives one (fits a two-column paper page at 2×). */
export const DEFAULT_FIGURE_WIDTH = 720;

export const ExportFigureRequest = z.object({
  request: AnalysisRequest,
  format: FigureFormat,
  theme: z.enum(['light', 'dark']).default('light'),
  /** Figure width in CSS px (the window passes its chart's width so the file matches what is on screen). */
  width: z.number().int().min(200).max(4000).optional(),
  /** Figure height in CSS px; absent, the figure's own. */
  height: z.number().int().min(150).max(4000).optional(),
  /** PNG: pixels per CSS px (default 2). */
  scale: z.number().min(0.25).max(8).optional(),
  /** PNG: print resolution; wins over scale (pixels = inches × dpi at 96 CSS px per inch). */
  dpi: z.number().int().min(36).max(1200).optional(),
});
export type ExportFigureRequest = z.input<typeof ExportFigureRequest>;

export const ExportFigureResult = z.object({
  /** A safe file name (letters, digits, . _ -) with the format's extension. */
  filename: z.string(),
  mime: z.string(),
  data_base64: z.string(),
});
export type ExportFigureResult = z.infer<typeof ExportFigureResult>;

export const analysisContract = {
  /** Runs one analysis of DESIGN §8 over the selected runs. */
  runAnalysis: { input: AnalysisRequest, output: AnalysisResponse },
  /** An analysis's figure as SVG, PNG or PDF, or its data as CSV. */
  exportFigure: { input: ExportFigureRequest, output: ExportFigureResult },
} as const;
