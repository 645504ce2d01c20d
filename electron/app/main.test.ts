import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_NAMES, type DbInfo } from '../../shared/api.ts';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { CSP } from './csp.ts';
import { fakeElectron, FakeWindow } from './fakeElectron.ts';
import { APP_INDEX_URL, APP_ORIGIN } from './protocol.ts';

vi.mock('electron', async () => (await import('./fakeElectron.ts')).fakeElectron.module);

const example = fileURLToPath(new URL('../../fixtures/canonical/example.jsonl', import.meta.url));
const tempDir = useSuiteTempDir();
const { module: electron } = fakeElectron;
let dbPath = '';
let otherDbPath = '';

function win(): FakeWindow {
  const w = FakeWindow.all[0];
  if (!w) throw new Error('no window was created');
  return w;
}

const trusted = () => ({ sender: { id: win().webContents.id }, senderFrame: { url: `${APP_ORIGIN}/index.html`, parent: null } });

async function call(name: string, payload: unknown, event: unknown = trusted()): Promise<unknown> {
  const handler = fakeElectron.ipcHandlers.get(`routelens:${name}`);
  if (!handler) throw new Error(`no handler for ${name}`);
  return handler(event, payload);
}

interface MenuItem {
  label?: string;
  role?: string;
  submenu?: MenuItem[];
  click?: () => void;
}

function menuItem(top: string, label: string): MenuItem | undefined {
  const menu = fakeElectron.menu.template as MenuItem[];
  return menu.find((m) => m.label === top)?.submenu?.find((i) => i.label === label);
}

beforeAll(async () => {
  dbPath = join(tempDir(), 'main.db');
  const db = openDatabase(dbPath);
  await importPaths(db, [example]);
  db.close();
  otherDbPath = join(tempDir(), 'other.db');
  openDatabase(otherDbPath).close();
  process.env.ROUTELENS_DB = dbPath;
  await import('./main.ts');
  fakeElectron.ready();
  await vi.waitFor(() => expect(win().loadURL).toHaveBeenCalledWith(APP_INDEX_URL));
});

afterAll(() => {
  delete process.env.ROUTELENS_DB;
  fakeElectron.app.emit('will-quit');
});

describe('desktop main process', () => {
  it('takes the single-instance lock and registers app:// as a standard, secure scheme', () => {
    expect(fakeElectron.app.requestSingleInstanceLock).toHaveBeenCalled();
    expect(electron.protocol.registerSchemesAsPrivileged).toHaveBeenCalledWith([
      expect.objectContaining({ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }),
    ]);
    expect(fakeElectron.protocolHandlers.has('app')).toBe(true);
  });

  it('creates one window with isolated, sandboxed, Node-free web preferences', () => {
    expect(FakeWindow.all).toHaveLength(1);
    const prefs = win().options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(String(prefs.preload)).toMatch(/dist[\\/]electron[\\/]preload\.cjs$/);
    expect(win().setTitle).toHaveBeenCalledWith('RouteLens — main.db');
  });

  it('blocks navigation, and opens an http(s) link only after the user confirms', async () => {
    const contents = win().webContents;
    const navigate = (url: string) => {
      const event = { url, preventDefault: vi.fn() };
      contents.emit('will-navigate', event);
      return event;
    };
    expect(navigate('file:///etc/passwd').preventDefault).toHaveBeenCalled();
    expect(navigate('javascript:alert(1)').preventDefault).toHaveBeenCalled();
    expect(electron.dialog.showMessageBox).not.toHaveBeenCalled();

    expect(navigate('https://example.com/declined').preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(electron.dialog.showMessageBox).toHaveBeenCalledTimes(1));
    await new Promise((r) => setTimeout(r, 10));
    expect(electron.shell.openExternal).not.toHaveBeenCalled();

    electron.dialog.showMessageBox.mockResolvedValueOnce({ response: 1 });
    navigate('https://example.com/accepted');
    await vi.waitFor(() => expect(electron.shell.openExternal).toHaveBeenCalledWith('https://example.com/accepted'));

    const redirect = { url: 'https://example.com/', preventDefault: vi.fn() };
    contents.emit('will-redirect', redirect);
    expect(redirect.preventDefault).toHaveBeenCalled();
    const webview = { preventDefault: vi.fn() };
    contents.emit('will-attach-webview', webview);
    expect(webview.preventDefault).toHaveBeenCalled();
  });

  it('denies window.open for every URL', () => {
    const open = win().webContents.openHandler;
    expect(open).not.toBeNull();
    for (const url of ['https://example.com/', `${APP_ORIGIN}/index.html`, 'about:blank', 'file:///etc/passwd']) {
      expect(open?.({ url })).toEqual({ action: 'deny' });
    }
  });

  it('puts the CSP on every response, replacing any other', () => {
    const listener = fakeElectron.session.headersListener;
    expect(listener).not.toBeNull();
    const callback = vi.fn();
    listener?.({ responseHeaders: { 'content-security-policy': ["default-src *"], 'X-Other': 'kept' } }, callback);
    const headers = callback.mock.calls[0]?.[0].responseHeaders as Record<string, string[]>;
    expect(headers['Content-Security-Policy']).toEqual([CSP]);
    expect(headers['content-security-policy']).toBeUndefined();
    expect(headers['X-Other']).toEqual(['kept']);
    expect(CSP).toContain("default-src 'self'");
    expect(CSP).not.toContain('unsafe-eval');
    expect(CSP).not.toContain('unsafe-inline');
  });

  it('serves the UI over app:// with the CSP header', async () => {
    const handler = fakeElectron.protocolHandlers.get('app');
    const res = await handler?.(new Request(APP_INDEX_URL));
    // 200 when the renderer is built, 503 with an explanation when it is not: the CSP is there either way.
    expect([200, 503]).toContain(res?.status);
    expect(res?.headers.get('content-security-policy')).toBe(CSP);
  });

  it('denies every permission request and check', () => {
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      const callback = vi.fn();
      fakeElectron.session.permissionRequestHandler?.(win().webContents, permission, callback);
      expect(callback).toHaveBeenCalledWith(false);
      expect(fakeElectron.session.permissionCheckHandler?.(win().webContents, permission)).toBe(false);
    }
  });

  it('registers one IPC handler per API call, and nothing else', () => {
    expect([...fakeElectron.ipcHandlers.keys()].sort()).toEqual(API_NAMES.map((n) => `routelens:${n}`).sort());
  });

  it('answers a call from its own window over the database it opened', async () => {
    const info = (await call('dbInfo', {})) as DbInfo;
    expect(info.path).toBe(dbPath);
    expect(info.episodes).toBeGreaterThan(0);
  });

  it('rejects invalid payloads with the ApiError message', async () => {
    await expect(call('queryEpisodes', { limit: -1 })).rejects.toThrow(/^queryEpisodes: /);
    await expect(call('getEpisode', { id: 99999 })).rejects.toThrow(/no episode with id 99999/);
  });

  it('rejects calls from other web contents, other origins and subframes', async () => {
    const frame = { url: `${APP_ORIGIN}/index.html`, parent: null };
    const foreign = [
      { sender: { id: win().webContents.id + 100 }, senderFrame: frame },
      { sender: { id: win().webContents.id }, senderFrame: { url: 'https://evil.example/', parent: null } },
      { sender: { id: win().webContents.id }, senderFrame: { url: 'file:///tmp/x.html', parent: null } },
      { sender: { id: win().webContents.id }, senderFrame: { ...frame, parent: {} } },
      { sender: { id: win().webContents.id }, senderFrame: null },
    ];
    for (const event of foreign) await expect(call('dbInfo', {}, event)).rejects.toThrow(/not a RouteLens window/);
  });

  it('has a menu with Open database…, Quit, Reload and (in development) Toggle Developer Tools', () => {
    expect(menuItem('File', 'Open database…')).toBeDefined();
    expect(menuItem('File', 'Quit')?.role).toBe('quit');
    expect(menuItem('View', 'Reload')).toBeDefined();
    expect(menuItem('View', 'Toggle Developer Tools')?.role).toBe('toggleDevTools');
    menuItem('View', 'Reload')?.click?.();
    expect(win().webContents.reload).toHaveBeenCalled();
  });

  it('File → Follow folders… remembers the folders picked in the open database; a file is refused, saying why', async () => {
    const folder = join(tempDir(), 'agent-logs');
    mkdirSync(folder, { recursive: true });
    electron.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: [folder] });
    menuItem('File', 'Follow folders…')?.click?.();
    await vi.waitFor(async () => expect(await call('followedFolders', {})).toMatchObject([{ path: folder }]));
    const errors = electron.dialog.showErrorBox.mock.calls.length;
    electron.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: [join(tempDir(), 'nowhere')] });
    menuItem('File', 'Follow folders…')?.click?.();
    await vi.waitFor(() => expect(electron.dialog.showErrorBox.mock.calls.length).toBe(errors + 1));
    expect(await call('unfollowFolder', { path: folder })).toEqual([]);
  });

  it('File → Open database… switches the services to the chosen file and reloads the UI', async () => {
    const loads = win().loadURL.mock.calls.length;
    electron.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: [otherDbPath] });
    menuItem('File', 'Open database…')?.click?.();
    await vi.waitFor(() => expect(win().loadURL.mock.calls.length).toBe(loads + 1));
    expect(win().loadURL).toHaveBeenLastCalledWith(APP_INDEX_URL);
    expect(((await call('dbInfo', {})) as DbInfo).path).toBe(otherDbPath);

    // A file that is not a database leaves the open one in place and says why.
    const notADb = join(tempDir(), 'notes.db');
    writeFileSync(notADb, 'not a database, just text\n'.repeat(100));
    electron.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: [notADb] });
    menuItem('File', 'Open database…')?.click?.();
    await vi.waitFor(() => expect(electron.dialog.showErrorBox).toHaveBeenCalled());
    expect(((await call('dbInfo', {})) as DbInfo).path).toBe(otherDbPath);
    expect(existsSync(otherDbPath)).toBe(true);
  });
});
