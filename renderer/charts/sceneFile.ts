/**
 * Files of a figure the window drew itself from data the core does not keep (the policy lab's replay): the
 * Scene with its caption as SVG, a PNG of that SVG rasterised by the browser at 2× or a print resolution, a
 * PDF holding that image, or the figure's data as CSV. Analysis figures are exported by the core instead
 * (ExportMenu → api.exportFigure), which draws vector PDFs.
 */
import { captionScene, exportDate, figureExportName, type FigureCaption } from '../../shared/charts/figureCaption.ts';
import type { Scene } from '../../shared/charts/scene.ts';
import { sceneToSvg } from '../../shared/charts/sceneToSvg.ts';
import type { ChartTheme } from '../../shared/charts/theme.ts';
import { imagePdf } from '../views/compare/imagePdf.ts';
import { downloadBlob, downloadText } from './download.ts';

export type FigureFormat = 'svg' | 'png' | 'pdf' | 'csv';

/** What ExportMenu asks for: a format, and for PNG a scale (2×) or a print resolution. */
export interface ExportChoice {
  format: FigureFormat;
  scale?: number;
  dpi?: number;
}

/** 96 CSS px per inch: a print resolution is that many pixels per CSS px. PDFs embed a 300-dpi image. */
export function rasterScale(choice: ExportChoice): number {
  if (choice.format === 'pdf') return 300 / 96;
  if (choice.dpi !== undefined) return choice.dpi / 96;
  return choice.scale ?? 2;
}

async function canvasOfSvg(svgText: string, width: number, height: number, scale: number): Promise<HTMLCanvasElement> {
  const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('the browser could not draw the figure as an image'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const g = canvas.getContext('2d');
    if (!g) throw new Error('no 2D canvas in this window');
    g.scale(scale, scale);
    g.drawImage(img, 0, 0, width, height);
    return canvas;
  } finally {
    URL.revokeObjectURL(url);
  }
}

function encode(canvas: HTMLCanvasElement, type: string, quality?: number): Promise<Blob> {
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the image could not be encoded'))), type, quality));
}

export interface SceneExport {
  /** The figure as drawn on screen (no caption: the window says that around it). */
  scene: Scene;
  /** Name part of the file: what the figure is (`policy-frontier`). */
  what: string;
  caption: Omit<FigureCaption, 'date'>;
  theme: ChartTheme;
  csv(): string;
  /** The export day (default today). */
  date?: string;
}

/** Saves one file of the figure; the name says what, over which runs, when (figureExportName). */
export async function saveSceneFile(figure: SceneExport, choice: ExportChoice): Promise<string> {
  const date = figure.date ?? exportDate();
  const name = figureExportName(figure.what, figure.caption.runs, date, choice.format);
  if (choice.format === 'csv') {
    downloadText(name, figure.csv(), 'text/csv');
    return name;
  }
  const scene = captionScene(figure.scene, { ...figure.caption, date }, figure.theme);
  const svg = sceneToSvg(scene);
  if (choice.format === 'svg') {
    downloadText(name, svg, 'image/svg+xml');
    return name;
  }
  const scale = rasterScale(choice);
  const canvas = await canvasOfSvg(svg, scene.width, scene.height, scale);
  if (choice.format === 'png') {
    downloadBlob(name, await encode(canvas, 'image/png'));
    return name;
  }
  const jpeg = new Uint8Array(await (await encode(canvas, 'image/jpeg', 0.95)).arrayBuffer());
  downloadBlob(name, new Blob([imagePdf(jpeg, canvas, { width: scene.width, height: scene.height })], { type: 'application/pdf' }));
  return name;
}
