/** The command palette (Ctrl/⌘+K), the shortcut help (?) and `/` for search, on the e2e database. */
import { expect, test } from './fixtures.ts';
import { PalettePage } from './pages/PalettePage.ts';

test('goes to views, analyses and episodes by number or by their id from the log', async ({ app, episodes, inspector, page }) => {
  const palette = new PalettePage(page);
  await app.open('#/runs');
  const id = await app.episodeId('long_0');

  await palette.open();
  await palette.choose('episodes', 'view-episodes');
  await episodes.waitReady();

  await palette.open();
  await palette.choose('pareto', 'analysis-pareto');
  await expect(page).toHaveURL(/#\/analyses\/pareto$/);

  await palette.open();
  await palette.choose(`#${id}`, `episode-${id}`);
  await inspector.waitReady();
  await expect(inspector.title).toHaveText('long_0');

  await palette.open();
  await palette.input.fill('handwork');
  const found = palette.item(`episode-ext-${await app.episodeId('handworked')}`);
  await expect(found).toContainText('handworked');
  await found.click();
  await expect(inspector.title).toHaveText('handworked');

  // An id typed exactly is what Enter opens, though the lookup by id answers after the rest is listed.
  await palette.open();
  await palette.choose('long_0', `episode-ext-${id}`);
  await expect(inspector.title).toHaveText('long_0');
});

test('selects a run or opens its episodes, and runs the actions', async ({ app, episodes, page }) => {
  const palette = new PalettePage(page);
  await app.open('#/runs');
  const runs = (await (await page.request.post(`${new URL(page.url()).origin}/api/listRuns`, { data: {} })).json()) as {
    value: { id: number; name: string; episodes: number }[];
  };
  const hostile = runs.value.find((r) => r.name === 'e2e-hostile-text');
  expect(hostile).toBeDefined();

  await palette.open();
  await palette.choose('e2e-hostile-text select', `run-select-${hostile?.id}`);
  await expect(page).toHaveURL(new RegExp(`[?&]runs=${hostile?.id}$`));
  await expect(page.getByTestId('runs-view')).toBeVisible();

  await palette.open();
  await palette.choose('all runs', 'runs-all');
  await expect(page).not.toHaveURL(/runs=/);

  await palette.open();
  await palette.choose('episodes of e2e-hostile', `run-open-${hostile?.id}`);
  await episodes.waitReady();
  expect(await episodes.matchCount()).toBe(hostile?.episodes);

  const theme = await app.themeToggle.getAttribute('data-theme');
  await palette.open();
  await palette.choose('theme', 'action-theme');
  await expect(app.themeToggle).not.toHaveAttribute('data-theme', theme ?? '');

  await palette.open();
  await palette.choose('import', 'action-import');
  await expect(page.getByTestId('import-dialog')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('import-dialog')).toBeHidden();

  // The top bar's button opens it too; Escape closes it where it was.
  await page.getByTestId('palette-button').click();
  await expect(palette.dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(palette.dialog).toBeHidden();
});

test('? lists every key, and holds the view still while it is open', async ({ app, inspector, page }) => {
  const palette = new PalettePage(page);
  await app.open('#/runs');
  const id = await app.episodeId('long_0');
  await app.open(`#/episode/${id}/turn/3`);
  await inspector.waitReady();

  await page.keyboard.press('?');
  await expect(palette.help).toBeVisible();
  for (const [keys, what] of [
    ['Ctrl+K', 'Command palette: views, runs, episodes by id, analyses, actions'],
    ['?', 'This list of keys'],
    ['/', 'Search the turns of episodes (opens the Episodes view)'],
    ['j or ↓ or →', 'Next turn'],
    ['Shift+N', 'Previous turn with an error'],
    ['s', 'Next model switch'],
  ] as const) {
    // The first: the pair view lists the inspector's stepping keys again, in its own group below.
    await expect(palette.helpRows.filter({ has: page.locator('dd').getByText(what, { exact: true }) }).locator('dt').first()).toHaveText(keys);
  }
  await page.keyboard.press('j');
  await inspector.expectTurn(3);
  await page.keyboard.press('Escape');
  await expect(palette.help).toBeHidden();
  await page.keyboard.press('j');
  await inspector.expectTurn(4);

  // The palette offers the same list.
  await palette.open();
  await palette.choose('keyboard', 'action-help');
  await expect(palette.help).toBeVisible();
});

test('/ goes to the search box, and keys typed into a field stay text', async ({ app, episodes, page }) => {
  const palette = new PalettePage(page);
  await app.open('#/runs');
  await page.keyboard.press('/');
  await episodes.waitReady();
  await expect(episodes.search).toBeFocused();

  await page.keyboard.type('a/b?j');
  await expect(episodes.search).toHaveValue('a/b?j');
  await expect(palette.help).toBeHidden();

  // Ctrl+K types nothing, so it opens the palette from the field.
  await page.keyboard.press('Control+k');
  await expect(palette.dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(palette.dialog).toBeHidden();
});
