/**
 * Where the data lives: a SQLite file (`--db FILE`, the default) or a ClickHouse store
 * (`--store clickhouse://[USER[:PASSWORD]@]HOST:PORT[,HOST:PORT…]/DB[?cluster=NAME]`, or the environment's
 * ROUTELENS_STORE). The ports are HTTP ports. With a cluster, the hosts are every shard's HTTP address: RouteLens
 * creates the tables on each (no ZooKeeper needed) and writes each episode straight to its shard; the first host
 * answers the queries. Credentials come from the URL or from ROUTELENS_STORE_USER / ROUTELENS_STORE_PASSWORD and
 * are never printed: `describeStore` is what messages show.
 */

export interface ClickHouseStoreUrl {
  kind: 'clickhouse';
  hosts: { host: string; port: number }[];
  database: string;
  cluster: string | null;
  username: string;
  password: string;
}

/** The URL is malformed: a user's mistake, said in one line without the credentials. */
export class StoreUrlError extends Error {}

/** The store could not be reached or refused a statement: said in one line (exit 1), without the credentials. */
export class StoreError extends Error {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function parseStoreUrl(raw: string, env: NodeJS.ProcessEnv = process.env): ClickHouseStoreUrl {
  const m = /^clickhouse:\/\/(?:([^@/]*)@)?([^/?#]+)\/([^/?#]*)(?:\?([^#]*))?$/.exec(raw.trim());
  if (!m) throw new StoreUrlError('a store URL looks like clickhouse://HOST:PORT/DB[?cluster=NAME] (the HTTP port)');
  const [, auth, hostList, database = '', query] = m;
  const hosts = (hostList ?? '').split(',').map((h) => {
    const hp = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(h);
    const port = hp ? Number(hp[2]) : Number.NaN;
    if (!hp || port < 1 || port > 65535) throw new StoreUrlError(`store URL: "${h}" is not HOST:PORT`);
    return { host: hp[1] as string, port };
  });
  if (!NAME.test(database)) throw new StoreUrlError('store URL: the database name must be letters, digits and _ (e.g. /routelens)');
  let cluster: string | null = null;
  for (const pair of (query ?? '').split('&').filter(Boolean)) {
    const [k, v = ''] = pair.split('=');
    if (k !== 'cluster') throw new StoreUrlError(`store URL: unknown parameter "${k}" (known: cluster)`);
    if (!NAME.test(v)) throw new StoreUrlError('store URL: the cluster name must be letters, digits and _');
    cluster = v;
  }
  if (hosts.length > 1 && cluster === null) throw new StoreUrlError('store URL: several hosts need ?cluster=NAME (the remote_servers entry they form)');
  let username = env.ROUTELENS_STORE_USER ?? 'default';
  let password = env.ROUTELENS_STORE_PASSWORD ?? '';
  if (auth !== undefined) {
    const colon = auth.indexOf(':');
    username = decodeURIComponent(colon < 0 ? auth : auth.slice(0, colon));
    if (colon >= 0) password = decodeURIComponent(auth.slice(colon + 1));
  }
  return { kind: 'clickhouse', hosts, database, cluster, username, password };
}

/** The URL as messages may show it: no user, no password. */
export function describeStore(url: ClickHouseStoreUrl): string {
  return `clickhouse://${url.hosts.map((h) => `${h.host}:${h.port}`).join(',')}/${url.database}${url.cluster ? `?cluster=${url.cluster}` : ''}`;
}

/** `--store URL`, else ROUTELENS_STORE when no `--db` was given; null means the SQLite file of `--db`. */
export function storeUrlOf(values: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): ClickHouseStoreUrl | null {
  const flag = values.store;
  if (typeof flag === 'string' && flag !== '') {
    if (typeof values.db === 'string') throw new StoreUrlError('give --db FILE or --store URL, not both');
    return parseStoreUrl(flag, env);
  }
  if (typeof values.db !== 'string' && env.ROUTELENS_STORE) return parseStoreUrl(env.ROUTELENS_STORE, env);
  return null;
}
