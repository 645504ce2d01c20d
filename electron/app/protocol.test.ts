import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../testing/tmp.ts';
import { CSP } from './csp.ts';
import { createAppProtocolHandler, isAppUrl, renderStatusPage, type StatusPage } from './protocol.ts';

const tempDir = useTempDir();

function site(): string {
  const dir = tempDir();
  const root = join(dir, 'renderer');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>RouteLens</title>');
  writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'outside the root');
  return root;
}

const get = (handler: (r: Request) => Promise<Response>, url: string, method = 'GET') => handler(new Request(url, { method }));

describe('app:// protocol', () => {
  it('serves the built renderer with the CSP and a content type', async () => {
    const handler = createAppProtocolHandler(site(), () => null);
    for (const url of ['app://routelens/', 'app://routelens/index.html']) {
      const res = await get(handler, url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toBe(CSP);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toContain('<title>RouteLens</title>');
    }
    const js = await get(handler, 'app://routelens/assets/app.js');
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
  });

  it('serves nothing outside the root, for other hosts, folders or methods', async () => {
    const handler = createAppProtocolHandler(site(), () => null);
    expect((await get(handler, 'app://routelens/%2e%2e/secret.txt')).status).toBe(404);
    expect((await get(handler, 'app://routelens/..%2fsecret.txt')).status).toBe(404);
    expect((await get(handler, 'app://routelens/assets')).status).toBe(404);
    expect((await get(handler, 'app://routelens/missing.js')).status).toBe(404);
    expect((await get(handler, 'app://elsewhere/index.html')).status).toBe(404);
    expect((await get(handler, 'app://routelens/%E0%A4%A')).status).toBe(400);
    expect((await get(handler, 'app://routelens/index.html', 'POST')).status).toBe(405);
  });

  it('explains a missing UI build instead of a blank window', async () => {
    const handler = createAppProtocolHandler(join(tempDir(), 'nothing'), () => null);
    const res = await get(handler, 'app://routelens/index.html');
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build:renderer');
  });

  it('serves the status page as text only, escaped', async () => {
    let status: StatusPage | null = { title: 'Building <b>demo</b>', lines: ['<script>alert(1)</script>', 'a & b'] };
    const handler = createAppProtocolHandler(site(), () => status);
    const html = await (await get(handler, 'app://routelens/__status')).text();
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&#60;script&#62;');
    expect(html).toBe(renderStatusPage(status));
    status = null;
    expect((await get(handler, 'app://routelens/__status')).status).toBe(200);
    expect((await get(handler, 'app://routelens/__status.css')).headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('recognises only its own origin', () => {
    expect(isAppUrl('app://routelens/index.html#/runs')).toBe(true);
    expect(isAppUrl('app://routelens.evil/index.html')).toBe(false);
    expect(isAppUrl('http://routelens/')).toBe(false);
    expect(isAppUrl('')).toBe(false);
  });
});
