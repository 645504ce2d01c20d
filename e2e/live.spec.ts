/**
 * Live following in the window (issue 36 items 3–5): writes by another process show up without a reload — a run
 * imported by the CLI appears in the Runs view within seconds, first and marked running (its calls are stamped
 * minutes ago), its inspector header has the live strip; a folder followed from the window's dialog is imported as
 * an agent appends to its log, the open episode growing in place; an alert row shows as a banner, once, that opens
 * its session.
 *
 * Its own `routelens serve` over its own database (the shared one stays as the other specs count it).
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../electron/server/serve.ts';
import { openDatabase } from '../electron/db/database.ts';
import { AppPage } from './pages/AppPage.ts';
import { inBothThemes, SHOTS_DIR } from './pages/viewShot.ts';
import { cli } from './serveProcess.ts';
import { expect, test as base } from './fixtures.ts';

const test = base.extend<object, { live: { server: RunningServer; dir: string; dbPath: string } }>({
  live: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-live-'));
      const dbPath = join(dir, 'live.db');
      cli(['import', 'fixtures/canonical/example.jsonl', '--db', dbPath], 120_000);
      const server = await startServer({ dbPath });
      await use({ server, dir, dbPath });
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  app: async ({ page, live }, use) => use(new AppPage(page, live.server.url)),
});

/** A session an agent is writing now: five calls over the last twelve minutes, the last three to one model. */
function runningSession(path: string): void {
  const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const call = (t: number, model: string, minutesAgo: number, cost: number) => ({
    t, model, timestamp: at(minutesAgo), cost_usd: cost, action: { type: 'message', text: `step ${t}` }, observation: 'ok',
  });
  const episode = {
    schema: 'routelens/v1', run: 'agent-now', episode_id: 'session-live', task: { id: 'live', text: 'Refactor the parser while we watch.' },
    turns: [call(0, 'claude-sonnet-4', 12, 0.1), call(1, 'claude-sonnet-4', 6, 0.1), call(2, 'claude-opus-4', 4, 0.4), call(3, 'claude-opus-4', 2, 0.4), call(4, 'claude-opus-4', 0.5, 0.4)],
  };
  writeFileSync(path, `${JSON.stringify(episode)}\n`);
}

test('a run another process imports appears in Runs without a reload, first and running; its inspector shows the live strip', async ({ app, page, live }) => {
  await app.open('#/runs');
  await expect(page.getByTestId('run-row')).toHaveCount(2); // example.jsonl's two runs
  await expect(page.getByTestId('live-badge')).toHaveCount(0);
  // Gone if the page reloads.
  await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));

  const file = join(live.dir, 'agent-now.jsonl');
  runningSession(file);
  const wrote = Date.now();
  cli(['import', file, '--db', live.dbPath]);
  const rows = page.getByTestId('run-row');
  await expect(rows).toHaveCount(3, { timeout: 5000 });
  console.log(`live: the imported run showed ${Date.now() - wrote} ms after the import began (CLI start included)`);
  await expect(rows.first()).toHaveAttribute('data-run-name', 'agent-now');
  const badge = rows.first().getByTestId('live-badge');
  await expect(badge).toHaveText('running');
  await expect(badge).toHaveAttribute('title', /^Running: last write (just now|\d+ s ago)/);
  expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
  for (const size of [{ width: 1440, height: 900 }, { width: 1024, height: 700 }]) {
    await page.setViewportSize(size);
    await inBothThemes(app, (theme) => page.screenshot({ path: `${SHOTS_DIR}live-runs-${size.width}-${theme}.png` }));
  }

  await page.setViewportSize({ width: 1440, height: 900 });
  const id = await app.episodeId('session-live');
  await app.go(`#/episode/${id}`);
  const header = page.getByTestId('episode-header');
  await expect(header.getByTestId('live-badge')).toHaveText('running');
  const strip = header.getByTestId('live-strip');
  // $1.40 so far; the last 10 minutes' $1.30 (the first call is older) is $7.80/h; three calls in a row to opus.
  await expect(strip).toContainText('$1.40');
  await expect(strip.getByTestId('live-rate')).toHaveText('last 10 min $7.80/h');
  await expect(strip.getByTestId('live-streak')).toHaveText('3 calls since switch');
  await expect(strip.getByTestId('model-chip')).toHaveText([/^claude-opus-4\s*3 calls$/, /^claude-sonnet-4\s*2 calls$/]);
  for (const size of [{ width: 1440, height: 900 }, { width: 1024, height: 700 }]) {
    await page.setViewportSize(size);
    await inBothThemes(app, (theme) => page.screenshot({ path: `${SHOTS_DIR}live-inspector-${size.width}-${theme}.png` }));
  }
  await app.go('#/episodes');
  const listed = page.locator('[data-testid="episode-row"][data-ext-id="session-live"]');
  await listed.scrollIntoViewIfNeeded();
  await expect(listed.getByTestId('live-badge')).toHaveCount(1);
  await page.screenshot({ path: `${SHOTS_DIR}live-episodes-1024-dark.png` });
  await page.setViewportSize({ width: 1440, height: 900 });
  await app.setTheme('light');
  await listed.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS_DIR}live-episodes-1440-light.png` });
});

// The relative path typed first is refused by the server (HTTP 400), which the browser logs.
test.describe(() => {
  test.use({ allowedConsoleErrors: [/status of 400 .*\/api\/followFolders\)$/] });
  test('a folder followed from the window: what an agent appends show in the open episode in place; an alert shows once as a banner that opens it', async ({ app, page, live }) => {
  await app.open('#/runs');
  await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));
  const folder = join(live.dir, 'codex-sessions');
  mkdirSync(folder);
  await page.getByTestId('follow-folders-button').click();
  const dialog = page.getByTestId('follow-dialog');
  await expect(dialog.getByTestId('follow-none')).toBeVisible();
  await dialog.getByTestId('follow-path').fill('relative/path');
  await dialog.getByTestId('follow-add').click();
  await expect(dialog.getByTestId('follow-problem')).toContainText('not an absolute path');
  await dialog.getByTestId('follow-path').fill(folder);
  await dialog.getByTestId('follow-add').click();
  await expect(dialog.getByTestId('follow-item')).toHaveCount(1);
  await expect(dialog.getByTestId('follow-item')).toContainText(folder);
  // The window behind a dialog is inert (the theme button too): each theme's picture opens the dialog again.
  for (const theme of ['light', 'dark'] as const) {
    await page.keyboard.press('Escape');
    await app.setTheme(theme);
    await page.getByTestId('follow-folders-button').click();
    await expect(dialog.getByTestId('follow-item')).toHaveCount(1);
    await page.screenshot({ path: `${SHOTS_DIR}live-follow-dialog-1440-${theme}.png` });
  }
  await page.keyboard.press('Escape');
  await app.setTheme('light');

  // An agent starts writing its rollout there: the first 40 of its 110 lines.
  const rollout = readFileSync('fixtures/samples/codex/vct-codex.jsonl', 'utf8').split('\n').filter((l) => l !== '');
  const file = join(folder, 'rollout-live.jsonl');
  writeFileSync(file, `${rollout.slice(0, 40).join('\n')}\n`);
  const row = page.locator('[data-testid="run-row"]').filter({ has: page.getByTestId('live-badge') }).filter({ hasText: 'rollout-live.jsonl' });
  await expect(row).toHaveCount(1, { timeout: 8000 });
  await row.click();
  await page.locator('[data-testid="episode-row"]').first().click();
  await expect(page.getByTestId('inspector-view')).toHaveAttribute('data-state', 'ready');
  const turns = page.getByTestId('episode-header').getByTestId('episode-turns');
  const before = Number(await turns.textContent());
  const id = await page.getByTestId('inspector-view').getAttribute('data-episode-id');
  await app.go(`#/episode/${id}/turn/2`);
  await expect(page).toHaveURL(/\/turn\/2$/);

  // It writes the rest: the open episode grows where it is, at the turn shown and the same scroll, without a reload.
  const scroller = page.getByTestId('turn-detail-scroll');
  await page.waitForTimeout(1000); // the reader holds turn 2 at the top while its neighbours settle
  const scrolled = await scroller.evaluate((el) => el.scrollTop);
  appendFileSync(file, `${rollout.slice(40).join('\n')}\n`);
  await expect.poll(async () => Number(await turns.textContent()), { timeout: 8000 }).toBeGreaterThan(before);
  await expect(page).toHaveURL(/\/turn\/2$/);
  await page.waitForTimeout(500);
  expect(await scroller.evaluate((el) => el.scrollTop)).toBe(scrolled);
  expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);

  // An alert fired for it (as `watch` records one) is a banner, once; a click opens the session.
  const episode = await page.getByTestId('episode-title').textContent();
  const run = await page.locator('.crumb-run').textContent();
  await app.go('#/runs');
  const writer = openDatabase(live.dbPath);
  try {
    const fire = writer.prepare('INSERT INTO alerts (run, episode, rule, fired_at, message) VALUES (?, ?, ?, ?, ?)');
    fire.run(run, episode, 'errors>=3 in 5', new Date().toISOString(), `${episode}: 3 errors in the last 5 calls <b>as text</b>`);
    const banner = page.getByTestId('alert-banner');
    await expect(banner).toHaveCount(1, { timeout: 5000 });
    await expect(banner).toContainText('3 errors in the last 5 calls <b>as text</b>');
    for (const size of [{ width: 1440, height: 900 }, { width: 1024, height: 700 }]) {
      await page.setViewportSize(size);
      await inBothThemes(app, (theme) => page.screenshot({ path: `${SHOTS_DIR}live-alert-${size.width}-${theme}.png` }));
    }
    // Another write: the window hears the change, and the alert it has shown stays one banner.
    writer.prepare("INSERT INTO followed_roots (path, added_at) VALUES ('/nowhere/else', ?)").run(new Date().toISOString());
    await page.waitForTimeout(1200);
    await expect(banner).toHaveCount(1);
    await banner.getByTestId('alert-open').click();
    await expect(page.getByTestId('episode-title')).toHaveText(episode ?? '');
    await expect(banner).toHaveCount(0);
  } finally {
    writer.close();
  }
});
});
