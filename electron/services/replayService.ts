/**
 * The replay calls of the API contract (shared/apiReplay.ts) over one open database: thin adapters from the
 * validated input to the engine in electron/replay/. Replays and diffs run in the analysis worker thread when
 * there is one (a replay of 30k episodes takes ~35 s); the debugger's one-episode choices run here. A request
 * the data cannot answer (unknown run, model or estimator; a score-driven policy without ŝ) is the caller's
 * input error, not an internal one.
 */
import type { RouteLensApi } from '../../shared/api.ts';
import { ExportFrontierFigureRequest } from '../../shared/apiReplay.ts';
import type { Db } from '../db/dbHandle.ts';
import { frontierFigureFile } from '../export/frontierFigureFile.ts';
import { episodePolicyChoices } from '../replay/episodeChoices.ts';
import { policyDiff } from '../replay/policyDiff.ts';
import { ReplayError } from '../replay/replayData.ts';
import { AnalysisInputError } from '../analysis/runAnalysis.ts';
import type { AnalysisThread } from '../analysis/analysisThread.ts';
import { replayPolicies } from '../replay/replayRun.ts';
import { InputError, NotFoundError } from './serviceErrors.ts';

type ReplayServices = Pick<RouteLensApi, 'replay' | 'policyDiff' | 'episodePolicyChoices' | 'exportFrontierFigure'>;

async function asInputError<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof ReplayError || e instanceof AnalysisInputError) throw new InputError(e.message);
    throw e;
  }
}

export function replayServices(db: Db, thread: AnalysisThread | null = null): ReplayServices {
  return {
    replay: async (input) => {
      const request = { ...input, runIds: input.runIds ?? [] };
      return asInputError(() => (thread ? thread.replay(request) : replayPolicies(db, request)));
    },
    policyDiff: async (input) => asInputError(() => (thread ? thread.policyDiff(input) : policyDiff(db, input))),
    exportFrontierFigure: async (input) => {
      const req = ExportFrontierFigureRequest.parse(input);
      const file = await frontierFigureFile(req.figure, req.runs, { ...req, modelColor: () => '' }); // points carry their colours
      return { filename: file.filename, mime: file.mime, data_base64: file.data.toString('base64') };
    },
    episodePolicyChoices: async (input) => {
      const exists = db.prepare('SELECT 1 FROM episodes WHERE id = ?').get(input.episode);
      if (!exists) throw new NotFoundError(`no episode with id ${input.episode}`);
      return asInputError(() => episodePolicyChoices(db, input));
    },
  };
}
