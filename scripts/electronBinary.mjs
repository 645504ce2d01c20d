/**
 * Where the Electron executable is, without `require('electron')` (which tries to download the binary when it
 * is missing). Reads node_modules/electron/path.txt, written by electron's install script once it has
 * unpacked the binary into node_modules/electron/dist/. Used by scripts/start.mjs and the Playwright
 * Electron project.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const defaultRoot = fileURLToPath(new URL('..', import.meta.url));

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Why no Electron binary can run here, or null when one is installed.
 * @param {{ root?: string, env?: Record<string, string | undefined> }} [options]
 */
export function electronBinaryProblem({ root = defaultRoot, env = process.env } = {}) {
  return locate(root, env).problem;
}

/**
 * The Electron executable's absolute path, or null when it is not installed.
 * @param {{ root?: string, env?: Record<string, string | undefined> }} [options]
 */
export function electronBinaryPath({ root = defaultRoot, env = process.env } = {}) {
  return locate(root, env).path;
}

function locate(root, env) {
  const pkg = join(root, 'node_modules', 'electron');
  if (!existsSync(join(pkg, 'package.json'))) {
    return { path: null, problem: 'the electron package is not installed (run `npm install`)' };
  }
  const pathFile = join(pkg, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const overridden = join(env.ELECTRON_OVERRIDE_DIST_PATH, relative || 'electron');
    return isFile(overridden)
      ? { path: overridden, problem: null }
      : { path: null, problem: `ELECTRON_OVERRIDE_DIST_PATH names no Electron executable (${overridden})` };
  }
  if (!relative) {
    return {
      path: null,
      problem: 'the electron package never downloaded its binary: node_modules/electron/path.txt is missing; ' +
        'its install script needs network access to GitHub, or install scripts were disabled',
    };
  }
  const full = join(pkg, 'dist', relative);
  return isFile(full)
    ? { path: full, problem: null }
    : { path: null, problem: `the Electron binary ${relative} is missing from node_modules/electron/dist/` };
}
