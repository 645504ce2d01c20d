#!/usr/bin/env node
/**
 * `npm start [-- --db FILE] [--browser] [--no-open]`: opens RouteLens.
 *   1. builds the renderer (`npx vite build`) if dist/renderer/index.html is missing;
 *   2. builds the demo database if no --db was given and demo/routelens-demo.db is missing;
 *   3. with a runnable Electron binary: bundles main/preload and runs the desktop app;
 *      otherwise (no binary, no display, better-sqlite3 not built for Electron, or --browser): says why and
 *      runs `routelens serve`, opening the printed URL in the default browser, until Ctrl+C.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setInterval } from 'node:timers';
import { electronBinaryPath, electronBinaryProblem } from './electronBinary.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const isWindows = process.platform === 'win32';
const DEMO_DB = join(root, 'demo', 'routelens-demo.db');
const CLI = join(root, 'bin', 'routelens.mjs');

const { values } = parseArgs({
  options: { db: { type: 'string' }, browser: { type: 'boolean' }, 'no-open': { type: 'boolean' } },
  allowPositionals: false,
});

function say(line) {
  console.log(`[routelens] ${line}`);
}

function fail(line) {
  console.error(`[routelens] ${line}`);
  process.exit(1);
}

/** Runs a command to completion with the terminal attached; false when it failed. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: isWindows && command !== process.execPath, ...options });
  return result.status === 0;
}

function hasDisplay() {
  if (process.platform !== 'linux') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

/** Why the desktop app cannot run here, or null when it can. */
function desktopProblem(binary) {
  if (values.browser) return 'you asked for --browser';
  if (!binary) return `No Electron binary is installed (${electronBinaryProblem()})`;
  if (!hasDisplay()) return 'No display is available for a desktop window (neither DISPLAY nor WAYLAND_DISPLAY is set)';
  // The native SQLite module must be compiled for Electron's ABI, which differs from Node's.
  const probe = spawnSync(binary, ['-e', "require('better-sqlite3')(':memory:').close()"], {
    cwd: root,
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (probe.status !== 0) {
    const detail = /NODE_MODULE_VERSION \d+[^.]*\./.exec(probe.stderr ?? '')?.[0] ?? (probe.error?.message ?? 'it failed to load');
    return (
      `better-sqlite3 cannot load inside Electron (${detail.trim()}). ` +
      'Run `npx electron-builder install-app-deps` to rebuild it for Electron ' +
      '(and `npm rebuild better-sqlite3` to get it back for the CLI and tests)'
    );
  }
  return null;
}

function openInBrowser(url) {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : isWindows ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => say(`Could not start ${command}: open the URL above in your browser.`));
  child.unref();
}

/**
 * A process manager stops `npm start` with SIGTERM to npm, which passes it to the shell it ran this script in; the
 * shell dies without passing it on, and this process and its server lived on, orphaned, holding the port. So this
 * process also stops its child when its parent goes away.
 */
function stopWhenOrphaned(stop) {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 250).unref();
}

function runDesktop(binary, db) {
  say('Bundling the Electron main process…');
  if (!run(process.execPath, [join(root, 'scripts', 'build-electron.mjs'), '--quiet'])) fail('build-electron failed');
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  const child = spawn(binary, [join(root, 'dist', 'electron', 'main.cjs'), '--db', db], { cwd: root, stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  stopWhenOrphaned(() => child.exitCode === null && child.kill('SIGTERM'));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

function runBrowser(db) {
  const child = spawn(process.execPath, [CLI, 'serve', '--db', db], { cwd: root, stdio: ['inherit', 'pipe', 'inherit'] });
  let opened = false;
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    pending += chunk;
    const url = /https?:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+/.exec(pending)?.[0];
    if (url && !opened) {
      opened = true;
      pending = '';
      if (values['no-open']) return;
      if (hasDisplay()) openInBrowser(url);
      else say('No display is available: open the URL above in a browser on this machine.');
    }
  });
  // Ctrl+C in a terminal reaches serve directly (same process group); a signal sent to this process alone is
  // passed on if serve is still running a moment later.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => setTimeout(() => child.exitCode === null && child.kill(signal), 500).unref());
  }
  stopWhenOrphaned(() => child.exitCode === null && child.kill('SIGTERM'));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

// npm runs scripts from the package root; a relative --db means relative to where the user typed `npm start`.
const db = values.db ? resolve(process.env.INIT_CWD ?? process.cwd(), values.db) : DEMO_DB;
if (values.db && !existsSync(db)) fail(`No database at ${db}.`);
if (!values.db && !existsSync(DEMO_DB)) {
  say('Building the demo database (first run only)…');
  if (!run(process.execPath, [CLI, 'demo', '--db', DEMO_DB])) fail('Building the demo database failed (see above).');
}

if (!existsSync(join(root, 'dist', 'renderer', 'index.html'))) {
  say('Building the user interface (npx vite build)…');
  if (!run('npx', ['vite', 'build'])) fail('The renderer build failed (see above).');
}

const binary = electronBinaryPath();
const problem = desktopProblem(binary);
if (problem === null && binary) {
  runDesktop(binary, db);
} else {
  say(`${problem}; opening RouteLens in your browser instead.`);
  runBrowser(db);
}
