import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { startServer, type RunningServer } from './serve.ts';

const example = fileURLToPath(new URL('../../fixtures/canonical/example.jsonl', import.meta.url));
const tempDir = useSuiteTempDir();
let server: RunningServer;
let port: number;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function http(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

beforeAll(async () => {
  const dir = tempDir();
  const dbPath = join(dir, 's.db');
  const db = openDatabase(dbPath);
  await importPaths(db, [example]);
  db.close();
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>RouteLens</title>');
  mkdirSync(join(staticDir, 'assets'));
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  server = await startServer({ dbPath, staticDir });
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

describe('serve', () => {
  it('binds 127.0.0.1 and prints a URL with the token', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
  });

  it('refuses requests without the token', async () => {
    expect((await http('GET', '/', { Host: `127.0.0.1:${port}` })).status).toBe(401);
    expect((await http('POST', '/api/listRuns', { Host: `127.0.0.1:${port}` }, '{}')).status).toBe(401);
    expect((await http('GET', '/?token=wrong', { Host: `127.0.0.1:${port}` })).status).toBe(401);
  });

  it('trades the URL token for an HttpOnly SameSite cookie and serves the UI with a CSP', async () => {
    const first = await http('GET', `/?token=${server.token}`, { Host: `127.0.0.1:${port}` });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    const cookie = String(first.headers['set-cookie']).split(';')[0] as string;
    expect(String(first.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    const page = await http('GET', '/', { Host: `127.0.0.1:${port}`, Cookie: cookie });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(page.headers['content-security-policy']).not.toMatch(/unsafe-eval/);
  });

  it('answers the API with the token header', async () => {
    const r = await http('POST', '/api/listRuns', { Host: `127.0.0.1:${port}`, 'X-RouteLens-Token': server.token }, '{}');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).value.map((x: { name: string }) => x.name)).toEqual(['hle-router-demo', 'sw-router-demo']);
    const bad = await http('POST', '/api/getEpisode', { Host: `127.0.0.1:${port}`, 'X-RouteLens-Token': server.token }, '{"id":"1; DROP"}');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ ok: false, error: { kind: 'input' } });
  });

  it('checks Host and Origin (DNS rebinding, cross-site requests)', async () => {
    const auth = { 'X-RouteLens-Token': server.token };
    expect((await http('POST', '/api/listRuns', { ...auth, Host: `evil.example:${port}` }, '{}')).status).toBe(421);
    expect(
      (await http('POST', '/api/listRuns', { ...auth, Host: `127.0.0.1:${port}`, Origin: 'http://evil.example' }, '{}')).status,
    ).toBe(403);
    expect(
      (await http('POST', '/api/listRuns', { ...auth, Host: `localhost:${port}`, Origin: `http://localhost:${port}` }, '{}')).status,
    ).toBe(200);
  });

  it('does not serve files outside the UI folder', async () => {
    const auth = { 'X-RouteLens-Token': server.token, Host: `127.0.0.1:${port}` };
    expect((await http('GET', '/../../package.json', auth)).status).toBe(404);
    expect((await http('GET', '/%2e%2e/%2e%2e/package.json', auth)).status).toBe(404);
  });
});

/** Whether a TCP connection to host:port is accepted. */
function reachable(host: string, p: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port: p, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

describe('serve hardening (DESIGN §12)', () => {
  it('listens on the loopback address only: not on this machine\'s other addresses, nor IPv6', async () => {
    expect(await reachable('127.0.0.1', port)).toBe(true);
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && !a.internal && a.family === 'IPv4')
      .map((a) => a?.address as string);
    for (const address of others) expect(await reachable(address, port), address).toBe(false);
    expect(await reachable('::1', port)).toBe(false);
  });

  it('wants the token on every request, static files included, and only the exact token', async () => {
    const host = { Host: `127.0.0.1:${port}` };
    for (const path of ['/', '/index.html', '/assets/app.js', '/missing.js']) {
      expect((await http('GET', path, host)).status, path).toBe(401);
      expect((await http('GET', path, { ...host, Cookie: 'routelens_token=wrong' })).status, path).toBe(401);
      expect((await http('GET', path, { ...host, 'X-RouteLens-Token': `${server.token}x` })).status, path).toBe(401);
      expect((await http('GET', path, { ...host, 'X-RouteLens-Token': server.token.slice(0, -1) })).status, path).toBe(401);
    }
    const cookie = `routelens_token=${server.token}`;
    expect((await http('GET', '/assets/app.js', { ...host, Cookie: cookie })).status).toBe(200);
    expect((await http('GET', '/assets/app.js', { ...host, Cookie: `other=1; ${cookie}` })).status).toBe(200);
    // The refusal says what to do and carries nothing of the UI.
    const refused = await http('GET', '/assets/app.js', host);
    expect(refused.body).not.toContain('console.log');
    expect(refused.headers['content-security-policy']).toMatch(/default-src 'self'/);
  });

  it('refuses any Host but its own address (DNS rebinding), even with the token', async () => {
    const auth = { 'X-RouteLens-Token': server.token };
    for (const host of ['evil.com', `evil.com:${port}`, `127.0.0.1.evil.com:${port}`, `localhost.evil.com:${port}`, '127.0.0.1', `127.0.0.1:${port + 1}`, `[::1]:${port}`]) {
      expect((await http('GET', '/', { ...auth, Host: host })).status, host).toBe(421);
      expect((await http('POST', '/api/listRuns', { ...auth, Host: host }, '{}')).status, host).toBe(421);
    }
    // An HTTP/1.0 request with no Host header at all.
    const bare = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => socket.end(`GET / HTTP/1.0\r\nX-RouteLens-Token: ${server.token}\r\n\r\n`));
      let data = '';
      socket.on('data', (c) => (data += c.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(bare).toMatch(/^HTTP\/1\.[01] 421 /);
    // Nor is the token traded for a cookie on a foreign Host.
    const trade = await http('GET', `/?token=${server.token}`, { Host: `evil.com:${port}` });
    expect(trade.status).toBe(421);
    expect(trade.headers['set-cookie']).toBeUndefined();
  });

  it('refuses requests from any other origin, including null and other ports or schemes', async () => {
    const base = { Host: `127.0.0.1:${port}`, 'X-RouteLens-Token': server.token };
    for (const origin of ['null', 'http://evil.example', `http://127.0.0.1:${port + 1}`, `https://127.0.0.1:${port}`, `http://127.0.0.1:${port}.evil.com`, 'file://']) {
      expect((await http('POST', '/api/listRuns', { ...base, Origin: origin }, '{}')).status, origin).toBe(403);
      expect((await http('GET', '/', { ...base, Origin: origin })).status, origin).toBe(403);
    }
    expect((await http('POST', '/api/listRuns', { ...base, Origin: `http://127.0.0.1:${port}` }, '{}')).status).toBe(200);
  });

  it('answers bad requests as the client\'s fault, never as an internal error', async () => {
    const auth = { Host: `127.0.0.1:${port}`, 'X-RouteLens-Token': server.token };
    expect((await http('GET', '/%E0%A4%A', auth)).status).toBe(400);
    expect((await http('GET', '/index.html%00.js', auth)).status).toBe(400);
    expect((await http('POST', '/api/listRuns', auth, '{not json')).status).toBe(400);
    expect((await http('POST', '/api/noSuchCall', auth, '{}')).status).toBe(400);
    expect((await http('GET', '/api/listRuns', auth)).status).toBe(405);
    expect((await http('DELETE', '/', auth)).status).toBe(405);
    const huge = await http('POST', '/api/listRuns', auth, `"${'x'.repeat(2 * 1024 * 1024)}"`).catch(() => ({ status: 400 }));
    expect(huge.status).toBe(400);
  });
});
