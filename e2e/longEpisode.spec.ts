/**
 * An episode of 20,000 turns (issue 38 item 6: agents that run for days): the timeline is drawn by pixel column, so
 * the inspector's DOM stays a few thousand elements whatever the length (one element per turn made 3 million of them
 * at a million turns, and every keypress re-drew them all); keys still step turn by turn, jump to the end and to the
 * next error, and a click on the strip opens the first turn of the column clicked. Its turns come a page at a time
 * (TURN_PAGE in shared/api.ts): the page of the turn shown and of the rows in view, and a deep link opens at its page.
 *
 * Its own `routelens serve` over its own database, so the shared database the other specs count stays as it is.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../electron/server/serve.ts';
import { AppPage } from './pages/AppPage.ts';
import { inBothThemes, SHOTS_DIR } from './pages/viewShot.ts';
import { cli } from './serveProcess.ts';
import { expect, test as base } from './fixtures.ts';

const TURNS = 20_000;
const MODELS = ['gpt-5', 'kimi-k2', 'deepseek-v3.2'];
/** Every 1,500th turn has an error; the model changes every 40 turns. */
const ERROR_EVERY = 1_500;

function longEpisode(): string {
  const turns = Array.from({ length: TURNS }, (_, t) => ({
    t,
    model: MODELS[Math.floor(t / 40) % MODELS.length],
    action: { type: 'tool', tool: 'bash', text: `echo step ${t}` },
    observation: `step ${t}`,
    cost_usd: 0.0001,
    errors: t > 0 && t % ERROR_EVERY === 0 ? [{ type: 'timeout', severity: 'high' }] : [],
  }));
  return JSON.stringify({ schema: 'routelens/v1', run: 'long-run', episode_id: 'twenty-thousand', task: { text: 'Keep going.' }, outcome: { success: true }, turns });
}

const test = base.extend<object, { server: RunningServer }>({
  server: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-long-'));
      const log = join(dir, 'long.jsonl');
      writeFileSync(log, `${longEpisode()}\n`);
      const dbPath = join(dir, 'long.db');
      cli(['import', log, '--db', dbPath], 120_000);
      const server = await startServer({ dbPath });
      await use(server);
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  app: async ({ page, server }, use) => use(new AppPage(page, server.url)),
});

test(`an episode of ${TURNS.toLocaleString('en')} turns: the timeline by pixel column, keys and clicks still by turn`, async ({ app, inspector, page }) => {
  test.setTimeout(60_000);
  await app.open('#/runs');
  const id = await app.episodeId('twenty-thousand');
  await app.open(`#/episode/${id}/turn/0`);
  await inspector.waitReady();
  await inspector.expectTurn(0);
  await expect(inspector.header.getByTestId('episode-turns')).toHaveText('20,000');

  // At most one hit area per pixel of the plot, every turn in one of them, and a few thousand elements in all.
  const plotWidth = await inspector.timeline.evaluate((el) => el.clientWidth);
  const hits = await inspector.timelineTurns.count();
  expect(hits).toBeGreaterThan(plotWidth / 2);
  expect(hits).toBeLessThanOrEqual(plotWidth);
  expect(await page.evaluate(() => document.getElementsByTagName('*').length)).toBeLessThan(12_000);
  expect(await inspector.timelineErrors.count()).toBe(Math.floor((TURNS - 1) / ERROR_EVERY));
  await expect(inspector.timelineTurns.last().locator('title')).toHaveText(/^Turns \d+–19999 · /);
  // 499 switches, one every 40 turns, about 15 turns a column: ticks would hatch the strip, so its colours show them.
  await expect(inspector.timelineSwitches).toHaveCount(0);
  await expect(inspector.header.locator('dt', { hasText: 'Switches' }).locator('+ dd')).toHaveText('499');

  await page.keyboard.press('j');
  await inspector.expectTurn(1);
  await page.keyboard.press('n');
  await inspector.expectTurn(ERROR_EVERY);
  await page.keyboard.press('End');
  await inspector.expectTurn(TURNS - 1);
  // The last page came when it was reached: the turn's text, and its row's summary.
  await expect(inspector.detail).toContainText(`echo step ${TURNS - 1}`);
  await expect(inspector.turnItems.and(page.locator(`[data-t="${TURNS - 1}"]`))).toContainText(`echo step ${TURNS - 1}`);
  // The debugger asks about the page shown, and says so; errors it counts over every turn.
  await inspector.openDebugger();
  await expect(page.getByTestId('debugger-window')).toHaveText(/turns 18000–19999, the page shown of 20,000 turns/);
  await expect(page.getByTestId('bp-error').locator('..')).toContainText('13');

  // A click in the strip's middle column opens that column's first turn.
  const middle = inspector.timelineTurns.nth(Math.floor(hits / 2));
  const first = Number(await middle.getAttribute('data-t'));
  expect(first).toBeGreaterThan(TURNS / 3);
  await middle.click();
  await inspector.expectTurn(first);

  // A link to a turn deep in the episode opens its page directly.
  await app.open(`#/episode/${id}/turn/15321`);
  await inspector.waitReady();
  await inspector.expectTurn(15_321);
  await expect(inspector.detail).toContainText('echo step 15321');

  await inBothThemes(app, (theme) => page.screenshot({ path: `${SHOTS_DIR}inspector-long-episode-${theme}.png` }));
  await page.setViewportSize({ width: 1024, height: 700 });
  await expect(inspector.turnItems.and(page.locator('[data-t="15321"]'))).toContainText('echo step 15321');
  await page.screenshot({ path: `${SHOTS_DIR}inspector-long-episode-1024.png` });
});
