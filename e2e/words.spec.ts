/**
 * Words a user knows: walking every view, the window never shows "DESIGN §", "S̃" or "S_t" (text, tooltips or
 * labels), and every mention of a penalty outside a figure says, in its sentence or its tooltip, what it takes off
 * the score (pages/windowWords.ts); outcome badges read in words. Each analysis page's words, and its one sentence
 * on what it shows, are checked on its visit in analyses.spec.ts.
 */
import { expect, test } from './fixtures.ts';
import { expectPlainWords } from './pages/windowWords.ts';

test('no view speaks in design-document or formula jargon', async ({ app, page }) => {
  for (const hash of ['#/runs', '#/episodes', '#/analyses', '#/estimator', '#/policy', '#/compare']) {
    await app.open(hash);
    await page.waitForLoadState('networkidle');
    await expectPlainWords(page, hash);
  }
  // An episode with errors, at a turn with an error: targets and penalties are shown there.
  const id = await app.episodeId('long_0');
  await app.open(`#/episode/${id}/turn/7`);
  await page.getByTestId('turn-detail').waitFor();
  await page.waitForLoadState('networkidle');
  await expectPlainWords(page, 'the inspector');
});

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
