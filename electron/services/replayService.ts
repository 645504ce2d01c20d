/**
 * The replay calls of the API contract (shared/apiReplay.ts) over one open database: thin adapters from the
 * validated input to the engine in electron/replay/. A request the data cannot answer (unknown run, model
 * or estimator; a score-driven policy without ŝ) is the caller's input error, not an internal one.
 */
import type { RouteLensApi } from '../../shared/api.ts';
import type { Db } from '../db/database.ts';
import { episodePolicyChoices } from '../replay/episodeChoices.ts';
import { policyDiff } from '../replay/policyDiff.ts';
import { ReplayError } from '../replay/replayData.ts';
import { replayPolicies } from '../replay/replayRun.ts';
import { InputError, NotFoundError } from './dispatch.ts';

type ReplayServices = Pick<RouteLensApi, 'replay' | 'policyDiff' | 'episodePolicyChoices'>;

function asInputError<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ReplayError) throw new InputError(e.message);
    throw e;
  }
}

export function replayServices(db: Db): ReplayServices {
  return {
    replay: async (input) => asInputError(() => replayPolicies(db, { ...input, runIds: input.runIds ?? [] })),
    policyDiff: async (input) => asInputError(() => policyDiff(db, input)),
    episodePolicyChoices: async (input) => {
      const exists = db.prepare('SELECT 1 FROM episodes WHERE id = ?').get(input.episode);
      if (!exists) throw new NotFoundError(`no episode with id ${input.episode}`);
      return asInputError(() => episodePolicyChoices(db, input));
    },
  };
}
