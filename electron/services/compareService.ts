/**
 * The `compare` call of the API contract (shared/apiCompare.ts): a thin adapter to electron/compare/. It runs
 * on the API's connection: a run's episodes are summed once and kept until the database changes
 * (compare/compareSides.ts), so only the first comparison of a run pays the turn scan. A side that names
 * what is not there (a run, a model, a field value) is the caller's input error.
 */
import type { RouteLensApi } from '../../shared/api.ts';
import { compare, CompareError } from '../compare/compare.ts';
import type { Db } from '../db/database.ts';
import { InputError } from './dispatch.ts';

export function compareServices(db: Db): Pick<RouteLensApi, 'compare'> {
  return {
    compare: async (input) => {
      try {
        return compare(db, input);
      } catch (e) {
        if (e instanceof CompareError) throw new InputError(e.message);
        throw e;
      }
    },
  };
}
