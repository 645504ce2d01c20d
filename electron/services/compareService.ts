/**
 * The `compare` call of the API contract (shared/apiCompare.ts): a thin adapter to electron/compare/. In the
 * app and `serve` it runs in the analysis worker thread (a cold comparison of two 30k-episode runs takes about
 * a second, which must not hold up the Episodes list); without one (CLI, tests) on the API's connection. Either
 * way a run's episodes are read once and kept until the database changes (compare/compareSides.ts). A side that
 * names what is not there (a run, a model, a field value) is the caller's input error.
 */
import type { RouteLensApi } from '../../shared/api.ts';
import { ExportCompareFigureRequest, type CompareInput, type CompareResult } from '../../shared/apiCompare.ts';
import { modelColorFrom } from '../../shared/charts/context.ts';
import type { AnalysisThread } from '../analysis/analysisThread.ts';
import { AnalysisInputError } from '../analysis/runAnalysis.ts';
import { compare, CompareError } from '../compare/compare.ts';
import type { Db } from '../db/dbHandle.ts';
import { compareFigureFile } from '../export/compareFigureFile.ts';
import { listModels } from '../db/models.ts';
import { InputError } from './serviceErrors.ts';

export function compareServices(db: Db, thread: AnalysisThread | null = null): Pick<RouteLensApi, 'compare' | 'exportCompareFigure'> {
  const run = async (input: CompareInput): Promise<CompareResult> => {
    try {
      return thread ? await thread.compare(input) : compare(db, input);
    } catch (e) {
      if (e instanceof CompareError || e instanceof AnalysisInputError) throw new InputError(e.message);
      throw e;
    }
  };
  return {
    compare: run,
    exportCompareFigure: async (input) => {
      const req = ExportCompareFigureRequest.parse(input);
      // The same comparison the window drew (a warm one: the runs' episodes are cached), drawn here as analysis
      // figures are, so the PDF is vector and the file is captioned and named like theirs.
      const file = await compareFigureFile(await run(req.request), req.figure, { ...req, modelColor: modelColorFrom(listModels(db)) });
      return { filename: file.filename, mime: file.mime, data_base64: file.data.toString('base64') };
    },
  };
}
