/**
 * The `app://routelens/` scheme the window loads the UI from. Chosen over file:// because on file:// the
 * origin is every file on disk (`'self'` in a CSP would cover them all, and one page could read another's
 * files); here the origin is ours alone, the handler only serves files under dist/renderer, every response
 * carries the CSP, and the IPC sender check has a real origin to compare against.
 *
 * `/__status` is a page generated in the main process (plain text, no script) shown while the demo database
 * is built or when the database cannot be opened.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { CSP } from './csp.ts';

export const APP_SCHEME = 'app';
export const APP_HOST = 'routelens';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`;
export const APP_STATUS_URL = `${APP_ORIGIN}/__status`;

/** Privileges for `protocol.registerSchemesAsPrivileged`: a standard, secure origin that can fetch its own files. */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true, codeCache: true } as const;

/** True for URLs of our own origin (`new URL(…).origin` is "null" for non-special schemes, so compare parts). */
export function isAppUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST;
  } catch {
    return false;
  }
}

export interface StatusPage {
  title: string;
  lines: string[];
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

const STATUS_CSS = `body{font:15px/1.5 system-ui,sans-serif;margin:15vh auto;max-width:40em;padding:0 2em;color:#222}
@media (prefers-color-scheme: dark){body{background:#1e1e1e;color:#ddd}}
h1{font-size:1.3em;font-weight:600}p{white-space:pre-wrap;word-break:break-word}`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function renderStatusPage(page: StatusPage): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(page.title)}</title>
<link rel="stylesheet" href="/__status.css"></head><body><h1>${escapeHtml(page.title)}</h1>
${page.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}</body></html>`;
}

function respond(status: number, body: string | Uint8Array<ArrayBuffer>, type: string): Response {
  return new Response(body, {
    status,
    headers: {
      'Content-Type': type,
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    },
  });
}

/**
 * Handler for `protocol.handle('app', …)`: serves files under `rootDir` (the built renderer), the status page,
 * and 404 for anything else (other hosts, paths escaping the root, folders, missing files).
 */
export function createAppProtocolHandler(
  rootDir: string,
  status: () => StatusPage | null,
): (request: Request) => Promise<Response> {
  const root = resolve(rootDir);
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return respond(405, 'method not allowed', 'text/plain');
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return respond(400, 'bad request', 'text/plain');
    }
    if (!isAppUrl(url.href)) return respond(404, 'not found', 'text/plain');
    if (url.pathname === '/__status.css') return respond(200, STATUS_CSS, MIME['.css'] as string);
    if (url.pathname === '/__status') {
      const page = status() ?? { title: 'RouteLens', lines: ['Starting…'] };
      return respond(200, renderStatusPage(page), MIME['.html'] as string);
    }
    let rel: string;
    try {
      rel = decodeURIComponent(url.pathname);
    } catch {
      return respond(400, 'bad request', 'text/plain');
    }
    if (rel.includes('\0')) return respond(400, 'bad request', 'text/plain');
    if (rel === '/' || rel === '') rel = '/index.html';
    const file = resolve(root, `.${rel}`);
    if (!file.startsWith(root + sep)) return respond(404, 'not found', 'text/plain');
    try {
      if (!(await stat(file)).isFile()) return respond(404, 'not found', 'text/plain');
      return respond(200, new Uint8Array(await readFile(file)), MIME[extname(file).toLowerCase()] ?? 'application/octet-stream');
    } catch {
      if (rel === '/index.html') {
        const page = { title: 'The RouteLens UI is not built', lines: ['Run `npm run build:renderer`, then View → Reload.'] };
        return respond(503, renderStatusPage(page), MIME['.html'] as string);
      }
      return respond(404, 'not found', 'text/plain');
    }
  };
}
