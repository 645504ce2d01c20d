/**
 * Screenshots of every view in both themes, saved to test-results/screenshots/ for a person to look at. Each
 * analysis page's pair is taken on its visit in analyses.spec.ts.
 */
import { expect, test } from './fixtures.ts';
import { EstimatorPage, SCORED_RUN, WhatIfPage } from './pages/EstimatorPage.ts';
import { PolicyLabPage, StepDebuggerPage } from './pages/PolicyLabPage.ts';
import { SHOTS_DIR as shots, shotOfView } from './pages/viewShot.ts';

for (const theme of ['light', 'dark'] as const) {
  test(`every view in the ${theme} theme`, async ({ app, runs, episodes, inspector, page }) => {
    await app.open('#/runs');
    await app.setTheme(theme);
    await runs.waitReady();
    await page.screenshot({ path: `${shots}runs-${theme}.png` });

    await app.rail('episodes').click();
    await episodes.waitReady();
    await page.screenshot({ path: `${shots}episodes-${theme}.png` });

    await page.getByTestId('rail-analyses').click();
    await expect(page.getByTestId('analysis-card').first()).toBeVisible();
    await page.screenshot({ path: `${shots}analyses-${theme}.png` });
    await app.rail('episodes').click();
    await episodes.waitReady();

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
  test(`the policy lab and the step debugger in the ${theme} theme`, async ({ app, inspector, page }) => {
    test.setTimeout(60_000);
    await app.open('#/policy');
    await app.setTheme(theme);
    await app.selectRuns(['sw-mtrouter', 'sw-random']);
    const lab = new PolicyLabPage(page);
    await lab.choosePolicies(['logged', 'argmax', 'cost-aware:10', 'cheapest', 'random:1']);
    await lab.replay();
    await lab.compare('logged', 'argmax');
    await shotOfView(page, `policy-lab-${theme}`);

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
    await shotOfView(page, `estimator-${theme}`, 3000);

    const id = await app.episodeId('long_0');
    await app.open(`#/episode/${id}/turn/7`);
    await inspector.waitReady();
    await new WhatIfPage(page).open();
    await page.screenshot({ path: `${shots}inspector-whatif-${theme}.png` });
  });
}
