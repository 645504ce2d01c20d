/**
 * The desktop app's main process. In order: register the `app://` scheme (must precede `ready`), take the
 * single-instance lock, then on ready harden the session (permissions, CSP), serve the UI over `app://`,
 * register one IPC handler per contract call, build the menu and the window, choose the database (`--db`,
 * `ROUTELENS_DB`, else the demo, built on first run with progress on a status page), open it, load the UI.
 */
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  Notification,
  protocol,
  session,
  shell,
  type MenuItemConstructorOptions,
  type OpenDialogOptions,
} from 'electron';
import type { RouteLensApi } from '../../shared/api.ts';
import type { Db } from '../db/dbHandle.ts';
import { buildDemo } from '../demo.ts';
import { createApi, openApiDatabase } from '../services/api.ts';
import { dispatch } from '../services/dispatch.ts';
import { createDataEvents, type DataEvents } from '../live/dataEvents.ts';
import { createFolderFollower, refollowingApi, type FolderFollower } from '../live/folderFollower.ts';
import { listFollowedRoots } from '../live/followedRoots.ts';
import { WriteQueue } from '../services/writeQueue.ts';
import { startWatching } from '../watch/startWatching.ts';
import { forwardLiveEvents, LIVE_EVENT_CHANNEL } from './liveEvents.ts';
import { chooseDatabase, dbArg, type DbChoice } from './dbPath.ts';
import { createSenderCheck, registerApiHandlers } from './ipc.ts';
import {
  APP_INDEX_URL,
  APP_SCHEME,
  APP_SCHEME_PRIVILEGES,
  APP_STATUS_URL,
  createAppProtocolHandler,
  type StatusPage,
} from './protocol.ts';
import { hardenSession, hardenWebContents, secureWebPreferences } from './security.ts';

// In the CJS bundle import.meta.url is rewritten to this file's source location (scripts/build-electron.mjs),
// so the app root is two folders up both from source and from dist/electron/main.cjs (also inside app.asar).
const appRoot = fileURLToPath(new URL('../../', import.meta.url));
const PRELOAD = join(appRoot, 'dist', 'electron', 'preload.cjs');
const RENDERER_DIR = join(appRoot, 'dist', 'renderer');

let mainWindow: BrowserWindow | null = null;
let status: StatusPage | null = null;
let current: { db: Db; path: string; api: RouteLensApi; events: DataEvents; stopForwarding: () => void; follower: FolderFollower } | null = null;
let lastStatusLoad = 0;

/** The packaged app cannot write inside its own bundle: its demo database lives in the user-data folder. */
function demoPath(): string {
  return app.isPackaged ? join(app.getPath('userData'), 'routelens-demo.db') : join(appRoot, 'demo', 'routelens-demo.db');
}

/** The window reads through a read-only connection; imports and estimator jobs write on their own (api.ts). */
function openDb(path: string): void {
  const db = openApiDatabase(path);
  const previous = current;
  const events = createDataEvents(db);
  // The window hears the database change (an import, `routelens watch`), and each new alert also as a notification.
  const stopForwarding = forwardLiveEvents(
    events,
    (event) => {
      if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(LIVE_EVENT_CHANNEL, event);
    },
    Notification,
    () => {
      if (!mainWindow || mainWindow.isDestroyed()) return;
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.focus();
    },
  );
  // The folders this database remembers are followed while it is open, writing in the window's write queue.
  const writes = new WriteQueue(path);
  const follower = createFolderFollower({
    dbPath: path,
    queue: writes,
    listRoots: () => listFollowedRoots(db).map((r) => r.path),
    start: startWatching,
    onEvent: (e) => console.log(e.line),
  });
  current = { db, path, api: refollowingApi(createApi(db, path, { writes }), follower), events, stopForwarding, follower };
  closeCurrent(previous);
  void follower.restart().catch(() => undefined);
}

/** Lets go of a database: its follower first (its last write finishes), then its events and connection. */
function closeCurrent(open: typeof current): void {
  if (!open) return;
  open.stopForwarding();
  open.events.close();
  void open.follower.stop().finally(() => open.db.close());
}

function currentApi(): RouteLensApi {
  if (!current) throw new Error('no database is open: use File → Open database…');
  return current.api;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Shows a status page; progress updates reload it at most 4 times a second. */
function showStatus(page: StatusPage, force = false): void {
  status = page;
  const now = Date.now();
  if (!mainWindow || (!force && now - lastStatusLoad < 250)) return;
  lastStatusLoad = now;
  mainWindow.loadURL(APP_STATUS_URL).catch(() => undefined); // a newer load aborts an older one
}

function loadUi(): void {
  status = null;
  if (!mainWindow || !current) return;
  mainWindow.setTitle(`RouteLens — ${basename(current.path)}`);
  mainWindow.loadURL(APP_INDEX_URL).catch(() => undefined);
}

async function prepareDatabase(choice: DbChoice): Promise<void> {
  if (choice.source === 'demo' && !existsSync(choice.path)) {
    const title = 'Building the demo database…';
    const intro = `RouteLens is importing its bundled sample trajectories into ${choice.path} (first run only).`;
    showStatus({ title, lines: [intro] }, true);
    mainWindow?.setProgressBar(2); // indeterminate
    try {
      const summary = await buildDemo(choice.path, {
        onProgress: (m) => {
          console.log(m);
          showStatus({ title, lines: [intro, m] });
        },
      });
      console.log(summary);
    } finally {
      mainWindow?.setProgressBar(-1);
    }
  }
  openDb(choice.path);
}

function switchDatabase(path: string): void {
  try {
    openDb(path);
  } catch (err) {
    dialog.showErrorBox('RouteLens could not open the database', `${path}\n\n${message(err)}`);
    return;
  }
  app.addRecentDocument(path);
  loadUi();
}

async function chooseAndOpenDatabase(): Promise<void> {
  const options: OpenDialogOptions = {
    title: 'Open a RouteLens database',
    properties: ['openFile'],
    filters: [
      { name: 'RouteLens database', extensions: ['db', 'sqlite', 'sqlite3'] },
      { name: 'All files', extensions: ['*'] },
    ],
  };
  const result = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
  const path = result.filePaths[0];
  if (!result.canceled && path) switchDatabase(path);
}

/**
 * File → Follow folders…: the system's folder picker, then the same call the window's dialog makes (checked by
 * dispatch); the window hears the change like any other write and its dialog lists the folder.
 */
async function chooseFoldersToFollow(): Promise<void> {
  const options: OpenDialogOptions = { title: 'Follow folders agents write their logs to', properties: ['openDirectory', 'multiSelections'] };
  const result = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
  if (result.canceled || result.filePaths.length === 0 || !current) return;
  const answer = await dispatch(current.api, 'followFolders', { paths: result.filePaths });
  if (!answer.ok) dialog.showErrorBox('RouteLens could not follow that folder', answer.error.message);
}

async function confirmExternal(url: string): Promise<boolean> {
  const options = {
    type: 'question' as const,
    buttons: ['Cancel', 'Open in browser'],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
    message: 'Open this link in your web browser?',
    detail: url,
  };
  const { response } = mainWindow ? await dialog.showMessageBox(mainWindow, options) : await dialog.showMessageBox(options);
  return response === 1;
}

export function menuTemplate(dev: boolean, isMac: boolean): MenuItemConstructorOptions[] {
  return [
    ...(isMac ? [{ role: 'appMenu' } as const] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Open database…', accelerator: 'CmdOrCtrl+O', click: () => void chooseAndOpenDatabase() },
        { label: 'Follow folders…', click: () => void chooseFoldersToFollow() },
        { type: 'separator' },
        { label: 'Quit', accelerator: 'CmdOrCtrl+Q', role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { label: 'Reload', accelerator: 'CmdOrCtrl+R', click: () => mainWindow?.webContents.reload() },
        ...(dev ? [{ label: 'Toggle Developer Tools', role: 'toggleDevTools' } as const] : []),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
  ];
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 800,
    minHeight: 500,
    show: false,
    title: 'RouteLens',
    webPreferences: secureWebPreferences(PRELOAD, !app.isPackaged),
  });
  hardenWebContents(win.webContents, confirmExternal, (url) => shell.openExternal(url));
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null;
  });
  return win;
}

async function start(): Promise<void> {
  hardenSession(session.defaultSession);
  protocol.handle(APP_SCHEME, createAppProtocolHandler(RENDERER_DIR, () => status));
  registerApiHandlers(
    ipcMain,
    currentApi,
    createSenderCheck((id) => mainWindow !== null && !mainWindow.isDestroyed() && mainWindow.webContents.id === id),
  );
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(!app.isPackaged, process.platform === 'darwin')));
  mainWindow = createWindow();
  const choice = chooseDatabase(process.argv, process.env, demoPath());
  try {
    await prepareDatabase(choice);
    loadUi();
  } catch (err) {
    console.error(`RouteLens could not open ${choice.path}: ${message(err)}`);
    showStatus(
      {
        title: 'RouteLens could not open the database',
        lines: [choice.path, message(err), 'Use File → Open database… to choose another one.'],
      },
      true,
    );
  }
}

function fatal(err: unknown): void {
  console.error(err);
  dialog.showErrorBox('RouteLens failed to start', message(err));
  app.exit(2);
}

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }]);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', (_event, argv, workingDirectory) => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
    const wanted = dbArg(argv);
    if (wanted) switchDatabase(resolve(workingDirectory, wanted));
  });
  // Any other web contents (there should be none): no navigation, no windows, no links offered.
  app.on('web-contents-created', (_event, contents) => {
    hardenWebContents(contents, async () => false, async () => undefined);
  });
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => {
    closeCurrent(current);
    current = null;
  });
  app.whenReady().then(start).catch(fatal);
}
