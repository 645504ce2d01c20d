/**
 * Export of a Compare figure from the window: the SVG drawn on screen, a PNG of it at 2× or at a print
 * resolution, a PDF holding that image, or the figure's data as CSV (the layouts' own CSV). Rasterising goes
 * through the browser (an <img> of the SVG on a canvas), so the PNG is the figure on screen, pixel for pixel.
 */
import type { CompareResult } from '../../../shared/apiCompare.ts';
import { COMPARE_FIGURES, compareFigureFilename, type CompareFigureId } from '../../../shared/charts/layouts/compareFigures.ts';
import { downloadBlob, downloadText, svgDocument } from '../../charts/download.ts';
import { imagePdf } from './imagePdf.ts';

export type ExportKind = 'svg' | 'png2x' | 'pngdpi' | 'pdf' | 'csv';

async function canvasOf(svg: SVGSVGElement, scale: number): Promise<HTMLCanvasElement> {
  const width = Number(svg.getAttribute('width')) || svg.clientWidth;
  const height = Number(svg.getAttribute('height')) || svg.clientHeight;
  const url = URL.createObjectURL(new Blob([svgDocument(svg)], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.decoding = 'sync';
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

function blobOf(canvas: HTMLCanvasElement, type: string, quality?: number): Promise<Blob> {
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the image could not be encoded'))), type, quality));
}

export async function exportFigure(kind: ExportKind, id: CompareFigureId, result: CompareResult, svg: SVGSVGElement | null, dpi: number): Promise<void> {
  const name = (ext: string) => compareFigureFilename(result, id, ext);
  if (kind === 'csv') return downloadText(name('csv'), COMPARE_FIGURES[id].csv(result), 'text/csv');
  if (!svg) throw new Error('the figure is not drawn yet');
  if (kind === 'svg') return downloadText(name('svg'), svgDocument(svg), 'image/svg+xml');
  // 96 CSS px per inch: a print resolution is that many pixels per CSS px.
  const scale = kind === 'pngdpi' ? dpi / 96 : kind === 'pdf' ? 300 / 96 : 2;
  const canvas = await canvasOf(svg, scale);
  if (kind !== 'pdf') return downloadBlob(name('png'), await blobOf(canvas, 'image/png'));
  const jpeg = new Uint8Array(await (await blobOf(canvas, 'image/jpeg', 0.95)).arrayBuffer());
  const page = { width: canvas.width / scale, height: canvas.height / scale };
  downloadBlob(name('pdf'), new Blob([imagePdf(jpeg, canvas, page)], { type: 'application/pdf' }));
}
