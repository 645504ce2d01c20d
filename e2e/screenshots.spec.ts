/**
 * Screenshots of every view in both themes, saved to test-results/screenshots/ for a person to look at; on the way,
 * each view's words are checked (pages/windowWords.ts: no "DESIGN §", "S̃" or "S_t"; a penalty says what it takes
 * off the score). A view is reached once and shot in both themes switched in place (pages/viewShot.ts). Each
 * analysis page's pair and words are taken on its visit in analyses.spec.ts, Compare's in compare.spec.ts.
 */
import { expect, test } from './fixtures.ts';
import { EstimatorPage, SCORED_RUN, WhatIfPage } from './pages/EstimatorPage.ts';
import { PolicyLabPage, StepDebuggerPage } from './pages/PolicyLabPage.ts';
import { SHOTS_DIR as shots, inBothThemes, viewInBothThemes } from './pages/viewShot.ts';
import { expectPlainWords } from './pages/windowWords.ts';

test('every view in both themes, in plain words', async ({ app, runs, episodes, inspector, page }) => {
  const shot = (name: string) => inBothThemes(app, (theme) => page.screenshot({ path: `${shots}${name}-${theme}.png` }));
  await app.open('#/runs');
  await runs.waitReady();
  await expectPlainWords(page, 'Runs');
  await shot('runs');

  await app.rail('episodes').click();
  await episodes.waitReady();
  await expectPlainWords(page, 'Episodes');
  await shot('episodes');

  await page.getByTestId('rail-analyses').click();
  await expect(page.getByTestId('analysis-card').first()).toBeVisible();
  await expectPlainWords(page, 'Analyses');
  await shot('analyses');
  await app.rail('episodes').click();
  await episodes.waitReady();

  await episodes.searchFor('long_0');
  await episodes.row('long_0').click();
  await inspector.waitReady();
  await page.keyboard.press('n');
  await page.keyboard.press('n');
  await page.keyboard.press('n');
  await inspector.expectTurn(22);
  await shot('inspector');

  await app.open('#/runs');
  await app.rail('episodes').click();
  await episodes.searchFor('hostile_0');
  await episodes.row('hostile_0').click();
  await inspector.waitReady();
  await page.keyboard.press('j');
  await inspector.expectTurn(1);
  await shot('inspector-errors');
  await page.keyboard.press('j');
  await inspector.expectTurn(2);
  await page.getByTestId('turn-detail-scroll').evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
  await shot('inspector-long-text');
});

test('the policy lab and the step debugger in both themes, in plain words', async ({ app, inspector, page }) => {
  test.setTimeout(60_000);
  await app.open('#/policy');
  await app.selectRuns(['sw-mtrouter', 'sw-random']);
  const lab = new PolicyLabPage(page);
  await lab.choosePolicies(['logged', 'argmax', 'cost-aware:10', 'cheapest', 'random:1']);
  await lab.replay();
  await lab.compare('logged', 'argmax');
  await expectPlainWords(page, 'the policy lab');
  await viewInBothThemes(app, 'policy-lab');

  await app.open('#/runs');
  const id = await app.episodeId('long_0');
  await app.open(`#/episode/${id}/turn/0`);
  await inspector.waitReady();
  const dbg = new StepDebuggerPage(page);
  await dbg.breakOn(['error', 'regret']);
  await page.keyboard.press('c');
  await expect(dbg.panel).toHaveAttribute('data-stop', 'breakpoint');
  await expect(page.getByTestId('debugger-candidate').first()).toBeVisible();
  await inBothThemes(app, (theme) => page.screenshot({ path: `${shots}inspector-debugger-${theme}.png` }));
});

test('the estimator view and the what-if panel in both themes, in plain words', async ({ app, inspector, page }) => {
  test.setTimeout(90_000);
  const est = new EstimatorPage(page);
  await app.open('#/estimator');
  await app.selectRuns([SCORED_RUN]);
  await est.waitReady();
  await est.waitFigure(est.calibration);
  await est.waitFigure(est.embeddings);
  await expectPlainWords(page, 'the estimator view');
  await viewInBothThemes(app, 'estimator', { maxHeight: 3000 });

  // An episode with errors, at a turn with an error: targets and penalties are shown there.
  const id = await app.episodeId('long_0');
  await app.open(`#/episode/${id}/turn/7`);
  await inspector.waitReady();
  await expectPlainWords(page, 'the inspector');
  await new WhatIfPage(page).open();
  await expectPlainWords(page, 'the what-if panel');
  await inBothThemes(app, (theme) => page.screenshot({ path: `${shots}inspector-whatif-${theme}.png` }));
});
