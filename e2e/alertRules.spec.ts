/**
 * The alert rules editor (issue 36 item 5): a rule is checked as it is typed (what is wrong, at which column),
 * added, turned off and removed, and what the window saved is what `routelens alerts --list` reads.
 *
 * Its own `routelens serve` over its own database: the rules it writes stay out of the shared one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../electron/server/serve.ts';
import { AppPage } from './pages/AppPage.ts';
import { SHOTS_DIR } from './pages/viewShot.ts';
import { cli } from './serveProcess.ts';
import { expect, test as base } from './fixtures.ts';

const test = base.extend<object, { rulesDb: { server: RunningServer; dbPath: string } }>({
  rulesDb: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-alerts-'));
      const dbPath = join(dir, 'alerts.db');
      cli(['import', 'fixtures/canonical/example.jsonl', '--db', dbPath], 120_000);
      cli(['alerts', '--db', dbPath, '--add', 'cost>10']);
      const server = await startServer({ dbPath });
      await use({ server, dbPath });
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  app: async ({ page, rulesDb }, use) => use(new AppPage(page, rulesDb.server.url)),
});

test('alert rules: checked as typed, added, turned off and removed; the CLI reads what the window saved', async ({ app, page, rulesDb }) => {
  await app.open('#/runs');
  const dialog = page.getByTestId('alert-rules-dialog');
  const rows = dialog.getByTestId('alert-rule-row');
  const input = dialog.getByTestId('alert-rule-input');
  const feedback = dialog.getByTestId('alert-rule-feedback');
  const add = dialog.getByTestId('alert-rule-add');
  // The dialog covers the theme button: each picture opens it afresh in its theme and size.
  for (const size of [{ width: 1440, height: 900 }, { width: 1024, height: 700 }]) {
    await page.setViewportSize(size);
    for (const theme of ['light', 'dark'] as const) {
      await app.setTheme(theme);
      await page.getByTestId('alert-rules-button').click();
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toContainText('more than $10 spent so far');
      await input.fill('rate > 5/x');
      await expect(feedback).toHaveText('Column 10: expected a time unit after "/" (m, h or d), found "x"');
      await expect(input).toHaveAttribute('aria-invalid', 'true');
      await expect(add).toBeDisabled();
      await page.screenshot({ path: `${SHOTS_DIR}alert-rules-${size.width}-${theme}.png` });
      await page.keyboard.press('Escape');
      await expect(dialog).toHaveCount(0);
    }
  }

  await page.getByTestId('alert-rules-button').click();
  await input.fill('Model ~ Opus  streak > 20');
  await expect(feedback).toHaveText('model~opus streak>20: fires once per episode with more than 20 calls in a row to models matching "opus".');
  await input.press('Enter');
  await expect(rows).toHaveCount(2);
  await expect(input).toHaveValue('');
  const opus = dialog.locator('[data-rule="model~opus streak>20"]');
  await opus.getByTestId('alert-rule-toggle').uncheck();
  await expect(opus).toContainText('· off');
  expect(cli(['alerts', '--db', rulesDb.dbPath, '--list'])).toContain('  on   cost>10\n  off  model~opus streak>20\n');

  await dialog.locator('[data-rule="cost>10"]').getByTestId('alert-rule-remove').click();
  await expect(rows).toHaveCount(1);
  expect(cli(['alerts', '--db', rulesDb.dbPath, '--list'])).not.toContain('cost>10');
});
