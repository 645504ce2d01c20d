/**
 * An analysis response → the bytes of a figure file: SVG, PNG (2× or a DPI), PDF, or the data as CSV. The
 * one function behind the API's `exportFigure` and `routelens export`.
 */
import type { AnalysisResponse } from '../../shared/analysisResults.ts';
import { DEFAULT_FIGURE_WIDTH, FIGURE_MIME, type FigureFormat } from '../../shared/apiAnalysis.ts';
import { figureCsv, figureScene } from '../../shared/charts/figures.ts';
import { chartTheme, type ThemeName } from '../../shared/charts/theme.ts';
import { sceneToPdf } from './pdf.ts';
import { svgToPng } from './png.ts';
import { sceneToSvg } from './svg.ts';

export interface FigureFileOptions {
  format: FigureFormat;
  theme?: ThemeName;
  width?: number;
  height?: number;
  scale?: number;
  dpi?: number;
  modelColor: (name: string) => string;
}

export interface FigureFile {
  filename: string;
  mime: string;
  data: Buffer;
}

const safe = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 60);

/** `lift-runA-runB.png`, `targets-ep12.svg`: says what the file holds, safe on every file system. */
export function figureFilename(response: AnalysisResponse, format: FigureFormat): string {
  const parts = [response.request.id, ...(response.request.episode ? [response.request.episode] : []), ...(response.request.runs ?? []).slice(0, 3)];
  const stem = parts.map(safe).filter(Boolean).join('-') || 'figure';
  return `${stem}.${format}`;
}

export async function figureFile(response: AnalysisResponse, options: FigureFileOptions): Promise<FigureFile> {
  const { format } = options;
  const filename = figureFilename(response, format);
  const mime = FIGURE_MIME[format];
  if (format === 'csv') return { filename, mime, data: Buffer.from(figureCsv(response), 'utf8') };
  const scene = figureScene(response, {
    theme: chartTheme(options.theme ?? 'light'),
    width: options.width ?? DEFAULT_FIGURE_WIDTH,
    height: options.height,
    modelColor: options.modelColor,
  });
  if (format === 'pdf') return { filename, mime, data: await sceneToPdf(scene) };
  const svg = sceneToSvg(scene);
  if (format === 'svg') return { filename, mime, data: Buffer.from(svg, 'utf8') };
  return { filename, mime, data: svgToPng(svg, { scale: options.scale, dpi: options.dpi }) };
}
