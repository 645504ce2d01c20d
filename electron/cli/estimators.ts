/** `routelens estimators --db FILE [--use ID]`: the estimators of a database and which one is in use. */
import { domainTaskTypesText } from '../../shared/estimatorDomain.ts';
import { visibleText as v } from '../../shared/displayText.ts';
import { describeWait, openDatabase, waitForWriteTurn } from '../db/database.ts';
import { setEstimatorInUse } from '../estimator/inUse.ts';
import { listEstimators } from '../services/estimatorService.ts';
import { err, intFlag, out, print, requireDb, UsageError, type Command } from './common.ts';

export const command: Command = {
  usage: 'routelens estimators --db FILE [--use ID] [--json]',
  options: { db: { type: 'string' }, use: { type: 'string' }, json: { type: 'boolean' } },
  async run(values) {
    const dbPath = requireDb(values);
    if (values.use !== undefined) {
      const id = intFlag(values, 'use', 0, 1);
      await waitForWriteTurn(dbPath, { what: 'estimator in use', onWait: (w) => err(describeWait(w)) });
      const writer = openDatabase(dbPath);
      try {
        if (writer.prepare('SELECT 1 FROM estimators WHERE id = ?').get(id) === undefined) {
          throw new UsageError(`no estimator ${id} in ${dbPath} (routelens estimators --db ${dbPath} lists them)`);
        }
        setEstimatorInUse(writer, id); // the window, serve and every later command read ŝ from it
      } finally {
        writer.close();
      }
    }
    const db = openDatabase(dbPath, { readonly: true });
    try {
      const list = listEstimators(db);
      if (values.json) {
        print({
          in_use: list.in_use,
          estimators: list.estimators.map((e) => ({
            id: e.id, name: e.name, created_at: e.created_at, encoder: e.encoder, scored_turns: e.scored_turns,
            provider: e.provider, is_default: e.is_default, domain: e.domain,
          })),
        });
        return 0;
      }
      if (list.estimators.length === 0) {
        out('no estimator yet: `routelens train` makes one, and the first what-if registers the shipped default');
        return 0;
      }
      for (const e of list.estimators) {
        const mark = list.in_use?.id === e.id ? (list.in_use.chosen ? '* in use' : '* in use (scored last; none picked)') : '';
        const domain = e.domain ? domainTaskTypesText(e.domain) : 'training domain unknown';
        out(`${String(e.id).padStart(4)}  ${v(e.name).padEnd(36)} ${String(e.scored_turns).padStart(8)} turns scored  ${domain}  ${mark}`.trimEnd());
      }
      return 0;
    } finally {
      db.close();
    }
  },
};
