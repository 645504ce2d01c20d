/**
 * A Compare figure → the bytes of its file, drawn as analysis figures are (figureFile.ts): captioned with the
 * figure and both sides, vector PDF, PNG at 2× or a DPI, SVG, or the figure's data as CSV. Behind the API's
 * `exportCompareFigure` (the window's export menu) and `routelens compare --figure ID --out FILE`.
 */
import type { CompareResult } from '../../shared/apiCompare.ts';
import { exportDate } from '../../shared/charts/figureCaption.ts';
import { COMPARE_FIGURES, compareFigureCaption, compareFigureFilename, type CompareFigureId } from '../../shared/charts/layouts/compareFigures.ts';
import { layoutFigureFile, type FigureFile, type FigureFileOptions } from './figureFile.ts';

export function compareFigureFile(result: CompareResult, id: CompareFigureId, options: FigureFileOptions): Promise<FigureFile> {
  const date = options.date ?? exportDate();
  const spec = COMPARE_FIGURES[id];
  return layoutFigureFile(
    {
      filename: (format) => compareFigureFilename(result, id, format, date),
      caption: compareFigureCaption(result, id, date),
      draw: (ctx) => spec.layout(result, ctx),
      csv: () => spec.csv(result),
    },
    options,
  );
}
