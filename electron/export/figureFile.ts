/**
 * An analysis response → the bytes of a figure file: SVG, PNG (2× or a DPI), PDF, or the data as CSV. The
 * one function behind the API's `exportFigure` and `routelens export`. A drawn figure carries its caption
 * (title, runs, export day) inside it, and every file is named after the analysis and the runs.
 */
import type { AnalysisResponse } from '../../shared/analysisResults.ts';
import { DEFAULT_FIGURE_WIDTH, FIGURE_MIME, type FigureFormat } from '../../shared/apiAnalysis.ts';
import { captionScene, exportDate, figureExportName, type FigureCaption } from '../../shared/charts/figureCaption.ts';
import { figureCsv, figureScene, FIGURES } from '../../shared/charts/figures.ts';
import type { FigureContext } from '../../shared/charts/context.ts';
import type { Scene } from '../../shared/charts/scene.ts';
import { chartTheme, type ThemeName } from '../../shared/charts/theme.ts';
import { sceneToSvg } from './svg.ts';

export interface FigureFileOptions {
  format: FigureFormat;
  theme?: ThemeName;
  width?: number;
  height?: number;
  scale?: number;
  dpi?: number;
  modelColor: (name: string) => string;
  /** The export day in the caption and the name (default: today, YYYY-MM-DD). */
  date?: string;
}

export interface FigureFile {
  filename: string;
  mime: string;
  data: Buffer;
}

/** The caption of an analysis figure: its registry title (with the episode it draws), the runs asked for. */
export function figureCaption(response: AnalysisResponse, date: string): FigureCaption {
  const { id, episode, runs = [] } = response.request;
  return { title: `${FIGURES[id].title}${episode ? ` — episode ${episode}` : ''}`, runs, date };
}

/** `switch-cost_sw-mtrouter+uno-sim_2026-11-24.png`, `targets_ep12_run-a_2026-11-24.svg`: safe on every file system. */
export function figureFilename(response: AnalysisResponse, format: FigureFormat, date: string = exportDate()): string {
  const { id, episode, runs = [] } = response.request;
  return figureExportName(id, runs, date, format, episode);
}

export async function figureFile(response: AnalysisResponse, options: FigureFileOptions): Promise<FigureFile> {
  const { format } = options;
  const date = options.date ?? exportDate();
  const filename = figureFilename(response, format, date);
  const mime = FIGURE_MIME[format];
  if (format === 'csv') return { filename, mime, data: Buffer.from(figureCsv(response), 'utf8') };
  const theme = chartTheme(options.theme ?? 'light');
  const figure = figureScene(response, { theme, width: options.width ?? DEFAULT_FIGURE_WIDTH, height: options.height, modelColor: options.modelColor });
  return { filename, mime, data: await drawnFigureBytes(captionScene(figure, figureCaption(response, date), theme), format, options) };
}

/** A figure drawn from a layout that is not an analysis (Compare, the policy lab): what it needs to become a file. */
export interface LayoutFigure {
  /** The file name, for a format. */
  filename(format: FigureFormat): string;
  caption: FigureCaption;
  draw(ctx: FigureContext): Scene;
  csv(): string;
}

/** A layout figure's file: captioned and drawn as analysis figures are, or its data as CSV. */
export async function layoutFigureFile(figure: LayoutFigure, options: FigureFileOptions): Promise<FigureFile> {
  const { format } = options;
  const filename = figure.filename(format);
  const mime = FIGURE_MIME[format];
  if (format === 'csv') return { filename, mime, data: Buffer.from(figure.csv(), 'utf8') };
  const theme = chartTheme(options.theme ?? 'light');
  const scene = figure.draw({ theme, width: options.width ?? DEFAULT_FIGURE_WIDTH, height: options.height, modelColor: options.modelColor });
  return { filename, mime, data: await drawnFigureBytes(captionScene(scene, figure.caption, theme), format, options) };
}

/**
 * A captioned figure as the bytes of an SVG, a PNG (2× or a DPI) or a vector PDF: every drawn export ends here. The
 * PDF writer (pdfkit, fontkit) and the rasteriser (resvg) are loaded when a figure asks for them: they are most of
 * a CLI start's time, and an SVG or a CSV needs neither.
 */
export async function drawnFigureBytes(scene: Scene, format: Exclude<FigureFormat, 'csv'>, png: { scale?: number; dpi?: number }): Promise<Buffer> {
  if (format === 'pdf') return (await import('./pdf.ts')).sceneToPdf(scene);
  const svg = sceneToSvg(scene);
  if (format === 'svg') return Buffer.from(svg, 'utf8');
  return (await import('./png.ts')).svgToPng(svg, { scale: png.scale, dpi: png.dpi });
}
