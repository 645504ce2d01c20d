/** The Runs view against what `routelens info --json` says the imported fixtures hold. */
import { formatCost, formatCount, formatPercent } from '../renderer/format/numbers.ts';
import { expect, test } from './fixtures.ts';

test('lists every imported run with its episodes, turns, models, cost and success rate', async ({ app, runs, state }) => {
  await app.open('#/runs');
  await runs.waitReady();
  expect(state.info.runs.length).toBeGreaterThanOrEqual(3);
  await expect(runs.rows).toHaveCount(state.info.runs.length);
  for (const run of state.info.runs) {
    const row = runs.row(run.name);
    await expect(row.getByTestId('run-name')).toHaveText(run.name);
    await expect(runs.cell(run.name, 'episodes')).toHaveText(formatCount(run.episodes));
    await expect(runs.cell(run.name, 'turns')).toHaveText(formatCount(run.turns));
    await expect(runs.cell(run.name, 'cost')).toContainText(formatCost(run.total_cost));
    await expect(runs.cell(run.name, 'success')).toHaveText(formatPercent(run.success_rate));
    await expect(row.getByTestId('model-chip')).toHaveCount(run.models.length);
  }
  const episodes = state.info.runs.reduce((a, r) => a + r.episodes, 0);
  await expect(runs.summary).toContainText(`${formatCount(episodes)} episodes`);
  // The top bar counts sessions too: the fixtures' subagent episodes are part of their parents' sessions.
  expect(state.info.runs.some((r) => r.child_episodes > 0)).toBe(true);
  await expect(app.page.getByTestId('db-counts')).toHaveText(new RegExp(`^${formatCount(episodes)} episodes · `));
});

test('the canonical example runs show the numbers the fixture file has', async ({ app, runs }) => {
  await app.open('#/runs');
  // fixtures/canonical/example.jsonl: 6 ScienceWorld episodes (56 turns) and 7 HLE episodes (51 turns).
  await expect(runs.cell('sw-router-demo', 'episodes')).toHaveText('6');
  await expect(runs.cell('sw-router-demo', 'turns')).toHaveText('56');
  await expect(runs.cell('hle-router-demo', 'episodes')).toHaveText('7');
  await expect(runs.cell('hle-router-demo', 'turns')).toHaveText('51');
  // Some HLE turns carry no logged cost, so the run total is marked as an estimate.
  await expect(runs.cell('hle-router-demo', 'cost')).toContainText('≈');
});

test('clicking a run opens Episodes filtered to it', async ({ app, runs, episodes, state, page }) => {
  const run = state.info.runs.find((r) => r.name === 'sw-router-demo');
  expect(run).toBeDefined();
  await app.open('#/runs');
  await runs.row('sw-router-demo').click();
  await episodes.waitReady();
  await expect(page).toHaveURL(/#\/episodes\?runs=\d+$/);
  expect(await episodes.matchCount()).toBe(run?.episodes);
  await expect(episodes.rows).toHaveCount(run?.episodes ?? -1);
  expect(new Set(await episodes.columnTexts('run'))).toEqual(new Set(['sw-router-demo']));
  await expect(app.runSelector).toHaveText(/sw-router-demo/);
});

test('the run selector filters the Runs view and can be cleared', async ({ app, runs }) => {
  await app.open('#/runs');
  await app.selectRuns(['hle-router-demo', 'sw-router-demo']);
  await expect(runs.rows).toHaveCount(2);
  await expect(runs.filterBanner).toBeVisible();
  await expect(app.runSelector).toContainText('2 of');
  await runs.filterBanner.getByRole('button', { name: 'Show all runs' }).click();
  await expect(runs.filterBanner).toHaveCount(0);
  await expect(app.runSelector).toContainText('All runs');
});

test('a model has the same colour in every view', async ({ app, runs, episodes, inspector, page }) => {
  await app.open('#/runs');
  const inRuns = await app.modelColor(runs.row('sw-router-demo'), 'gpt-5');
  const other = await app.modelColor(runs.row('sw-router-demo'), 'kimi-k2');
  expect(inRuns).not.toBe(other);
  await runs.row('sw-router-demo').click();
  await episodes.waitReady();
  const inTable = await app.modelColor(episodes.row('boil_0_run1'), 'gpt-5');
  await episodes.row('boil_0_run1').click();
  await inspector.waitReady();
  const inLegend = await app.modelColor(inspector.legend, 'gpt-5');
  const inTimeline = await page.locator('[data-testid="timeline-marks"] rect[data-model="gpt-5"]').first().getAttribute('fill');
  expect([inTable, inLegend]).toEqual([inRuns, inRuns]);
  const [r, g, b] = (inRuns.match(/\d+/g) ?? []).map(Number);
  expect(inTimeline?.toLowerCase()).toBe(`#${[r, g, b].map((v) => (v ?? 0).toString(16).padStart(2, '0')).join('')}`);
});
