/**
 * Opt-in (ROUTELENS_E2E_SCALE=1): the UI on a database at the scale DESIGN §11 names — the simulator's
 * scienceworld preset at the MTRouter training set's 29,693 trajectories (~530k turns with realistic text).
 * `npm run bench` passes its cached database in ROUTELENS_E2E_SCALE_DB; otherwise the spec simulates and
 * imports one (ROUTELENS_E2E_SCALE_EPISODES sets a smaller size; ~45 s at full size).
 *
 * What it checks (issue 8 item 2): the Episodes table is virtualised (a window of rows in the DOM while it
 * scrolls through every episode), and no interaction — scrolling, sorting, filtering, searching, opening an
 * episode and stepping through its turns — blocks the page's main thread for more than 100 ms (long tasks,
 * as the browser's PerformanceObserver reports them). Each step's long tasks and event timings are written
 * to ROUTELENS_E2E_SCALE_REPORT (JSON, added to when it exists) when it is set, for the bench's table.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { AppPage } from './pages/AppPage.ts';
import { EpisodesPage } from './pages/EpisodesPage.ts';
import { InspectorPage } from './pages/InspectorPage.ts';
import { cli, freePort, startServe, type ServeProcess } from './serveProcess.ts';
import { expect, test } from './fixtures.ts';

const REFERENCE_EPISODES = 29_693;
const LIMIT_MS = 100;

/** One interaction: the longest main-thread task and the slowest input event (Event Timing) while it ran. */
interface StepReport {
  step: string;
  longTasksMs: number[];
  maxEventMs: number;
}

const steps: StepReport[] = [];

// Trace snapshots serialise the DOM on the page's main thread at every action: they would be the long tasks.
test.use({ trace: 'off', screenshot: 'off' });

test.describe('at the reference scale (29,693 episodes)', () => {
  test.skip(process.env.ROUTELENS_E2E_SCALE !== '1', 'opt-in: set ROUTELENS_E2E_SCALE=1 (simulates and imports ~530k turns)');
  // Not serial: a test over the limit must not keep the others from being measured.
  test.describe.configure({ timeout: 180_000 });

  let dir = '';
  let server: ServeProcess | null = null;
  let episodes = 0;

  test.beforeAll(async () => {
    test.setTimeout(600_000);
    let db = process.env.ROUTELENS_E2E_SCALE_DB ?? '';
    if (!db) {
      dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-scale-'));
      const jsonl = join(dir, 'scale.jsonl');
      db = join(dir, 'scale.db');
      const n = process.env.ROUTELENS_E2E_SCALE_EPISODES ?? String(REFERENCE_EPISODES);
      cli(['simulate', '--preset', 'scienceworld', '--episodes', n, '--seed', '1', '--out', jsonl], 120_000);
      cli(['import', jsonl, '--db', db], 600_000);
    }
    const info = JSON.parse(cli(['info', '--db', db, '--json'])) as { runs: { episodes: number }[] };
    episodes = info.runs.reduce((a, r) => a + r.episodes, 0);
    server = await startServe(db, await freePort());
  });

  test.afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    const report = process.env.ROUTELENS_E2E_SCALE_REPORT;
    if (!report) return;
    // A failed test restarts the worker (and this hook runs once per worker): add to what earlier ones wrote.
    const earlier = existsSync(report) ? (JSON.parse(readFileSync(report, 'utf8')) as { steps: StepReport[] }).steps : [];
    writeFileSync(report, `${JSON.stringify({ episodes, limitMs: LIMIT_MS, steps: [...earlier, ...steps] }, null, 1)}\n`);
  });

  /** Starts recording long tasks and input-event timings in the page. */
  async function watch(page: Page): Promise<void> {
    await page.evaluate(() => {
      const w = window as unknown as { __long: number[]; __events: number[] };
      w.__long = [];
      w.__events = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__long.push(e.duration);
      }).observe({ type: 'longtask' });
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__events.push(e.duration);
      }).observe({ type: 'event', durationThreshold: 16 } as PerformanceObserverInit);
    });
  }

  /** Runs one interaction, records what the page reported during it, and checks no task passed the limit. */
  async function step(page: Page, name: string, action: () => Promise<void>): Promise<void> {
    await page.evaluate(() => {
      const w = window as unknown as { __long: number[]; __events: number[] };
      w.__long.length = 0;
      w.__events.length = 0;
    });
    await action();
    // Long-task entries are delivered after the task ends: let one more frame pass before reading them.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
    const { long, events } = await page.evaluate(() => {
      const w = window as unknown as { __long: number[]; __events: number[] };
      return { long: [...w.__long], events: [...w.__events] };
    });
    steps.push({ step: name, longTasksMs: long.map((d) => Math.round(d)), maxEventMs: Math.round(Math.max(0, ...events)) });
    expect.soft(Math.max(0, ...long), `${name}: long tasks ${long.map((d) => d.toFixed(0)).join(', ')} ms`).toBeLessThan(LIMIT_MS);
  }

  test('the Episodes table scrolls through every row, virtualised, without a long task', async ({ page }) => {
    const app = new AppPage(page, server?.url ?? '');
    const table = new EpisodesPage(page);
    await app.open('#/episodes');
    await table.waitReady();
    await expect(table.count).toHaveText(`${episodes.toLocaleString('en-US')} episodes`);
    await watch(page);

    for (const fraction of [0.1, 0.25, 0.5, 0.75, 0.9, 1]) {
      await step(page, `scroll to ${fraction * 100}%`, async () => {
        await table.scroller.evaluate((el, f) => {
          el.scrollTop = (el.scrollHeight - el.clientHeight) * f;
        }, fraction);
        const index = Math.min(episodes, Math.max(1, Math.round(episodes * fraction)));
        await expect(page.locator(`[data-testid="episode-row"][aria-rowindex="${index}"], [data-testid="episode-row"][aria-rowindex="${index - 5}"]`).first()).toBeVisible({ timeout: 5000 });
      });
      // Virtualised: a window of rows, never the whole result.
      expect(await table.rows.count()).toBeLessThan(200);
    }

    const middleIndex = Math.round(episodes / 2);
    const middle = page.locator(`[data-testid="episode-row"][aria-rowindex="${middleIndex}"]`);
    await step(page, 'scroll to the middle', async () => {
      await table.scroller.evaluate((el) => {
        el.scrollTop = (el.scrollHeight - el.clientHeight) / 2;
      });
      await expect(middle).toBeVisible({ timeout: 5000 });
    });
    await page.screenshot({ path: fileURLToPath(new URL('../test-results/screenshots/episodes-scale.png', import.meta.url)) });
    await step(page, 'open an episode from the middle', async () => {
      await middle.click();
      await expect(page.getByTestId('inspector-view')).toHaveAttribute('data-state', 'ready');
    });
    await step(page, 'back to the table', async () => {
      await page.goBack();
      await table.waitReady();
      await expect(middle).toBeVisible({ timeout: 5000 });
    });
    await step(page, 'wheel-scroll 40 notches', async () => {
      await table.scroller.hover();
      for (let i = 0; i < 40; i++) await page.mouse.wheel(0, -600);
      await expect(table.rows.first()).toBeVisible();
    });
  });

  test('sorting, filtering and searching stay responsive', async ({ page }) => {
    const app = new AppPage(page, server?.url ?? '');
    const table = new EpisodesPage(page);
    await app.open('#/episodes');
    await table.waitReady();
    await watch(page);
    await step(page, 'sort by cost, descending', () => table.sortBy('total_cost', 'descending'));
    await step(page, 'scroll the sorted table to the middle', async () => {
      await table.scroller.evaluate((el) => {
        el.scrollTop = el.scrollHeight / 2;
      });
      await expect(page.locator(`[data-testid="episode-row"][aria-rowindex="${Math.round(episodes / 2)}"]`)).toBeVisible({ timeout: 5000 });
    });
    await step(page, 'filter to successes', () => table.setOutcome('Success'));
    expect(await table.matchCount()).toBeLessThan(episodes);
    // Words of the simulator's scienceworld observations and actions.
    await step(page, 'full-text search "thermometer"', () => table.searchFor('thermometer'));
    expect(await table.matchCount()).toBeGreaterThan(0);
    await step(page, 'full-text search "blast furnace"', () => table.searchFor('blast furnace'));
    expect(await table.matchCount()).toBeGreaterThan(0);
  });

  test('the inspector opens the last episode and steps through its turns', async ({ page }) => {
    const app = new AppPage(page, server?.url ?? '');
    const inspector = new InspectorPage(page);
    await app.open('#/runs');
    await watch(page);
    await step(page, 'open the last episode by deep link', async () => {
      await page.evaluate((id) => {
        window.location.hash = `#/episode/${id}`;
      }, episodes);
      await inspector.waitReady();
      await expect(inspector.title).not.toBeEmpty();
    });
    await step(page, 'step through 10 turns (j)', async () => {
      for (let i = 0; i < 10; i++) await page.keyboard.press('j');
      await expect(inspector.detail).toBeVisible();
    });
  });
});
