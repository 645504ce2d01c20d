/**
 * The replay calls of the API contract (shared/apiReplay.ts) over one open database: thin adapters from the
 * validated input to the engine in electron/replay/.
 */
import type { RouteLensApi } from '../../shared/api.ts';
import type { Db } from '../db/database.ts';

type ReplayServices = Pick<RouteLensApi, 'replay' | 'policyDiff' | 'episodePolicyChoices'>;

export function replayServices(_db: Db): ReplayServices {
  const pending = (name: string) => async (): Promise<never> => {
    throw new Error(`${name} is not implemented yet (issue 7, in progress)`);
  };
  return {
    replay: pending('replay'),
    policyDiff: pending('policyDiff'),
    episodePolicyChoices: pending('episodePolicyChoices'),
  };
}
