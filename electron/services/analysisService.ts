/**
 * The Analyses calls of the API contract (shared/apiAnalysis.ts): `runAnalysis` and `exportFigure`, spread
 * into createApi. Both run in a worker thread (electron/analysis/analysisThread.ts) with its own read-only
 * connection and columnar cache, so a slow analysis or a 300-dpi PNG never holds up the other calls (the
 * Episodes list in serve mode waited for lift's bootstrap). A database in memory (tests) cannot be opened
 * twice and is answered here.
 */
import type { RouteLensApi } from '../../shared/api.ts';
import { ExportFigureRequest } from '../../shared/apiAnalysis.ts';
import { modelColorFrom } from '../../shared/charts/context.ts';
import { AnalysisThread } from '../analysis/analysisThread.ts';
import { AnalysisInputError, AnalysisNotFoundError, runAnalysis } from '../analysis/runAnalysis.ts';
import type { Db } from '../db/dbHandle.ts';
import { figureFile } from '../export/figureFile.ts';
import { InputError, NotFoundError } from './serviceErrors.ts';
import { listModels } from '../db/models.ts';

/** Runs an analysis call, its request's mistakes becoming the API's input and not-found errors. */
export async function answer<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof AnalysisInputError) throw new InputError(e.message);
    if (e instanceof AnalysisNotFoundError) throw new NotFoundError(e.message);
    throw e;
  }
}

/** The worker thread for a database's heavy read-only calls (analyses, figure files, replays); none in memory. */
export function analysisThreadFor(db: Db, path: string = db.name): AnalysisThread | null {
  return db.memory || path === '' || path === ':memory:' ? null : new AnalysisThread(path);
}

export function analysisServices(db: Db, thread: AnalysisThread | null): Pick<RouteLensApi, 'runAnalysis' | 'exportFigure'> {
  return {
    runAnalysis: async (request) => answer(() => (thread ? thread.run(request) : runAnalysis(db, request))),
    exportFigure: async (input) => {
      const req = ExportFigureRequest.parse(input);
      if (thread) {
        const models = listModels(db).map((m) => ({ name: m.name, color_index: m.color_index }));
        const file = await answer(() => thread.exportFigure(req, models));
        return { filename: file.filename, mime: file.mime, data_base64: file.data.toString('base64') };
      }
      const response = await answer(() => runAnalysis(db, req.request));
      // A missing font is an internal error here (the app's machine lacks it); its message says what to install.
      const file = await figureFile(response, { ...req, modelColor: modelColorFrom(listModels(db)) });
      return { filename: file.filename, mime: file.mime, data_base64: file.data.toString('base64') };
    },
  };
}
