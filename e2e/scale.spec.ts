/**
 * Opt-in (ROUTELENS_E2E_SCALE=1): the Episodes view and the inspector on a database at the scale DESIGN §11
 * names, 30,000 episodes / ~510k turns (written by e2e/scale/makeScaleFixture.ts, imported by the CLI; ~25 s).
 * Checks that the table scrolls through the whole result fetching windows of rows, and that no frame takes
 * longer than 100 ms while it does (long tasks, as the browser reports them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppPage } from './pages/AppPage.ts';
import { EpisodesPage } from './pages/EpisodesPage.ts';
import { InspectorPage } from './pages/InspectorPage.ts';
import { writeScaleFixture } from './scale/makeScaleFixture.ts';
import { cli, freePort, startServe, type ServeProcess } from './serveProcess.ts';
import { expect, test } from './fixtures.ts';

const EPISODES = 30_000;

// Trace snapshots serialise the DOM on the page's main thread at every action: they would be the long tasks.
test.use({ trace: 'off', screenshot: 'off' });

test.describe('at 30k episodes / 500k turns', () => {
  test.skip(process.env.ROUTELENS_E2E_SCALE !== '1', 'opt-in: set ROUTELENS_E2E_SCALE=1 (builds a 150 MB fixture)');
  test.describe.configure({ mode: 'serial', timeout: 120_000 });

  let dir = '';
  let server: ServeProcess | null = null;

  test.beforeAll(async () => {
    test.setTimeout(300_000);
    dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-scale-'));
    const jsonl = join(dir, 'scale.jsonl');
    await writeScaleFixture(jsonl, EPISODES);
    cli(['import', jsonl, '--db', join(dir, 'scale.db')], 300_000);
    server = await startServe(join(dir, 'scale.db'), await freePort());
  });

  test.afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts collecting long tasks (main-thread work over 50 ms) in the page. */
  async function watchLongTasks(app: AppPage): Promise<() => Promise<number[]>> {
    await app.page.evaluate(() => {
      const w = window as unknown as { __long: number[] };
      w.__long = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__long.push(e.duration);
      }).observe({ type: 'longtask' });
    });
    return () => app.page.evaluate(() => (window as unknown as { __long: number[] }).__long);
  }

  test('the Episodes table scrolls through every row without a long frame', async ({ page }) => {
    const app = new AppPage(page, server?.url ?? '');
    const episodes = new EpisodesPage(page);
    await app.open('#/episodes');
    await episodes.waitReady();
    await expect(episodes.count).toHaveText('30,000 episodes');
    const longTasks = await watchLongTasks(app);

    for (const fraction of [0.1, 0.25, 0.5, 0.75, 0.9, 1]) {
      await episodes.scroller.evaluate((el, f) => {
        el.scrollTop = (el.scrollHeight - el.clientHeight) * f;
      }, fraction);
      const index = Math.min(EPISODES, Math.max(1, Math.round(EPISODES * fraction)));
      await expect(page.locator(`[data-testid="episode-row"][aria-rowindex="${index}"], [data-testid="episode-row"][aria-rowindex="${index - 5}"]`).first()).toBeVisible({ timeout: 5000 });
    }
    // Into an episode from the middle and back: the table returns to where it was.
    await episodes.scroller.evaluate((el) => {
      el.scrollTop = (el.scrollHeight - el.clientHeight) / 2;
    });
    const middle = page.locator('[data-testid="episode-row"][aria-rowindex="15000"]');
    await expect(middle).toBeVisible({ timeout: 5000 });
    await page.screenshot({ path: fileURLToPath(new URL('../test-results/screenshots/episodes-scale.png', import.meta.url)) });
    await middle.click();
    await expect(page.getByTestId('inspector-view')).toHaveAttribute('data-state', 'ready');
    await page.goBack();
    await episodes.waitReady();
    await expect(middle).toBeVisible({ timeout: 5000 });

    // Wheel-scroll like a person for a while.
    await episodes.scroller.hover();
    for (let i = 0; i < 40; i++) await page.mouse.wheel(0, -600);
    await expect(episodes.rows.first()).toBeVisible();
    const long = await longTasks();
    expect(Math.max(0, ...long), `long tasks: ${long.map((d) => d.toFixed(0)).join(', ')}`).toBeLessThan(100);
  });

  test('sorting, filtering and searching stay responsive', async ({ page }) => {
    const app = new AppPage(page, server?.url ?? '');
    const episodes = new EpisodesPage(page);
    await app.open('#/episodes');
    await episodes.waitReady();
    const longTasks = await watchLongTasks(app);
    await episodes.sortBy('total_cost', 'descending');
    await episodes.scroller.evaluate((el) => {
      el.scrollTop = el.scrollHeight / 2;
    });
    await expect(page.locator('[data-testid="episode-row"][aria-rowindex="15000"]')).toBeVisible({ timeout: 5000 });
    await episodes.setOutcome('Success');
    expect(await episodes.matchCount()).toBeLessThan(EPISODES);
    await episodes.searchFor('thermometer beaker');
    expect(await episodes.matchCount()).toBeGreaterThan(0);
    const long = await longTasks();
    expect(Math.max(0, ...long), `long tasks: ${long.map((d) => d.toFixed(0)).join(', ')}`).toBeLessThan(100);
  });

  test('the inspector opens an episode from deep in the result', async ({ page }) => {
    const app = new AppPage(page, server?.url ?? '');
    const inspector = new InspectorPage(page);
    await app.open('#/episode/29999');
    await inspector.waitReady();
    await expect(inspector.title).toHaveText('scale_29998');
    await page.keyboard.press('n');
    await expect(inspector.detail).toBeVisible();
  });
});
