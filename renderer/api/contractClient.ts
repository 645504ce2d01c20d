/**
 * Builds a `RouteLensApi` over any transport that moves a call's input out and its raw answer back. Every
 * answer is checked against the contract's output schema before the UI sees it, so a core and a renderer
 * that disagree fail loudly at the boundary rather than as `undefined` somewhere in a view.
 */
import type { z } from 'zod';
import { apiContract, type ApiError, type ApiInput, type ApiName, type RouteLensApi } from '../../shared/api.ts';
import { describeIssue } from '../../shared/canonical.ts';

/** Moves one call; resolves with the unvalidated answer or rejects with an `ApiCallError`. */
export type Transport = <N extends ApiName>(name: N, input: ApiInput<N>) => Promise<unknown>;

/** A failed call: `kind` is the core's ApiError kind, or 'transport' when the call never got an answer. */
export class ApiCallError extends Error {
  constructor(
    readonly call: ApiName,
    readonly kind: ApiError['kind'] | 'transport',
    message: string,
  ) {
    super(message);
    this.name = 'ApiCallError';
  }
}

export function contractClient(transport: Transport): RouteLensApi {
  const checked =
    <N extends ApiName, T>(name: N, schema: z.ZodType<T>) =>
    async (input: ApiInput<N>): Promise<T> => {
      const raw = await transport(name, input);
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        throw new ApiCallError(name, 'internal', `${name}: the answer does not match the API contract (${describeIssue(parsed.error)})`);
      }
      return parsed.data;
    };
  // One line per call: adding a call to the contract without adding it here is a type error.
  return {
    dbInfo: checked('dbInfo', apiContract.dbInfo.output),
    listRuns: checked('listRuns', apiContract.listRuns.output),
    listModels: checked('listModels', apiContract.listModels.output),
    queryEpisodes: checked('queryEpisodes', apiContract.queryEpisodes.output),
    getEpisode: checked('getEpisode', apiContract.getEpisode.output),
    getTurns: checked('getTurns', apiContract.getTurns.output),
    startImport: checked('startImport', apiContract.startImport.output),
    importStatus: checked('importStatus', apiContract.importStatus.output),
    replay: checked('replay', apiContract.replay.output),
    policyDiff: checked('policyDiff', apiContract.policyDiff.output),
    episodePolicyChoices: checked('episodePolicyChoices', apiContract.episodePolicyChoices.output),
    runAnalysis: checked('runAnalysis', apiContract.runAnalysis.output),
    exportFigure: checked('exportFigure', apiContract.exportFigure.output),
    listEstimators: checked('listEstimators', apiContract.listEstimators.output),
    startEstimatorJob: checked('startEstimatorJob', apiContract.startEstimatorJob.output),
    estimatorJobStatus: checked('estimatorJobStatus', apiContract.estimatorJobStatus.output),
    cancelEstimatorJob: checked('cancelEstimatorJob', apiContract.cancelEstimatorJob.output),
    whatIf: checked('whatIf', apiContract.whatIf.output),
    setEstimatorInUse: checked('setEstimatorInUse', apiContract.setEstimatorInUse.output),
    renameEstimator: checked('renameEstimator', apiContract.renameEstimator.output),
    compare: checked('compare', apiContract.compare.output),
    exportCompareFigure: checked('exportCompareFigure', apiContract.exportCompareFigure.output),
    exportFrontierFigure: checked('exportFrontierFigure', apiContract.exportFrontierFigure.output),
    shareCase: checked('shareCase', apiContract.shareCase.output),
    liveSessions: checked('liveSessions', apiContract.liveSessions.output),
    followedFolders: checked('followedFolders', apiContract.followedFolders.output),
    followFolders: checked('followFolders', apiContract.followFolders.output),
    unfollowFolder: checked('unfollowFolder', apiContract.unfollowFolder.output),
    alertRules: checked('alertRules', apiContract.alertRules.output),
    setAlertRule: checked('setAlertRule', apiContract.setAlertRule.output),
    removeAlertRule: checked('removeAlertRule', apiContract.removeAlertRule.output),
    alerts: checked('alerts', apiContract.alerts.output),
  };
}
