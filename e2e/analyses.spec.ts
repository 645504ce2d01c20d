/**
 * The Analyses pages against the e2e database (fixtures plus small simulated runs of every kind, see
 * globalSetup): each page says in one sentence what it shows and which paper figure, in words a user knows;
 * every analysis draws a figure, hover tells exact values with n, marks lead to episodes and turns, and every
 * export format downloads a file. Each page's visit also leaves its screenshot in both themes (one walk, not three:
 * issue 39).
 */
import { readFileSync } from 'node:fs';
import { ANALYSIS_IDS } from '../shared/analysisResults.ts';
import { ANALYSIS_PAGES } from '../renderer/views/analyses/catalog.ts';
import { expect, test } from './fixtures.ts';
import { RUNS_FOR } from './pages/AnalysesPage.ts';
import { viewInBothThemes } from './pages/viewShot.ts';
import { expectPlainWords } from './pages/windowWords.ts';

test('the index has a card per analysis that opens its page', async ({ app, analyses, page }) => {
  await app.open('#/analyses');
  await expect(analyses.cards).toHaveCount(ANALYSIS_IDS.length);
  for (const id of ANALYSIS_IDS) await expect(analyses.cards.and(page.locator(`[data-analysis="${id}"]`))).toHaveCount(1);
  await analyses.cards.and(page.locator('[data-analysis="lift"]')).click();
  await expect(page).toHaveURL(/#\/analyses\/lift$/);
  await expect(analyses.view).toHaveAttribute('data-analysis', 'lift');
});

for (const { id, summary } of ANALYSIS_PAGES) {
  test.describe(id, () => {
    test(`${id}: says what it shows in plain words, draws a figure whose marks tell their values and n on hover`, async ({ app, analyses, page }) => {
      // A page computes its figure over every run first, then over the runs chosen, and is drawn in both themes.
      test.setTimeout(60_000);
      await app.open(`#/analyses/${id}`);
      await app.setTheme('light');
      const said = page.getByTestId('analysis-summary');
      await expect(said).toHaveText(summary);
      const text = (await said.textContent()) ?? '';
      expect(text.match(/(?<!\b(?:Fig|Tab|Eq|App))\.\s+[A-Z]/g), `${id}: more than one sentence`).toBeNull();
      expect(text).toMatch(/Fig\. \d|Tables? \d|Tab\. \d|§\d|no paper/);
      if (id !== 'targets') await analyses.waitFigure('main', true);
      await expectPlainWords(page, `analysis ${id} over every run`);

      await app.selectRuns(RUNS_FOR[id] ?? []);
      await analyses.waitFigure();
      if (id === 'plan-dag') await analyses.waitFigure('episode');
      expect(await analyses.marks().count()).toBeGreaterThan(0);
      await expectPlainWords(page, `analysis ${id}`);
      await viewInBothThemes(app, `analysis-${id}`, { settle: () => analyses.waitFigure() });
      // A turn of one episode has no n; every other mark counts what it summarises.
      const mark = await analyses.markWith(id === 'targets' ? 'turn' : 'n = ');
      await analyses.hover(mark);
      await expect(analyses.tooltip).toContainText(id === 'targets' ? /turn/ : /n = [\d,]+/);
      // Keyboard: the figure is one tab stop, arrows walk its marks and show the same tooltip.
      await analyses.marks().first().focus();
      await expect(analyses.tooltip).toBeVisible();
    });
  });
}

test('a lift cell opens the episodes that used that model, filtered and labelled', async ({ app, analyses, episodes, page }) => {
  await app.open('#/analyses/lift');
  await app.selectRuns(RUNS_FOR.lift ?? []);
  await analyses.waitFigure();
  const cell = analyses.panel().locator('[data-mark][data-role="cell"]').first();
  const label = (await cell.getAttribute('aria-label')) ?? '';
  const model = label.split(' · ')[0] ?? '';
  expect(model).not.toBe('');
  await cell.click();
  await episodes.waitReady();
  await expect(page).toHaveURL(/#\/episodes/);
  await expect(page.getByTestId('episodes-origin')).toContainText(model);
  await expect(page.getByTestId('model-filter')).toContainText(model);
  expect(await episodes.matchCount()).toBeGreaterThan(0);
  for (const row of (await episodes.rows.all()).slice(0, 20)) await expect(row.locator(`[data-model="${model}"]`)).toHaveCount(1);
});

test('a plan-DAG node opens the turn that planned it', async ({ app, analyses, inspector, page }) => {
  await app.open('#/analyses/plan-dag');
  await app.selectRuns(RUNS_FOR['plan-dag'] ?? []);
  await analyses.waitFigure();
  await analyses.waitFigure('episode');
  const node = analyses.panel('episode').locator('[data-mark][role="link"]').first();
  await node.click();
  await inspector.waitReady();
  await expect(page).toHaveURL(/#\/episode\/\d+\/turn\/\d+/);
});

test('every export format downloads a non-empty file of its kind', async ({ app, analyses }) => {
  test.setTimeout(60_000);
  await app.open('#/analyses/pareto');
  await analyses.waitFigure();
  const expected = {
    svg: { ext: /\.svg$/, head: '<?xml' },
    png2x: { ext: /\.png$/, head: '\u0089PNG' },
    pngdpi: { ext: /\.png$/, head: '\u0089PNG' },
    pdf: { ext: /\.pdf$/, head: '%PDF' },
    csv: { ext: /\.csv$/, head: '' },
  } as const;
  for (const [choice, want] of Object.entries(expected) as [keyof typeof expected, (typeof expected)[keyof typeof expected]][]) {
    const download = await analyses.exportAs(choice, 'main', choice === 'pngdpi' ? 150 : undefined);
    expect(download.suggestedFilename()).toMatch(want.ext);
    const path = await download.path();
    const bytes = readFileSync(path);
    expect(bytes.length, choice).toBeGreaterThan(50);
    expect(bytes.subarray(0, want.head.length).toString('latin1')).toBe(want.head);
  }
});

test('budget modes without CoRL runs say how to make some', async ({ app, analyses, page }) => {
  await app.open('#/analyses/budget-modes');
  await app.selectRuns(['sw-router-demo']);
  await analyses.waitFigure('main', true);
  await expect(analyses.panel()).toHaveAttribute('data-state', 'empty');
  await expect(page.getByTestId('figure-empty')).toContainText('routelens simulate --preset corl');
});
