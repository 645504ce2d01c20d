/** `routelens store init|clean|ddl --store URL`: create, migrate or clean a ClickHouse store (docs/scale-out.md). */
import { storeUrlOf } from '../store/storeUrl.ts';
import { err, out, print, UsageError, type Command } from './common.ts';
import { STORE_OPTION, withStore } from './storeAccess.ts';

export const command: Command = {
  usage: 'routelens store init|clean|ddl --store clickhouse://HOST:PORT[,HOST:PORT…]/DB[?cluster=NAME] [--older-than-minutes N] [--json]\n' +
    '  init: creates the database and tables on every host (idempotent), checks the hosts are the cluster\'s shards in order.\n' +
    '  ddl: prints the statements init runs (and on which hosts), connecting to nothing.\n' +
    '  clean: deletes the rows of imports that never completed (started over --older-than-minutes ago, default 60) and of replaced files,\n' +
    '         and the estimates of scorings cancelled or never completed.\n' +
    '  The URL may also come from ROUTELENS_STORE; a user and password from the URL or ROUTELENS_STORE_USER / ROUTELENS_STORE_PASSWORD.',
  options: { ...STORE_OPTION, 'older-than-minutes': { type: 'string' }, json: { type: 'boolean' } },
  allowPositionals: true,
  async run(values, positionals) {
    const action = positionals[0];
    if (action !== 'init' && action !== 'clean' && action !== 'ddl') throw new UsageError('say what to do: routelens store init|clean|ddl --store URL');
    const url = storeUrlOf(values) ?? (() => {
      throw new UsageError('--store URL is required (or set ROUTELENS_STORE)');
    })();
    if (action === 'ddl') {
      // For a DBA who creates the tables by hand: what `init` would run, connecting to nothing.
      const { ddlStatements, STORE_SCHEMA_VERSION } = await import('../store/clickhouse/schema/schema.ts');
      for (const { on, sql } of ddlStatements(url.database, url.cluster)) out(`-- on ${on}\n${sql};`);
      out(`-- on first host\nINSERT INTO ${url.database}.schema_version VALUES (${STORE_SCHEMA_VERSION}, now());`);
      return 0;
    }
    return withStore(url, async (store) => {
      if (action === 'init') {
        const { initStore } = await import('../store/clickhouse/schema/schema.ts');
        const result = await initStore(store);
        if (values.json) return print({ store: store.shown, ...result });
        err(`${result.created ? 'created' : 'up to date'}: ${store.shown} (schema version ${result.version}, ${store.nodes.length} shard${store.nodes.length === 1 ? '' : 's'})`);
        return 0;
      }
      const minutes = values['older-than-minutes'] === undefined ? 60 : Number(values['older-than-minutes']);
      if (!(minutes >= 0)) throw new UsageError('--older-than-minutes must be a number ≥ 0');
      const { cleanStore } = await import('../store/clickhouse/schema/cleanStore.ts');
      const report = await cleanStore(store, minutes * 60_000);
      if (values.json) return print(report);
      err(`cleaned ${report.abandoned.length} unfinished and ${report.superseded.length} replaced import(s) and ${report.scorings.length} unfinished scoring(s); ClickHouse deletes their rows in the background`);
      return 0;
    });
  },
};
