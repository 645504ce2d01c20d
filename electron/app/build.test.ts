// scripts/build-electron.mjs: both bundles are written, parse, and run as CommonJS — the main bundle under
// plain Node with a stand-in for 'electron' (proving import.meta.url was rewritten: it must find
// models/pool.json), the preload with nothing but 'electron' to require, as in a sandbox.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_NAMES } from '../../shared/api.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tempDir = useSuiteTempDir();
let outdir = '';

// Stands in for 'electron' when a bundle is required under Node; reports what the bundle did on stdout.
const ELECTRON_STUB = String.raw`
const Module = require('node:module');
const handlers = new Map();
const exposed = {};
const report = (o) => { process.stdout.write(JSON.stringify(o) + '\n'); };
const contents = { id: 1, on() {}, setWindowOpenHandler() {}, reload() {} };
const fake = {
  app: { isPackaged: false, requestSingleInstanceLock: () => true, whenReady: () => Promise.resolve(), on() {},
    quit() {}, exit(code) { process.exit(code); }, getPath: () => require('node:os').tmpdir(), addRecentDocument() {} },
  BrowserWindow: class {
    constructor() { this.webContents = contents; }
    once() {} on() {} setTitle() {} setProgressBar() {} isDestroyed() { return false; }
    async loadURL(url) {
      if (!url.endsWith('/index.html')) return;
      const event = { sender: { id: 1 }, senderFrame: { url, parent: null } };
      const models = await handlers.get('routelens:listModels')(event, {});
      report({ url, channels: [...handlers.keys()], models: models.length });
      process.exit(0);
    }
  },
  ipcMain: { handle: (c, l) => handlers.set(c, l), removeHandler() {} },
  protocol: { registerSchemesAsPrivileged() {}, handle() {} },
  session: { defaultSession: { setPermissionRequestHandler() {}, setPermissionCheckHandler() {}, webRequest: { onHeadersReceived() {} } } },
  Menu: { buildFromTemplate: (t) => t, setApplicationMenu() {} },
  dialog: { showErrorBox: (t, m) => { report({ error: t + ': ' + m }); process.exit(3); }, showMessageBox: async () => ({ response: 0 }) },
  shell: { openExternal: async () => {} },
  contextBridge: { exposeInMainWorld: (k, v) => { exposed[k] = Object.keys(v); } },
  ipcRenderer: { invoke: async () => null },
};
const load = Module._load;
// What a sandboxed preload's require() offers (Electron docs, "Process Sandboxing").
const sandboxed = new Set(['events', 'timers', 'url']);
Module._load = function (request, parent, isMain) {
  if (request === 'electron') return fake;
  if (process.env.STUB_SANDBOX === '1' && !isMain && !sandboxed.has(request)) {
    throw new Error('sandboxed preload cannot require ' + request);
  }
  return load.call(this, request, parent, isMain);
};
process.on('exit', () => { if (Object.keys(exposed).length) report({ exposed }); });
`;

beforeAll(() => {
  outdir = join(tempDir(), 'electron');
  execFileSync(process.execPath, [join(root, 'scripts', 'build-electron.mjs'), '--outdir', outdir, '--quiet'], { cwd: root });
});

describe('build-electron', () => {
  it('writes main.cjs and preload.cjs, both valid scripts', () => {
    for (const name of ['main.cjs', 'preload.cjs']) {
      const file = join(outdir, name);
      expect(existsSync(file)).toBe(true);
      execFileSync(process.execPath, ['--check', file]);
    }
    const main = readFileSync(join(outdir, 'main.cjs'), 'utf8');
    expect(main).not.toContain('import.meta');
    expect(main).toMatch(/require\("electron"\)/);
    expect(main).toMatch(/require\("better-sqlite3"\)/);
  });

  it('runs the main bundle as CommonJS: data files found, one IPC channel per call, calls answered', () => {
    const stub = join(tempDir(), 'electron-stub.cjs');
    writeFileSync(stub, ELECTRON_STUB);
    const db = join(tempDir(), 'smoke.db');
    const out = execFileSync(process.execPath, ['-r', stub, join(outdir, 'main.cjs'), '--db', db], {
      env: { ...process.env, NODE_PATH: join(root, 'node_modules'), ROUTELENS_DB: '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    const result = JSON.parse(out.trim().split('\n').at(-1) as string) as { url: string; channels: string[]; models: number };
    expect(result.url).toBe('app://routelens/index.html');
    expect(result.channels.sort()).toEqual(API_NAMES.map((n) => `routelens:${n}`).sort());
    expect(result.models).toBeGreaterThan(0); // seeded from models/pool.json, found through the rewritten import.meta.url
  });

  it('makes a small, self-contained preload that exposes exactly the API names and the live events', () => {
    expect(statSync(join(outdir, 'preload.cjs')).size).toBeLessThan(10_000); // names only, no zod
    const stub = join(tempDir(), 'electron-stub.cjs');
    writeFileSync(stub, ELECTRON_STUB);
    const out = execFileSync(process.execPath, ['-r', stub, join(outdir, 'preload.cjs')], {
      env: { ...process.env, STUB_SANDBOX: '1' },
      encoding: 'utf8',
    });
    const { exposed } = JSON.parse(out.trim()) as { exposed: Record<string, string[]> };
    expect(Object.keys(exposed)).toEqual(['routelens', 'routelensLive']);
    expect(exposed.routelens?.sort()).toEqual([...API_NAMES].sort());
    expect(exposed.routelensLive).toEqual(['onEvent']); // the live events (issue 36), nothing more
  });
});
