/**
 * The desktop window, where an Electron binary is installed (node_modules/electron/path.txt and dist/).
 * Elsewhere every test here is skipped with the reason; `_electron.launch` is never pointed at Chromium.
 * Opens the same database globalSetup built, with a fresh user-data folder, from the bundled main process
 * (dist/electron/main.cjs, `npm run build:electron`).
 */
import { _electron as electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinaryPath, electronBinaryProblem } from '../scripts/electronBinary.mjs';
import { e2eState } from './state.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const mainBundle = join(root, 'dist', 'electron', 'main.cjs');
const binary = electronBinaryPath();

test.describe('desktop window', () => {
  test.describe.configure({ mode: 'serial' });
  test.skip(!binary, `no Electron binary: ${electronBinaryProblem() ?? 'unknown reason'}`);
  test.skip(!!binary && !existsSync(mainBundle), 'dist/electron/main.cjs is missing: run `npm run build:electron`');
  test.skip(process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY, 'no display for a window');

  let app: ElectronApplication | null = null;
  let win: Page | null = null;
  let userData = '';
  const problems: string[] = [];
  const state = binary ? e2eState() : null;

  test.beforeAll(async () => {
    userData = mkdtempSync(join(tmpdir(), 'routelens-e2e-electron-'));
    app = await electron.launch({
      executablePath: binary ?? undefined,
      args: [mainBundle, '--db', state?.dbPath ?? '', `--user-data-dir=${userData}`],
      cwd: root,
    });
    win = await app.firstWindow();
    win.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    win.on('pageerror', (err) => problems.push(err.message));
    await expect(win.locator('#root')).toHaveAttribute('data-app-state', 'ready', { timeout: 30_000 });
  });

  test.afterEach(() => {
    expect(problems, 'the window logged errors').toEqual([]);
  });

  test.afterAll(async () => {
    await app?.close();
    rmSync(userData, { recursive: true, force: true });
  });

  test('talks to the core over IPC and shows the runs', async () => {
    const page = win as Page;
    expect(await page.evaluate(() => typeof window.routelens)).toBe('object');
    await expect(page.getByTestId('run-row')).toHaveCount(state?.info.runs.length ?? -1);
  });

  test('deep links and keyboard work in the window', async () => {
    const page = win as Page;
    await page.evaluate(() => {
      window.location.hash = '#/episodes';
    });
    await expect(page.getByTestId('episodes-view')).toHaveAttribute('data-state', 'ready');
    await page.getByTestId('episode-row').first().click();
    await expect(page.getByTestId('inspector-view')).toHaveAttribute('data-state', 'ready');
    await page.keyboard.press('j');
    await expect(page.getByTestId('turn-detail')).toHaveAttribute('data-t', '1');
  });
});
