/** Screenshots of every view in both themes, saved to test-results/screenshots/ for a person to look at. */
import { fileURLToPath } from 'node:url';
import { ANALYSIS_IDS } from '../shared/analysisResults.ts';
import { expect, test } from './fixtures.ts';
import { RUNS_FOR } from './pages/AnalysesPage.ts';
import { EstimatorPage, SCORED_RUN, WhatIfPage } from './pages/EstimatorPage.ts';
import { PolicyLabPage, StepDebuggerPage } from './pages/PolicyLabPage.ts';

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

for (const theme of ['light', 'dark'] as const) {
  test(`every analysis page in the ${theme} theme`, async ({ app, analyses, page }) => {
    test.setTimeout(120_000);
    await app.open('#/analyses');
    await app.setTheme(theme);
    await expect(analyses.cards.first()).toBeVisible();
    await page.screenshot({ path: `${shots}analyses-${theme}.png` });
    for (const id of ANALYSIS_IDS) {
      await app.open(`#/analyses/${id}`);
      await app.selectRuns(RUNS_FOR[id] ?? []);
      await analyses.waitFigure();
      if (id === 'plan-dag') await analyses.waitFigure('episode');
      // Tall figures: grow the window to the page's height so one screenshot holds all of it.
      const height = await page.getByTestId('view').evaluate((el) => el.scrollHeight + 48);
      await page.setViewportSize({ width: 1440, height: Math.min(2400, Math.max(900, height)) });
      await page.screenshot({ path: `${shots}analysis-${id}-${theme}.png` });
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  });
}

for (const theme of ['light', 'dark'] as const) {
  test(`the policy lab and the step debugger in the ${theme} theme`, async ({ app, inspector, page }) => {
    test.setTimeout(60_000);
    await app.open('#/policy');
    await app.setTheme(theme);
    await app.selectRuns(['sw-mtrouter', 'sw-random']);
    const lab = new PolicyLabPage(page);
    await lab.choosePolicies(['logged', 'argmax', 'cost-aware:10', 'cheapest', 'random:1']);
    await lab.replay();
    await lab.compare('logged', 'argmax');
    const height = await page.getByTestId('view').evaluate((el) => el.scrollHeight + 48);
    await page.setViewportSize({ width: 1440, height: Math.min(2400, Math.max(900, height)) });
    await page.screenshot({ path: `${shots}policy-lab-${theme}.png` });
    await page.setViewportSize({ width: 1440, height: 900 });

    await app.open('#/runs');
    const id = await app.episodeId('long_0');
    await app.open(`#/episode/${id}/turn/0`);
    await inspector.waitReady();
    const dbg = new StepDebuggerPage(page);
    await dbg.breakOn(['error', 'regret']);
    await page.keyboard.press('c');
    await expect(dbg.panel).toHaveAttribute('data-stop', 'breakpoint');
    await expect(page.getByTestId('debugger-candidate').first()).toBeVisible();
    await page.screenshot({ path: `${shots}inspector-debugger-${theme}.png` });
  });
}

for (const theme of ['light', 'dark'] as const) {
  test(`the estimator view and the what-if panel in the ${theme} theme`, async ({ app, inspector, page }) => {
    test.setTimeout(90_000);
    const est = new EstimatorPage(page);
    await app.open('#/estimator');
    await app.setTheme(theme);
    await app.selectRuns([SCORED_RUN]);
    await est.waitReady();
    await est.waitFigure(est.calibration);
    await est.waitFigure(est.embeddings);
    const height = await page.getByTestId('view').evaluate((el) => el.scrollHeight + 48);
    await page.setViewportSize({ width: 1440, height: Math.min(3000, Math.max(900, height)) });
    await page.screenshot({ path: `${shots}estimator-${theme}.png` });
    await page.setViewportSize({ width: 1440, height: 900 });

    const id = await app.episodeId('long_0');
    await app.open(`#/episode/${id}/turn/7`);
    await inspector.waitReady();
    await new WhatIfPage(page).open();
    await page.screenshot({ path: `${shots}inspector-whatif-${theme}.png` });
  });
}
