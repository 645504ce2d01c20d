/**
 * Words a user knows: outcome badges read in words. That no view says "DESIGN §", "S̃" or "S_t" and that a
 * penalty says what it takes off the score (pages/windowWords.ts) is checked where each view is visited anyway:
 * screenshots.spec.ts (every view), analyses.spec.ts (each analysis page), compare.spec.ts (a comparison shown).
 */
import { expect, test } from './fixtures.ts';

test('outcome badges read success, failure or score', async ({ app, page }) => {
  await app.open('#/episodes');
  const badges = page.getByTestId('episodes-table').getByTestId('outcome');
  await expect(badges.first()).toBeVisible();
  for (const text of await badges.allInnerTexts()) expect(text.trim()).toMatch(/^(success|failure|no outcome)?\s*(score -?[\d.,]+)?$/);
  const id = await app.episodeId('long_0');
  await app.open(`#/episode/${id}`);
  const header = page.getByTestId('episode-header').getByTestId('outcome');
  await expect(header).toHaveText(/^success( score -?[\d.,]+)?$/);
  await expect(header).toHaveAttribute('title', /success/);
});
