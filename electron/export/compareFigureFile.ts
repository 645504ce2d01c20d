/**
 * A Compare figure → the bytes of its file, drawn as analysis figures are (figureFile.ts): captioned with the
 * figure and both sides, vector PDF, PNG at 2× or a DPI, SVG, or the figure's data as CSV. Behind the API's
 * `exportCompareFigure` (the window's export menu) and `routelens compare --figure ID --out FILE`.
 */
import type { CompareResult } from '../../shared/apiCompare.ts';
import { DEFAULT_FIGURE_WIDTH, FIGURE_MIME } from '../../shared/apiAnalysis.ts';
import { captionScene, exportDate } from '../../shared/charts/figureCaption.ts';
import { COMPARE_FIGURES, compareFigureCaption, compareFigureFilename, type CompareFigureId } from '../../shared/charts/layouts/compareFigures.ts';
import { chartTheme } from '../../shared/charts/theme.ts';
import { drawnFigureBytes, type FigureFile, type FigureFileOptions } from './figureFile.ts';

export async function compareFigureFile(result: CompareResult, id: CompareFigureId, options: FigureFileOptions): Promise<FigureFile> {
  const { format } = options;
  const date = options.date ?? exportDate();
  const filename = compareFigureFilename(result, id, format, date);
  const mime = FIGURE_MIME[format];
  const spec = COMPARE_FIGURES[id];
  if (format === 'csv') return { filename, mime, data: Buffer.from(spec.csv(result), 'utf8') };
  const theme = chartTheme(options.theme ?? 'light');
  const figure = spec.layout(result, { theme, width: options.width ?? DEFAULT_FIGURE_WIDTH, height: options.height, modelColor: options.modelColor });
  return { filename, mime, data: await drawnFigureBytes(captionScene(figure, compareFigureCaption(result, id, date), theme), format, options) };
}
