/**
 * One estimator in use (issue 17 item 7), on a private copy of the e2e database served apart, because picking
 * the estimator in use is a setting of the database and the other specs read ŝ from the shared one meanwhile.
 * The copy has two estimators: the shipped default (which globalSetup scored SCORED_RUN with, and which scores
 * mini-swe-agent here, whose logged models are none of its candidates) and a tiny one trained here that has
 * scored nothing. Picking in one view shows in the others; a SWE turn is flagged as extrapolation; calibration's
 * empty state gives the true reason.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { AppPage } from './pages/AppPage.ts';
import { EstimatorPage, SCORED_RUN, WhatIfPage } from './pages/EstimatorPage.ts';
import { EstimatorInUsePage } from './pages/EstimatorInUsePage.ts';
import { InspectorPage } from './pages/InspectorPage.ts';
import { cli, freePort, startServe, type ServeProcess } from './serveProcess.ts';

test.describe.configure({ mode: 'serial' });

const DEFAULT_MODEL = fileURLToPath(new URL('../models/default-estimator.onnx', import.meta.url));
const SWE_RUN = 'mini-swe-agent';

let dir = '';
let server: ServeProcess | null = null;

test.beforeAll(async ({ state }) => {
  test.setTimeout(240_000);
  test.skip(!existsSync(DEFAULT_MODEL), 'needs the shipped default estimator');
  dir = mkdtempSync(join(tmpdir(), 'routelens-inuse-'));
  const dbPath = join(dir, 'inuse.db');
  const source = new Database(state.dbPath, { readonly: true });
  try {
    await source.backup(dbPath);
  } finally {
    source.close();
  }
  cli(['score', '--db', dbPath, '--model', DEFAULT_MODEL, '--run', SWE_RUN, '--ep', 'cpu']);
  cli(['train', '--db', dbPath, '--out', join(dir, 'tiny.onnx'), '--name', 'tiny', '--epochs', '1', '--seed', '1', '--run', 'sw-mtrouter'], 200_000);
  server = await startServe(dbPath, await freePort());
});

test.afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function firstEpisodeOf(page: Page, run: string): Promise<number> {
  const origin = new URL(page.url()).origin;
  const runs = (await (await page.request.post(`${origin}/api/listRuns`, { data: {} })).json()) as { value: { id: number; name: string }[] };
  const runId = runs.value.find((r) => r.name === run)?.id;
  expect(runId, `run ${run}`).toBeDefined();
  const res = await page.request.post(`${origin}/api/queryEpisodes`, { data: { runIds: [runId], limit: 1 } });
  return ((await res.json()) as { value: { rows: { id: number }[] } }).value.rows[0]!.id;
}

test('picking the estimator in one view shows it in what-if, the step debugger, calibration and the policy lab', async ({ page }) => {
  test.setTimeout(90_000);
  const app = new AppPage(page, server!.url);
  const est = new EstimatorPage(page);
  const inUse = new EstimatorInUsePage(page);
  await app.open('#/estimator');
  await est.waitReady();
  // Nobody picked one yet: the default, which scored last, is in use.
  const defaultItem = est.items.filter({ hasText: 'default-estimator' });
  const tinyItem = est.items.filter({ hasText: 'tiny' });
  await expect(defaultItem.getByTestId('estimator-in-use-tag')).toBeVisible();
  await expect(tinyItem.getByTestId('estimator-in-use-tag')).toHaveCount(0);
  const tinyId = await tinyItem.getAttribute('data-estimator-id');
  const defaultId = await defaultItem.getAttribute('data-estimator-id');

  // The tiny one's card says what it was trained on, recorded at training time.
  await tinyItem.click();
  await expect(page.getByTestId('card-domain')).toContainText('scienceworld (');
  await page.getByTestId('use-estimator').click();
  await expect(tinyItem.getByTestId('estimator-in-use-tag')).toBeVisible();
  await expect(defaultItem.getByTestId('estimator-in-use-tag')).toHaveCount(0);

  // What-if asks the tiny one (it has scored nothing, so ŝ is computed now) and shows it picked.
  const episode = await firstEpisodeOf(page, SCORED_RUN);
  await app.open(`#/episode/${episode}/turn/1`);
  const whatIf = new WhatIfPage(page);
  await whatIf.open();
  await expect(whatIf.source).toHaveAttribute('data-estimator-id', tinyId!);
  await expect(whatIf.source).toHaveAttribute('data-source', 'computed');
  await expect(inUse.select('whatif-estimator')).toHaveValue(tinyId!);

  // The step debugger shows the same one, and says its ŝ came from another because the tiny one scored nothing.
  await new InspectorPage(page).openDebugger();
  await expect(inUse.select('debugger-estimator')).toHaveValue(tinyId!);
  await expect(page.getByTestId('debugger-estimator').getByTestId('estimator-not-in-use')).toContainText('default-estimator');

  // Calibration reads it too, and says why it has nothing to draw.
  await app.open('#/analyses/calibration');
  await expect(inUse.select('analysis-estimator')).toHaveValue(tinyId!);
  await expect(page.getByTestId('figure-empty-reason')).toHaveAttribute('data-reason', 'not_scored');
  await expect(page.getByTestId('figure-empty-reason')).toContainText('estimator tiny has not scored the selected runs');

  // Picking back in the policy lab changes the one choice: calibration draws again, the Estimator view follows.
  await app.open('#/policy');
  await expect(inUse.select('policy-estimator')).toHaveValue(tinyId!);
  await inUse.select('policy-estimator').selectOption(defaultId!);
  await expect(inUse.select('policy-estimator')).toHaveValue(defaultId!);
  await app.open('#/analyses/calibration');
  await expect(inUse.select('analysis-estimator')).toHaveValue(defaultId!);
  await expect(page.getByTestId('figure-panel')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await app.open('#/estimator');
  await expect(defaultItem.getByTestId('estimator-in-use-tag')).toBeVisible();
});

test('a turn outside the training domain is flagged as extrapolation; one inside is not', async ({ page }) => {
  test.setTimeout(60_000);
  const app = new AppPage(page, server!.url);
  const whatIf = new WhatIfPage(page);
  await app.open('#/runs');
  const swe = await firstEpisodeOf(page, SWE_RUN);
  await app.open(`#/episode/${swe}/turn/0`);
  await whatIf.open();
  // The default was trained on simulated ScienceWorld with six candidates; a mini-swe-agent turn is neither.
  const flag = page.getByTestId('whatif-panel').getByTestId('extrapolation-flag');
  await expect(flag).toBeVisible();
  await expect(flag).toHaveAttribute('data-reasons', /model_not_candidate/);
  await expect(flag).toContainText('is not one of the estimator');
  await expect(page.getByTestId('whatif-estimator').getByTestId('estimator-domain')).toContainText('trained on scienceworld');

  const inDomain = await firstEpisodeOf(page, SCORED_RUN);
  await app.open(`#/episode/${inDomain}/turn/0`);
  await whatIf.open();
  await expect(page.getByTestId('whatif-panel').getByTestId('extrapolation-flag')).toHaveCount(0);
});

test('calibration says the run’s models are not candidates, not that there is no estimator', async ({ page }) => {
  const app = new AppPage(page, server!.url);
  await app.open('#/analyses/calibration');
  await app.selectRuns([SWE_RUN]);
  const reason = page.getByTestId('figure-empty-reason');
  await expect(reason).toHaveAttribute('data-reason', 'model_not_candidate');
  await expect(reason).toContainText('none of estimator default-estimator');
  await expect(page.getByTestId('figure-empty')).not.toContainText('No estimator');
});
