/**
 * The outcome explained (issue 35 item 2): one click on an episode's outcome in the Episodes list opens it with the
 * target, the agent's answer and the scorer or judge with its explanation in its header, as the log has them: an
 * Inspect multiple-choice sample, an HLE episode its judge scored, and one never judged, which says why it scored 0.
 *
 * Its own `routelens serve` over its own database (Inspect's and MTRouter's HLE logs), so the shared database the
 * other specs count stays as it is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { startServer, type RunningServer } from '../electron/server/serve.ts';
import { AppPage } from './pages/AppPage.ts';
import { inBothThemes, SHOTS_DIR } from './pages/viewShot.ts';
import { cli } from './serveProcess.ts';
import { expect, test as base } from './fixtures.ts';

const test = base.extend<object, { server: RunningServer }>({
  server: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-outcome-'));
      const dbPath = join(dir, 'outcome.db');
      cli(['import', 'fixtures/samples/inspect', 'fixtures/mtrouter/hle', '--db', dbPath], 120_000);
      const server = await startServer({ dbPath });
      await use(server);
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  app: async ({ page, server }, use) => use(new AppPage(page, server.url)),
});

/** Clicks the outcome cell of the list's row for `extId` (of the run whose name has `run`), as a user does. */
async function openOutcomeFromList(app: AppPage, extId: string, run: string): Promise<Locator> {
  await app.go('#/episodes');
  const row = app.page.locator(`[data-testid="episode-row"][data-ext-id="${extId}"]`).filter({ hasText: run });
  await expect(row).toHaveCount(1);
  await row.getByTestId('outcome-cell').click();
  await expect(app.page.getByTestId('inspector-view')).toHaveAttribute('data-state', 'ready');
  await expect(app.page.getByTestId('episode-title')).toHaveText(extId);
  const panel = app.page.getByTestId('episode-header').getByTestId('outcome-panel');
  await expect(panel).toBeVisible();
  await expect(app.page.getByTestId('outcome-toggle')).toHaveAttribute('aria-expanded', 'true');
  return panel;
}

test('Inspect: one click on the outcome shows the target among the choices, the answer and the scorer that marked it wrong', async ({ app, page }) => {
  await app.open('#/episodes');
  const panel = await openOutcomeFromList(app, '1', 'mmlu');
  // mmlu-summary-choices.eval: target A of four choices, the model answered "ANSWER: C", the `choice` scorer read C.
  await expect(panel.getByTestId('outcome-target-text')).toHaveText('A');
  await expect(panel.getByTestId('outcome-choices').locator('li')).toHaveText([/^A 6\.0 e\s*target$/, /^B 6\.8 eV$/, /^C 12\.2 eV\s*answered$/, /^D 13\.6 eV$/]);
  await expect(panel.getByTestId('outcome-answer-text')).toHaveText('ANSWER: C');
  const scorer = panel.getByTestId('outcome-scorer');
  await expect(scorer).toHaveAttribute('data-scorer', 'choice');
  await expect(scorer.getByTestId('outcome-scorer-value')).toHaveText('I (incorrect)');
  await expect(scorer.getByTestId('outcome-scorer-answer')).toHaveText('C');
  await expect(scorer.getByTestId('outcome-scorer-explanation')).toHaveText('ANSWER: C');
  // The full header sums it up in one line; the badge closes the panel again.
  await expect(page.getByTestId('outcome-summary')).toContainText('TargetA');
  await inBothThemes(app, (theme) => page.screenshot({ path: `${SHOTS_DIR}outcome-inspect-${theme}.png` }));
  await page.getByTestId('outcome-toggle').click();
  await expect(panel).toHaveCount(0);
});

test('HLE: the judge\'s verdict and reasoning one click from the list; an unjudged episode says why it scored 0', async ({ app, page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await app.open('#/episodes');
  // Judged wrong: "Accusative" against the ground truth "Ablative", with the judge's reasoning.
  const judged = await openOutcomeFromList(app, '671f0b9e3c2d8a4e5b6f7a18_run2', 'roulette_propensity');
  await expect(judged.getByTestId('outcome-target-text')).toHaveText('Ablative');
  await expect(judged.getByTestId('outcome-answer-text')).toHaveText('Accusative');
  const judge = judged.getByTestId('outcome-scorer');
  await expect(judge).toHaveAttribute('data-scorer', 'HLE judge');
  await expect(judge.getByTestId('outcome-scorer-value')).toHaveText('false');
  await expect(judge.getByTestId('outcome-scorer-explanation')).toHaveText('The response answers the accusative, but sine takes the ablative; the answers differ.');
  await expect(judge.getByTestId('outcome-scorer-metadata')).toContainText('confidence 0.95');

  // Never judged: scored 0 by MTRouter's default, which the panel says, with the submission beside the ground truth.
  const unjudged = await openOutcomeFromList(app, '66f2a7c9d0e14b3a8c5d6e70', 'roulette');
  await expect(page.getByTestId('outcome-toggle').getByTestId('outcome')).toHaveAttribute('data-outcome', 'failure');
  await expect(unjudged.getByTestId('outcome-target-text')).toHaveText('4.95');
  await expect(unjudged.getByTestId('outcome-answer-text')).toHaveText('4.95 rad/s');
  await expect(unjudged.getByTestId('outcome-scorers')).toHaveText(/^Scorer\s*—$/);
  await expect(unjudged.getByTestId('outcome-notes')).toContainText("MTRouter's parser scores a missing judge result as 0; it is not a verdict.");
  await expect(unjudged.getByTestId('outcome-notes')).toContainText('The submission ("4.95 rad/s") contains the ground truth ("4.95"), but no judge scored it.');
  await inBothThemes(app, (theme) => page.screenshot({ path: `${SHOTS_DIR}outcome-hle-unjudged-1024-${theme}.png` }));
});
