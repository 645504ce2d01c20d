/**
 * The policy lab's score/cost figure → the bytes of its file, drawn as analysis figures are (figureFile.ts). The
 * window sends the figure's points as it drew them (a replay is not kept by the core, and running it again for
 * a file could take half a minute); they are checked by the contract (ExportFrontierFigureRequest) first.
 */
import { exportDate, figureExportName } from '../../shared/charts/figureCaption.ts';
import { policyFrontierCsv, policyFrontierLayout, policyFrontierTitle, type FrontierInput } from '../../shared/charts/layouts/policyFrontier.ts';
import { layoutFigureFile, type FigureFile, type FigureFileOptions } from './figureFile.ts';

export function frontierFigureFile(figure: FrontierInput, runs: readonly string[], options: FigureFileOptions): Promise<FigureFile> {
  const date = options.date ?? exportDate();
  return layoutFigureFile(
    {
      filename: (format) => figureExportName('policy-frontier', runs, date, format),
      caption: { title: policyFrontierTitle(figure.estimator), runs, date },
      draw: (ctx) => policyFrontierLayout(figure, ctx),
      csv: () => policyFrontierCsv(figure, runs),
    },
    options,
  );
}
