/** Screenshots of every view in both themes, saved to test-results/screenshots/ for a person to look at. */
import { fileURLToPath } from 'node:url';
import { expect, test } from './fixtures.ts';

const shots = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));

for (const theme of ['light', 'dark'] as const) {
  test(`every view in the ${theme} theme`, async ({ app, runs, episodes, inspector, page }) => {
    await app.open('#/runs');
    await app.setTheme(theme);
    await runs.waitReady();
    await page.screenshot({ path: `${shots}runs-${theme}.png` });

    await app.rail('episodes').click();
    await episodes.waitReady();
    await page.screenshot({ path: `${shots}episodes-${theme}.png` });

    await episodes.searchFor('long_0');
    await episodes.row('long_0').click();
    await inspector.waitReady();
    await page.keyboard.press('n');
    await page.keyboard.press('n');
    await page.keyboard.press('n');
    await inspector.expectTurn(22);
    await page.screenshot({ path: `${shots}inspector-${theme}.png` });

    await app.open('#/runs');
    await app.rail('episodes').click();
    await episodes.searchFor('hostile_0');
    await episodes.row('hostile_0').click();
    await inspector.waitReady();
    await page.keyboard.press('j');
    await inspector.expectTurn(1);
    await page.screenshot({ path: `${shots}inspector-errors-${theme}.png` });
    await page.keyboard.press('j');
    await inspector.expectTurn(2);
    await page.getByTestId('turn-detail-scroll').evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await page.screenshot({ path: `${shots}inspector-long-text-${theme}.png` });
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
  });
}
