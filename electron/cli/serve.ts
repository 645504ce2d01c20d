/** `routelens serve`: the app for a browser on 127.0.0.1, reading a database or a ClickHouse store. */
import { startServer, untilSignalled } from '../server/serve.ts';
import { describeStore, storeUrlOf } from '../store/storeUrl.ts';
import { out, requireDb, UsageError, type Command } from './common.ts';
import { STORE_OPTION } from './storeAccess.ts';

export const command: Command = {
  usage: 'routelens serve --db FILE|--store URL [--port P]\n' +
    '  --store: Runs, Episodes, the inspector, the analyses and figure export read a ClickHouse store (docs/scale-out.md)',
  options: { db: { type: 'string' }, ...STORE_OPTION, port: { type: 'string' } },
  async run(values) {
    const port = values.port === undefined ? 0 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a number from 0 to 65535');
    const store = storeUrlOf(values);
    // The folders the window follows ("Follow folders…") print what they import, as `routelens watch` does.
    const server = await startServer(store ? { store, port } : { dbPath: requireDb(values), port, onWatchEvent: (e) => out(e.line) });
    out(`RouteLens is serving ${store ? describeStore(store) : String(values.db)} at ${server.url}`);
    out('Open that URL in a browser (it carries this launch\'s access token). Ctrl+C stops.');
    await untilSignalled(server);
    return 0;
  },
};
