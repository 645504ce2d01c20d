/**
 * The Estimator view and what-if on the e2e database. globalSetup scored `SCORED_RUN` (with the shipped
 * default model when installed, else a tiny estimator it trained), so calibration, embeddings and what-if
 * neighbours have data. The tests that start jobs run in order: the core runs one estimator job at a time.
 * Jobs here touch runs no other spec needs unscored (sw-deepseek-v3.2, sw-random).
 */
import { expect, test } from './fixtures.ts';
import { EstimatorPage, SCORED_RUN, WhatIfPage } from './pages/EstimatorPage.ts';

test.describe.configure({ mode: 'serial' });

/** The first episode of a run, by database id, through the API (the browser's cookie). */
async function firstEpisodeOf(page: import('@playwright/test').Page, run: string): Promise<{ id: number; ext_id: string }> {
  const origin = new URL(page.url()).origin;
  const runs = (await (await page.request.post(`${origin}/api/listRuns`, { data: {} })).json()) as { value: { id: number; name: string }[] };
  const runId = runs.value.find((r) => r.name === run)?.id;
  expect(runId, `run ${run}`).toBeDefined();
  const res = await page.request.post(`${origin}/api/queryEpisodes`, { data: { runIds: [runId], limit: 5 } });
  const body = (await res.json()) as { value: { rows: { id: number; ext_id: string }[] } };
  return body.value.rows[0]!;
}

test('lists the estimators with the model card, and draws calibration and embeddings whose points open turns', async ({ app, inspector, page }) => {
  test.setTimeout(90_000);
  const est = new EstimatorPage(page);
  await app.open('#/estimator');
  await app.selectRuns([SCORED_RUN]);
  await est.waitReady();
  await expect(est.items.first()).toBeVisible();
  await expect(est.items.first().getByTestId('estimator-scored')).toContainText(/scored [\d,]+ of [\d,]+ turns on cpu/);
  await expect(est.card).toBeVisible();
  await expect(page.getByTestId('card-val-mae')).toContainText(/\d\.\d{4}/);
  await expect(page.getByTestId('card-loss-curves-figure')).toBeVisible();
  // The shipped default's card says what it was trained on, read from its own metadata (models/default-estimator.card.json).
  await expect(page.getByTestId('card-source')).toHaveText('Simulated: the scienceworld preset with seed 21, 60,000 episodes, of which these runs hold 36,000');
  await expect(page.getByTestId('card-seed')).toContainText(/^Seed\s*1$/);

  await est.waitFigure(est.calibration);
  expect(await est.calibration.locator('[data-mark][data-role="point"]').count()).toBeGreaterThan(0);
  await expect(est.calibration.getByTestId('figure')).toContainText(/all selected runs: MAE \d\.\d{3}, ρ -?\d\.\d{2}, n = [\d,]+/);
  await est.waitFigure(est.embeddings);
  expect(await est.embeddings.locator('[data-mark][data-role="model-point"]').count()).toBeGreaterThanOrEqual(3);
  const histories = est.embeddings.locator('[data-mark][data-role="history-point"]');
  expect(await histories.count()).toBeGreaterThan(20);
  // Re-colouring by outcome keeps the map (cached in the core) and redraws it.
  await page.getByTestId('embeddings-color-outcome').check();
  await est.waitFigure(est.embeddings);
  await histories.first().click({ force: true });
  await inspector.waitReady();
  await expect(page).toHaveURL(/#\/episode\/\d+\/turn\/\d+/);
});

test('scoring a run shows its progress, then the provider and turns/s', async ({ app, page }) => {
  test.setTimeout(120_000);
  const est = new EstimatorPage(page);
  await app.open('#/estimator');
  await app.selectRuns(['sw-deepseek-v3.2']);
  await est.waitReady();
  await expect(est.scoreButton).toBeEnabled();
  await est.scoreButton.click();
  await expect(est.job).toHaveAttribute('data-kind', 'score');
  await expect(est.job.getByRole('progressbar')).toBeVisible();
  await expect(est.scoreButton).toBeDisabled();
  expect(await est.waitJobEnd()).toBe('done');
  // A finished job says it is done, not the phase it was last in.
  await expect(est.job.locator('.est-job-head')).toContainText('Done');
  await expect(page.getByTestId('job-stage')).toHaveCount(0);
  await expect(est.jobMessage).toContainText(/scored [\d,]+ turns on (cpu|cuda|webgpu)/);
  await expect(est.provider).toContainText(/ONNX Runtime on (cpu|cuda|webgpu) · [\d,]+ turns\/s/);
  await expect(est.job.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  await expect(est.scoreButton).toBeEnabled();
});

test('training from the view draws the loss curve as epochs end and adds the estimator', async ({ app, page }) => {
  test.setTimeout(180_000);
  const est = new EstimatorPage(page);
  await app.open('#/estimator');
  await app.selectRuns(['sw-random']);
  await est.waitReady();
  const before = await est.items.count();
  await est.epochs.fill('2');
  await est.trainButton.click();
  await expect(est.job).toHaveAttribute('data-kind', 'train');
  expect(await est.waitJobEnd(150_000)).toBe('done');
  await expect(est.jobLoss).toHaveAttribute('data-epochs', '2');
  await expect(est.jobLoss.locator('[data-mark][data-role="point"]')).toHaveCount(4);
  // The finished training keeps the axis it was drawn on (issue 35 item 8): typing another number of epochs, or
  // leaving the view and coming back (where the box is back at its default), does not redraw it on another.
  const epochTicks = () => est.jobLoss.locator('[data-role="tick-label"]').allTextContents();
  const drawn = await epochTicks();
  await est.epochs.fill('12');
  await app.go('#/runs');
  await app.go('#/estimator');
  await expect(est.jobLoss).toHaveAttribute('data-epochs', '2');
  await expect.poll(epochTicks).toEqual(drawn);
  await expect(est.jobMessage).toContainText(/trained: validation MAE \d\.\d{4}/);
  await expect(est.items).toHaveCount(before + 1);
  // The new estimator is selected: its card shows the run it learned from.
  await expect(page.locator('[data-testid="estimator-item"][aria-pressed="true"]')).toContainText(/estimator-\d{4}-/);
  await expect(est.card).toContainText('sw-random');
});

test('a training job can be cancelled, and leaves no estimator behind', async ({ app, page }) => {
  test.setTimeout(120_000);
  const est = new EstimatorPage(page);
  await app.open('#/estimator');
  await app.selectRuns(['sw-random']);
  await est.waitReady();
  const before = await est.items.count();
  // Long enough that Cancel always lands first: the selected run is small, so with early stopping the job
  // could otherwise end between the phase showing and the click.
  await est.epochs.fill('1000');
  await est.patience.fill('1000');
  await est.trainButton.click();
  await expect(est.job).toHaveAttribute('data-kind', 'train');
  await expect(est.job).toHaveAttribute('data-phase', /dataset|training/, { timeout: 60_000 });
  await page.getByTestId('job-cancel').click();
  expect(await est.waitJobEnd()).toBe('cancelled');
  await expect(est.jobMessage).toHaveText('cancelled');
  await expect(est.trainButton).toBeEnabled();
  await expect(est.items).toHaveCount(before);
});

test('what-if at a turn lists every candidate with ŝ, and a neighbour opens its turn', async ({ app, inspector, page }) => {
  test.setTimeout(60_000);
  await app.open('#/runs');
  const episode = await firstEpisodeOf(page, 'sw-mtrouter');
  await app.open(`#/episode/${episode.id}/turn/3`);
  await inspector.waitReady();
  const whatIf = new WhatIfPage(page);
  // Closed until asked for: the conversation has the width.
  await expect(whatIf.panel).toHaveCount(0);
  await whatIf.open();
  await expect(whatIf.title).toContainText('What if another model had taken turn 3?');
  expect(await whatIf.candidates.count()).toBeGreaterThanOrEqual(3);
  await expect(whatIf.candidates.locator('.tag', { hasText: 'logged' })).toHaveCount(1);
  await expect(whatIf.source).toContainText(/ŝ from estimator .+, (stored estimates|computed now on (cpu|cuda|webgpu))/);
  // Stepping keeps the section open and asks for the new turn.
  await page.keyboard.press('j');
  await inspector.expectTurn(4);
  await expect(whatIf.title).toContainText('turn 4?');
  await expect(whatIf.panel).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });

  const link = whatIf.neighbours.first();
  await expect(link).toBeVisible();
  const target = { episode: await link.getAttribute('data-episode-id'), turn: await link.getAttribute('data-turn') };
  expect(target.episode).not.toBe(String(episode.id));
  await link.click();
  await inspector.waitReady();
  await expect(page).toHaveURL(new RegExp(`#/episode/${target.episode}/turn/${target.turn}(\\?|$)`));
  await inspector.expectTurn(Number(target.turn));
  // `w` closes it again; the step debugger's candidates open it too.
  await page.keyboard.press('w');
  await expect(whatIf.panel).toHaveCount(0);
  await inspector.openDebugger();
  await page.getByTestId('debugger-open-whatif').click();
  await expect(whatIf.panel).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await expect(whatIf.panel).toHaveCount(1);
});
