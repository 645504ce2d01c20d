// The packaged app's first run: no --db, no ROUTELENS_DB, so it builds the demo database in the user-data
// folder, showing progress on the status page, then loads the UI over it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DbInfo } from '../../shared/api.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { fakeElectron, FakeWindow } from './fakeElectron.ts';
import { APP_INDEX_URL, APP_ORIGIN, APP_STATUS_URL } from './protocol.ts';

vi.mock('electron', async () => (await import('./fakeElectron.ts')).fakeElectron.module);

const tempDir = useSuiteTempDir();
let savedEnv: string | undefined;

function win(): FakeWindow {
  const w = FakeWindow.all[0];
  if (!w) throw new Error('no window was created');
  return w;
}

beforeAll(async () => {
  vi.spyOn(console, 'log').mockImplementation(() => undefined); // demo progress lines
  savedEnv = process.env.ROUTELENS_DB;
  delete process.env.ROUTELENS_DB;
  fakeElectron.app.isPackaged = true;
  fakeElectron.app.userData = tempDir();
  await import('./main.ts');
  fakeElectron.ready();
  await vi.waitFor(() => expect(win().loadURL).toHaveBeenCalledWith(APP_INDEX_URL), { timeout: 30_000 });
});

afterAll(() => {
  if (savedEnv !== undefined) process.env.ROUTELENS_DB = savedEnv;
  fakeElectron.app.emit('will-quit');
});

describe('first run of the packaged app', () => {
  it('builds the demo database in the user-data folder, showing the status page first', async () => {
    const demo = join(fakeElectron.app.userData, 'routelens-demo.db');
    expect(existsSync(demo)).toBe(true);
    const urls = win().loadURL.mock.calls.map((c) => c[0]);
    expect(urls[0]).toBe(APP_STATUS_URL);
    expect(urls.at(-1)).toBe(APP_INDEX_URL);
    expect(win().setProgressBar).toHaveBeenCalledWith(-1);

    const handler = fakeElectron.ipcHandlers.get('routelens:dbInfo');
    const event = { sender: { id: win().webContents.id }, senderFrame: { url: `${APP_ORIGIN}/`, parent: null } };
    const info = (await handler?.(event, {})) as DbInfo;
    expect(info.path).toBe(demo);
    expect(info.runs).toBeGreaterThan(0);
  });

  it('turns developer tools off and leaves them out of the menu', () => {
    expect((win().options.webPreferences as Record<string, unknown>).devTools).toBe(false);
    const view = (fakeElectron.menu.template as { label?: string; submenu?: { role?: string }[] }[]).find((m) => m.label === 'View');
    expect(view?.submenu?.some((i) => i.role === 'toggleDevTools')).toBe(false);
  });

  it('serves a status page with no script, its text escaped', async () => {
    const res = await fakeElectron.protocolHandlers.get('app')?.(new Request(APP_STATUS_URL));
    const html = (await res?.text()) ?? '';
    expect(res?.status).toBe(200);
    expect(html).not.toMatch(/<script/i);
  });
});
