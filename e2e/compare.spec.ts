/**
 * The Compare view on the e2e database. sw-mtrouter shares three task ids with sw-random, sw-gpt-5 and
 * sw-minimax-m2 together (fixtures/mtrouter/scienceworld): a paired comparison of a run against a group. The
 * Claude Code session (with subagents) against the Codex rollout (a model without a price) has no outcomes:
 * only cost and behaviour are compared, and unknown costs show as '—'.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures.ts';
import { ComparePage } from './pages/ComparePage.ts';
import { expectPlainWords } from './pages/windowWords.ts';

const GROUP = ['sw-random', 'sw-gpt-5', 'sw-minimax-m2'];

test('a run against a group: pairing, paired statistics, cost by model, counterfactual, figures and their export', async ({ app, page }) => {
  const cmp = new ComparePage(page);
  await app.open('#/compare');
  await expect(page.getByTestId('compare-form-message')).toContainText('Choose at least one run for A.');
  await cmp.chooseRuns('a', ['sw-mtrouter']);
  await cmp.chooseRuns('b', GROUP);
  await page.getByTestId('compare-counterfactual').selectOption('gpt-5');
  await cmp.compare();

  await expect(page.getByTestId('paired-count')).toHaveText('3 paired tasks');
  await expect(page.getByTestId('unpaired-A')).toContainText('15 tasks only on A');
  await expect(page.getByTestId('compare-summary-b')).toContainText('3 runs: sw-random, sw-gpt-5, sw-minimax-m2');
  // B succeeds on one task A fails, and they agree on the other two: +33.3 pp, exact McNemar p = 1.
  await expect(page.getByTestId('stat-success')).toContainText('+33.3 pp');
  await expect(page.getByTestId('stat-success')).toContainText('exact McNemar p = 1');
  await expect(page.getByTestId('stat-wins')).toContainText('A 0 · tie 2 · B 1');
  await expect(page.getByTestId('no-outcomes')).toHaveCount(0);
  await expect(page.getByTestId('attribution-a').locator('[data-model="gpt-5"][data-scope="main"]')).toBeVisible();
  await expect(page.getByTestId('counterfactual-assumption')).not.toBeEmpty();

  await expect(cmp.figure('paired-scatter').locator('[data-role="point"]')).toHaveCount(3);
  await expect(cmp.figure('cost-diff').locator('[data-role="bar"]').first()).toBeVisible();
  await expect(cmp.figure('model-cost').locator('[data-role="bar-main"]').first()).toBeVisible();
  for (const [kind, header] of [['csv', /^task_id,a_score,b_score/], ['svg', /^<\?xml/], ['pdf', /^%PDF-/]] as const) {
    await cmp.figure('paired-scatter').getByTestId('export-menu').click();
    const download = page.waitForEvent('download');
    await page.getByTestId(`export-${kind}`).click();
    const file = await download;
    // Named like an analysis figure: what, which sides, which day.
    expect(file.suggestedFilename()).toMatch(new RegExp(`^compare-paired-scatter_sw-mtrouter-vs-sw-random[\\w.+-]*_\\d{4}-\\d{2}-\\d{2}\\.${kind}$`));
    const text = readFileSync(await file.path(), 'latin1');
    expect(text).toMatch(header);
    if (kind === 'svg') expect(text).toContain('Per-task score, B against A: A = sw-mtrouter'); // the caption
    if (kind === 'pdf') expect(text).not.toContain('/Subtype /Image'); // drawn, not a picture of the figure
    if (kind === 'csv') expect(text.trim().split('\r\n')).toHaveLength(4);
  }
  await cmp.figure('cost-diff').getByTestId('export-menu').click();
  const png = page.waitForEvent('download');
  await page.getByTestId('export-png2x').click();
  expect(readFileSync(await (await png).path()).subarray(1, 4).toString()).toBe('PNG');

  // The table: every paired task, the counterfactual columns, filters and sorting by a delta.
  await expect(cmp.taskRows).toHaveCount(3);
  await expect(cmp.taskRows.first().locator('[data-col="a_counterfactual_cost"]')).toContainText('$');
  await page.getByTestId('task-filter-b').click();
  await expect(cmp.taskRows).toHaveCount(1);
  await page.getByTestId('task-filter-all').click();
  const sortBy = page.getByTestId('task-col-d_cost');
  const shownDeltas = async () =>
    (await cmp.taskRows.locator('[data-col="d_cost"]').allTextContents()).map((c) => Number(c.replace('−', '-').replace(/[$+]/g, '')));
  await sortBy.getByRole('button').click();
  await expect(sortBy).toHaveAttribute('aria-sort', 'descending');
  expect(await shownDeltas()).toEqual([0.0286, 0.021, -0.00871]);
  await sortBy.getByRole('button').click();
  await expect(sortBy).toHaveAttribute('aria-sort', 'ascending');
  expect(await shownDeltas()).toEqual([-0.00871, 0.021, 0.0286]);

  // A row opens the split inspector on the task's two episodes.
  const row = cmp.taskRows.first();
  const [a, b] = [await row.getAttribute('data-a-episode'), await row.getAttribute('data-b-episode')];
  await row.click();
  await expect(page).toHaveURL(new RegExp(`#/pair/${a}/${b}(/turn/\\d+)?$`));
  await page.goBack();
  await expect(cmp.taskRows).toHaveCount(3);
  // So does a point of the paired scatter.
  await cmp.figure('paired-scatter').locator('[data-role="point"]').first().dispatchEvent('click');
  await expect(page).toHaveURL(/#\/pair\/\d+\/\d+(\/turn\/\d+)?$/);
});

test('two sessions without outcomes: only cost and behaviour, subagents apart, unknown cost as —', async ({ app, page }) => {
  const cmp = new ComparePage(page);
  await app.open('#/compare');
  await cmp.chooseRuns('a', ['claude-code/spotter']);
  await cmp.chooseRuns('b', ['codex/claude-code']);
  await cmp.compare();
  await expect(page.getByTestId('no-outcomes')).toHaveText('No outcomes: only cost and behaviour are compared.');
  await expect(page.getByTestId('stat-success')).toHaveCount(0);
  await expect(page.getByTestId('attribution-a').locator('[data-scope="subagent"]').first()).toBeVisible();
  await expect(page.getByTestId('attribution-b').locator('[data-model="aide-gpt-5"] [data-col="cost"]')).toHaveText('—');
  await expect(page.getByTestId('compare-summary-b').getByTestId('kpi-cost')).toContainText('with unknown cost');
  await expect(cmp.figure('model-cost').locator('[data-role="unknown-cost"]')).toContainText('19 calls of unknown cost');
  await expect(cmp.figure('paired-scatter').locator('[data-role="empty"]')).toContainText('No outcomes');
});

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`fits at ${width}×${height} in both themes`, async ({ app, page }) => {
    await page.setViewportSize({ width, height });
    const cmp = new ComparePage(page);
    await app.open('#/compare');
    await expect(cmp.view).toBeVisible();
    await expectPlainWords(page, 'Compare before a comparison');
    await cmp.chooseRuns('a', ['sw-mtrouter']);
    await cmp.chooseRuns('b', GROUP);
    await cmp.compare();
    await expectPlainWords(page, `Compare at ${width}×${height}`);
    for (const theme of ['light', 'dark'] as const) {
      await app.setTheme(theme);
      // Nothing wider than the window but the task table, which scrolls inside its card.
      const overflow = await page.getByTestId('view').evaluate((el) => el.scrollWidth - el.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: test.info().outputPath(`compare-${width}-${theme}.png`), fullPage: true });
    }
  });
}
