/**
 * The Analyses calls of the API contract (shared/apiAnalysis.ts): `runAnalysis` and `exportFigure`, spread
 * into createApi. Analyses are single passes over the columnar cache (tens of ms on 500k turns, see
 * bench/); rendering a PNG or PDF takes longer and happens here, in the main process, never in the window.
 */
import type { RouteLensApi } from '../../shared/api.ts';
import { ExportFigureRequest } from '../../shared/apiAnalysis.ts';
import { modelColorFrom } from '../../shared/charts/context.ts';
import { AnalysisInputError, AnalysisNotFoundError, runAnalysis } from '../analysis/runAnalysis.ts';
import type { Db } from '../db/database.ts';
import { figureFile } from '../export/figureFile.ts';
import { InputError, NotFoundError } from './dispatch.ts';
import { listModels } from './api.ts';

async function answer<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof AnalysisInputError) throw new InputError(e.message);
    if (e instanceof AnalysisNotFoundError) throw new NotFoundError(e.message);
    throw e;
  }
}

export function analysisServices(db: Db): Pick<RouteLensApi, 'runAnalysis' | 'exportFigure'> {
  return {
    runAnalysis: async (request) => answer(() => runAnalysis(db, request)),
    exportFigure: async (input) => {
      const req = ExportFigureRequest.parse(input);
      const response = await answer(() => runAnalysis(db, req.request));
      // A missing font is an internal error here (the app's machine lacks it); its message says what to install.
      const file = await figureFile(response, { ...req, modelColor: modelColorFrom(listModels(db)) });
      return { filename: file.filename, mime: file.mime, data_base64: file.data.toString('base64') };
    },
  };
}
