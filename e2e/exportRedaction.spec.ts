/**
 * "Redact secrets" in a figure's export menu (issue 37 item 2): the CSV's text cells pass through the same redaction
 * as the CLI's --redact-secrets, and the menu says what went. Its own `routelens serve` over its own database, whose
 * run names hold a home-folder user name, so the shared database the other specs count stays as it is.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../electron/server/serve.ts';
import { AppPage } from './pages/AppPage.ts';
import { inBothThemes, SHOTS_DIR } from './pages/viewShot.ts';
import { cli } from './serveProcess.ts';
import { expect, test as base } from './fixtures.ts';

const USER = 'alice.liddell';
const RUN = `/Users/${USER}/evals/sw-a`;

const test = base.extend<object, { server: RunningServer }>({
  server: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-redact-'));
      const lines = readFileSync('fixtures/canonical/example.jsonl', 'utf8').split('\n').filter(Boolean).slice(0, 6);
      const log = join(dir, 'runs.jsonl');
      writeFileSync(log, lines.map((l, i) => JSON.stringify({ ...JSON.parse(l), run: i < 3 ? RUN : 'sw-b' })).join('\n') + '\n');
      const dbPath = join(dir, 'redact.db');
      cli(['import', log, '--db', dbPath], 120_000);
      const server = await startServer({ dbPath });
      await use(server);
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  app: async ({ page, server }, use) => use(new AppPage(page, server.url)),
});

test('a figure\'s CSV with "Redact secrets": the user name is gone from the file and the menu says so', async ({ app, analyses, page }) => {
  test.setTimeout(60_000);
  await app.open('#/analyses/pareto');
  await app.selectRuns([RUN, 'sw-b']);
  await analyses.waitFigure();

  const plain = await analyses.exportAs('csv');
  expect(readFileSync(await plain.path(), 'utf8')).toContain(USER);

  const panel = analyses.panel();
  await panel.getByTestId('export-menu').click();
  const menu = panel.getByTestId('export-menu-panel');
  await menu.getByTestId('export-redact').check();
  const [download] = await Promise.all([page.waitForEvent('download'), menu.getByTestId('export-csv').click()]);
  const csv = readFileSync(await download.path(), 'utf8');
  expect(csv).not.toContain(USER);
  expect(csv).toContain('/Users/[user]/evals/sw-a');
  expect(csv.split('\r\n')[0]).toBe(readFileSync(await plain.path(), 'utf8').split('\r\n')[0]);
  await expect(menu.getByTestId('export-redacted')).toHaveText('CSV saved; redacted: 1 home-folder user name');

  await page.screenshot({ path: `${SHOTS_DIR}export-menu-redact-light.png` });
  // The theme button closes the menu: open it again in the dark theme, and at the small window.
  await page.keyboard.press('Escape');
  await inBothThemes(app, async (theme) => {
    if (theme === 'light') return;
    await panel.getByTestId('export-menu').click();
    await menu.getByTestId('export-redact').check();
    await page.screenshot({ path: `${SHOTS_DIR}export-menu-redact-dark.png` });
    await page.keyboard.press('Escape');
  });
  await page.setViewportSize({ width: 1024, height: 700 });
  await analyses.waitFigure();
  await panel.getByTestId('export-menu').click();
  await menu.getByTestId('export-redact').check();
  await page.screenshot({ path: `${SHOTS_DIR}export-menu-redact-1024.png` });
});
