/** The window shell: rail, deep links, themes, and what an empty database says. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppPage } from './pages/AppPage.ts';
import { cli, freePort, startServe } from './serveProcess.ts';
import { expect, test } from './fixtures.ts';

test('the rail switches views and the URL follows', async ({ app, runs, episodes, page }) => {
  await app.open('#/runs');
  await runs.waitReady();
  await expect(app.rail('runs')).toHaveAttribute('aria-current', 'page');
  await expect(app.rail('episode')).toHaveAttribute('aria-disabled', 'true');
  await expect(app.dbName).toContainText('e2e.db');
  await app.rail('episodes').click();
  await episodes.waitReady();
  await expect(page).toHaveURL(/#\/episodes$/);
  await page.goBack();
  await runs.waitReady();
  await expect(page).toHaveURL(/#\/runs$/);
});

test('deep links to views and run selections work on reload', async ({ app, episodes, page }) => {
  await app.open('#/episodes');
  await episodes.waitReady();
  await app.selectRuns(['sw-router-demo']);
  await episodes.waitReady();
  await expect(page).toHaveURL(/#\/episodes\?runs=\d+$/);
  await page.reload();
  await app.waitReady();
  await episodes.waitReady();
  expect(await episodes.matchCount()).toBe(6);
  await expect(app.runSelector).toContainText('sw-router-demo');
});

test('an unknown link falls back to the Runs view', async ({ app, runs, page }) => {
  await app.open('#/no/such/view');
  await runs.waitReady();
  await expect(page).toHaveURL(/#\/runs$/);
});

test('the theme toggles and is remembered', async ({ app, page }) => {
  await app.open('#/runs');
  await app.setTheme('dark');
  const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.reload();
  await app.waitReady();
  expect(await app.theme()).toBe('dark');
  await app.setTheme('light');
  const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(light).not.toBe(dark);
});

test.describe('an empty database', () => {
  let dir = '';
  let server: Awaited<ReturnType<typeof startServe>> | null = null;

  test.beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-empty-'));
    const emptyFolder = join(dir, 'nothing');
    mkdirSync(emptyFolder);
    cli(['import', emptyFolder, '--db', join(dir, 'empty.db')]);
    server = await startServe(join(dir, 'empty.db'), await freePort());
  });

  test.afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('every view says how to import runs', async ({ page }) => {
    const app = new AppPage(page, server?.url ?? '');
    for (const hash of ['#/runs', '#/episodes']) {
      await app.open(hash);
      await expect(page.getByTestId('no-runs')).toContainText('No runs yet');
      await expect(page.getByTestId('no-runs')).toContainText('routelens import <path> --db');
      await expect(page.getByTestId('no-runs')).toContainText('empty.db');
    }
  });
});
