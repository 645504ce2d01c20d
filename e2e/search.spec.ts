/**
 * Full-text search leads to the match: each hit in the Episodes list says which turn matched and shows the
 * text around the hit; opening it goes to that turn with the words marked (fixtures/canonical/example.jsonl:
 * `handworked` logs "ValueError: bad" at turn 1 and markup at turn 4; e2e/fixtures/hostile.jsonl: `hostile_0`).
 */
import { expect, test } from './fixtures.ts';

test('a hit shows its turn and the text around it, and opens that turn with the words marked', async ({ app, episodes, inspector, page }) => {
  await app.open('#/episodes');
  await episodes.waitReady();
  await episodes.searchFor('valueerror');
  const row = episodes.row('handworked');
  const match = row.getByTestId('search-match');
  await expect(match).toHaveAttribute('data-turn', '1');
  await expect(match).toContainText('Turn 1 · observation');
  await expect(match.getByTestId('search-snippet')).toContainText('ValueError: bad');
  await expect(match.locator('mark')).toHaveText(['ValueError']);

  await row.click();
  await inspector.waitReady();
  await inspector.expectTurn(1);
  expect(new URL(page.url()).hash).toMatch(/^#\/episode\/\d+\/turn\/1\?q=valueerror&at=observation$/);
  const marks = inspector.detail.locator('mark.search-hit');
  await expect(marks.first()).toHaveText('ValueError');
  await expect(marks.first()).toBeInViewport();

  // Stepping on keeps the search in the link, so the next turn that holds it is marked too.
  await page.keyboard.press('j');
  await inspector.expectTurn(2);
  expect(page.url()).toContain('?q=valueerror');
});

test('a snippet of log markup is text, the hit alone marked', async ({ app, episodes, page }) => {
  await app.open('#/episodes');
  await episodes.searchFor('onerror');
  const snippet = episodes.row('hostile_0').getByTestId('search-snippet');
  await expect(snippet).toContainText('<img src=x onerror=alert(1)>');
  await expect(snippet.locator('mark')).toHaveText(['onerror']);
  await expect(snippet.locator('img, a, script, style')).toHaveCount(0);
  await expect(page.locator('.episodes-view img')).toHaveCount(0);
});

test('an episode found by its id opens at its start, with nothing to mark', async ({ app, episodes, inspector, page }) => {
  await app.open('#/episodes');
  await episodes.searchFor('handwork');
  const row = episodes.row('handworked');
  await expect(row.getByTestId('search-match')).toHaveAttribute('data-turn', '');
  await expect(row.getByTestId('search-match')).toContainText("id matches");
  await row.click();
  await inspector.waitReady();
  await inspector.expectTurn(0);
  expect(page.url()).not.toContain('?q=');
  await expect(inspector.detail.locator('mark.search-hit')).toHaveCount(0);
});

test('links from before the search still open their turn', async ({ app, inspector }) => {
  await app.open('#/runs');
  const id = await app.episodeId('handworked');
  await app.open(`#/episode/${id}/turn/1`);
  await inspector.waitReady();
  await inspector.expectTurn(1);
  await expect(inspector.detail.locator('mark.search-hit')).toHaveCount(0);
  // And a link with a search marks it.
  await app.open(`#/episode/${id}/turn/1?q=bad`);
  await inspector.waitReady();
  await expect(inspector.detail.locator('mark.search-hit').first()).toHaveText(/^bad$/i);
});
