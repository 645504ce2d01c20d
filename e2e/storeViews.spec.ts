/**
 * The window served from a ClickHouse store (the `store` project): it names the store, offers no import, says which
 * views need a SQLite file and why (instead of failing in them), and every view is saved to
 * test-results/screenshots/store-*.png for a person to look at.
 */
import { fileURLToPath } from 'node:url';
import { expect, test } from './fixtures.ts';

const shots = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));

test('the window on a store names it, and says which views need a SQLite file', async ({ app, runs, episodes, inspector, analyses, page }, testInfo) => {
  test.skip(testInfo.project.name !== 'store', 'the window on a ClickHouse store: the store project only');
  test.setTimeout(120_000);
  await app.open('#/runs');
  await runs.waitReady();
  await expect(app.dbName).toContainText(/ClickHouse routelens_e2e · 2 shards/);
  await expect(page.getByTestId('import-open')).toHaveCount(0);
  await page.screenshot({ path: `${shots}store-runs.png` });
  await app.rail('episodes').click();
  await episodes.waitReady();
  await page.screenshot({ path: `${shots}store-episodes.png` });
  await episodes.searchFor('error');
  await page.screenshot({ path: `${shots}store-search.png` });
  await episodes.rows.first().click();
  await inspector.waitReady();
  await page.screenshot({ path: `${shots}store-inspector.png` });
  await inspector.openDebugger();
  await expect(page.getByTestId('debugger-store-note')).toContainText('ClickHouse store');
  await page.keyboard.press('w');
  await expect(page.getByTestId('whatif-store-note')).toContainText('open a SQLite database');
  await page.screenshot({ path: `${shots}store-whatif.png`, fullPage: true });
  await app.open('#/analyses/pareto');
  await analyses.waitFigure();
  await page.screenshot({ path: `${shots}store-pareto.png` });
  for (const view of ['estimator', 'policy'] as const) {
    await app.open(`#/${view}`);
    await expect(page.getByTestId('not-on-store')).toContainText('needs a SQLite database');
    await page.screenshot({ path: `${shots}store-${view}.png` });
  }
});
