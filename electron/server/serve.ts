/**
 * `serve` mode: the same API and UI as the desktop window, over HTTP for a browser (DESIGN §12).
 * Bound to 127.0.0.1 only. Every request needs the per-launch token: the printed URL carries it once,
 * the server trades it for an HttpOnly SameSite=Strict cookie and redirects to a clean URL; scripts may
 * send it as `X-RouteLens-Token`. Host and Origin are checked against our own address, so a page on another
 * site cannot reach the API even by DNS rebinding.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { createApi, openApiDatabase } from '../services/api.ts';
import { dispatch } from '../services/dispatch.ts';
import { createDataEvents, type DataEvents } from '../live/dataEvents.ts';
import { createFolderFollower, refollowingApi, type FolderFollower } from '../live/folderFollower.ts';
import { listFollowedRoots } from '../live/followedRoots.ts';
import { WriteQueue } from '../services/writeQueue.ts';
import { startWatching, type WatchEvent } from '../watch/startWatching.ts';
import { rendererDir } from './rendererDir.ts';
import type { RouteLensApi } from '../../shared/api.ts';
import type { ClickHouseStoreUrl } from '../store/storeUrl.ts';

export interface ServeOptions {
  /** The SQLite database served; or, instead, */
  dbPath?: string;
  /** a ClickHouse store (docs/scale-out.md): the window's reads run as SQL on the cluster. */
  store?: ClickHouseStoreUrl;
  port?: number;
  host?: '127.0.0.1';
  staticDir?: string;
  /** Fixed token (tests); a random one per launch otherwise. */
  token?: string;
  /** Hears the folder follower's lines (what changed, what it could not read). */
  onWatchEvent?: (e: WatchEvent) => void;
}

export interface RunningServer {
  url: string;
  token: string;
  /** Whether the change timer runs (only while a window listens on /events); null on a store. */
  readonly live?: { readonly polling: boolean } | null;
  /** The folders followed now ("Follow folders…"); null on a store. */
  readonly following?: Pick<FolderFollower, 'paths'> | null;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;
/** Uploads from the import dialog carry whole log files (base64): allow those, and only those, to be large. */
const MAX_UPLOAD_BODY = 512 * 1024 * 1024;
const COOKIE = 'routelens_token';
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "worker-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
};

const ERROR_STATUS = { input: 400, not_found: 404, busy: 503, damaged: 503, internal: 500 } as const;

export const defaultStaticDir = rendererDir;

function sameToken(a: string | undefined, b: string): boolean {
  if (!a) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieToken(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, v] = part.trim().split('=');
    if (k === COOKIE) return v;
  }
  return undefined;
}

function send(res: ServerResponse, status: number, body: string | Buffer, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  });
  res.end(body);
}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new RangeError('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Where a window listens for changes (Server-Sent Events). */
export const EVENTS_PATH = '/events';

/**
 * One window's event stream: each LiveEvent as one `data:` line of JSON (an alert's carries its id), until the
 * window goes away; its listener goes with it, and with the last one the timer stops. A store has no events: 204
 * tells the browser's EventSource not to come back.
 */
function streamEvents(req: IncomingMessage, res: ServerResponse, events: DataEvents | null): void {
  if (!events) {
    res.writeHead(204, { 'Cache-Control': 'no-store' });
    return void res.end();
  }
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': CSP,
  });
  // After a broken connection the browser asks again in 2 s; the window then checks what it missed (sessionSlice).
  res.write('retry: 2000\n\n');
  const unsubscribe = events.subscribe((event) => {
    res.write(`${event.type === 'alert' ? `id: ${event.alert.id}\n` : ''}data: ${JSON.stringify(event)}\n\n`);
  });
  req.once('close', unsubscribe);
  res.once('close', unsubscribe);
}

/**
 * What the server answers from: a SQLite database or a ClickHouse store, how to let go of it, and what its windows
 * hear when it changes (`events`: a SQLite database only; nothing follows files into a store).
 */
async function backendOf(
  options: ServeOptions,
): Promise<{ api: RouteLensApi; events: DataEvents | null; follower: FolderFollower | null; close(): Promise<void> }> {
  if (options.store) {
    // Loaded only for a store: serving a SQLite file starts as fast as before.
    const { ClickHouseStore } = await import('../store/clickhouse/schema/connection.ts');
    const { createStoreApi } = await import('../services/storeApi.ts');
    const store = new ClickHouseStore(options.store);
    try {
      return { api: await createStoreApi(store), events: null, follower: null, close: () => store.close() };
    } catch (e) {
      await store.close();
      throw e;
    }
  }
  if (!options.dbPath) throw new TypeError('serve needs a database or a store');
  // Read-only: serve starts and answers while another process imports; its own writes open their own connection.
  const dbPath = options.dbPath;
  const db = openApiDatabase(dbPath);
  const events = createDataEvents(db);
  // The follower writes in the same turns as the window's imports and jobs.
  const writes = new WriteQueue(dbPath);
  const api = createApi(db, dbPath, { writes });
  const follower = createFolderFollower({
    dbPath,
    queue: writes,
    listRoots: () => listFollowedRoots(db).map((r) => r.path),
    start: startWatching,
    onEvent: options.onWatchEvent,
  });
  return {
    // Following starts after the server answers (startServer), and again whenever the window changes the folders.
    api: refollowingApi(api, follower),
    events,
    follower,
    close: async () => {
      await follower.stop();
      events.close();
      db.close();
    },
  };
}

/** How long serve waits for its close before a stop signal takes its default course (ms). */
export const STOP_GRACE_MS = 2000;

/**
 * Resolves when SIGINT or SIGTERM asks serve to stop, once `server` has closed. The analysis worker may be inside a
 * long native call (a SQLite query: better-sqlite3 cannot interrupt one; a large PNG being drawn): Node keeps the
 * process alive until it returns, and even process.exit waits for it. So a stop that has not ended the process
 * within `graceMs` raises the signal again with its default action, which ends the process at once; so does a
 * second Ctrl-C. (A query on the main thread blocks the handler itself: those are bounded listings, and a
 * received database's own views never run, see schemaIdentity.ts.)
 */
export function untilSignalled(server: RunningServer, graceMs = STOP_GRACE_MS): Promise<void> {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  return new Promise((resolveStop) => {
    const stop = (signal: NodeJS.Signals): void => {
      for (const s of signals) process.removeListener(s, stop);
      // Unref'd: a process with nothing left to do exits without waiting for it.
      setTimeout(() => process.kill(process.pid, signal), graceMs).unref();
      void server.close().then(resolveStop);
    };
    for (const s of signals) process.once(s, stop);
  });
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('hex');
  const staticDir = resolve(options.staticDir ?? defaultStaticDir);
  const { api, events, follower, close: closeBackend } = await backendOf(options);
  let allowedHosts: Set<string> = new Set();
  let allowedOrigins: Set<string> = new Set();

  const serveStatic = (res: ServerResponse, pathname: string): void => {
    let rel: string;
    try {
      rel = pathname === '/' ? 'index.html' : decodeURIComponent(pathname).replace(/^\/+/, '');
    } catch {
      return send(res, 400, 'bad request'); // a malformed %-escape is the client's fault, not an internal error
    }
    if (rel.includes('\0')) return send(res, 400, 'bad request');
    const file = normalize(join(staticDir, rel));
    if (!file.startsWith(staticDir + sep) && file !== staticDir) return send(res, 404, 'not found');
    if (!existsSync(file) || !statSync(file).isFile()) {
      if (pathname === '/' || pathname === '/index.html') {
        return send(res, 503, 'The RouteLens UI is not built yet: run `npm run build:renderer`, then reload.');
      }
      return send(res, 404, 'not found');
    }
    send(res, 200, readFileSync(file), MIME[extname(file)] ?? 'application/octet-stream');
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!allowedHosts.has(req.headers.host ?? '')) return send(res, 421, 'unexpected Host header');
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin)) return send(res, 403, 'cross-origin request refused');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');

    if (req.method === 'GET' && url.searchParams.has('token')) {
      if (!sameToken(url.searchParams.get('token') ?? undefined, token)) return send(res, 401, 'wrong access token');
      res.writeHead(303, {
        Location: "/", // the browser keeps the #/deep/link fragment across the redirect
        'Set-Cookie': `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`,
        'Cache-Control': 'no-store',
      });
      return void res.end();
    }
    const presented = (req.headers['x-routelens-token'] as string | undefined) ?? cookieToken(req);
    if (!sameToken(presented, token)) {
      return send(res, 401, 'RouteLens: open the URL that `routelens serve` printed (it carries the access token).');
    }
    if (url.pathname === EVENTS_PATH && req.method === 'GET') return streamEvents(req, res, events);
    if (url.pathname.startsWith('/api/')) {
      if (req.method !== 'POST') return send(res, 405, 'use POST');
      let payload: unknown;
      try {
        const body = await readBody(req, url.pathname === '/api/startImport' ? MAX_UPLOAD_BODY : MAX_BODY);
        payload = body === '' ? {} : JSON.parse(body);
      } catch (err) {
        const message = err instanceof RangeError ? err.message : 'request body is not JSON';
        return send(res, 400, JSON.stringify({ ok: false, error: { kind: 'input', message } }), 'application/json');
      }
      const result = await dispatch(api, url.pathname.slice(5), payload);
      const status = result.ok ? 200 : ERROR_STATUS[result.error.kind];
      return send(res, status, JSON.stringify(result), 'application/json');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed');
    serveStatic(res, url.pathname);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, `internal error: ${err instanceof Error ? err.message : String(err)}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolveListen());
  });
  const port = (server.address() as AddressInfo).port;
  // The remembered folders are followed once the server answers: their first read may take a while.
  void follower?.restart().catch(() => undefined);
  allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  allowedOrigins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    token,
    live: events,
    following: follower,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => {
          void closeBackend().then(done);
        });
      }),
  };
}
