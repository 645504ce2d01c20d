import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
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
