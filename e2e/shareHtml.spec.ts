/**
 * A shared case opens anywhere, offline (issue 37): the window's "Share as HTML…" saves the Claude Code session with
 * its subagents; Chromium opens the file from file:// with every other request refused and recorded (none is made),
 * no console error, the app's conversation view, the footer, and j/k moving between turns. Hostile log text in a
 * case is text, as in the window. Screenshots of the file at both sizes go to test-results/screenshots.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { SHOTS_DIR } from './pages/viewShot.ts';
import { cli } from './serveProcess.ts';

const CLAUDE = '8463c716-a2ea-4c14-9efa-87158ebd9f20';

/** From here on the page may load files only: any other request is refused and kept in the list returned. */
async function offline(page: Page): Promise<{ refused: string[]; requested: string[] }> {
  const refused: string[] = [];
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  await page.context().route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    refused.push(url);
    return route.abort();
  });
  return { refused, requested };
}

test('Share as HTML saves the session and its subagents; the file opens offline and reads as the inspector', async ({ page, app, inspector }, testInfo) => {
  await app.open();
  await app.go(`#/episode/${await app.episodeId(CLAUDE)}`);
  await inspector.waitReady();
  await page.getByTestId('share-case').click();
  await expect(page.getByTestId('share-case-redact')).toBeChecked();
  const download = page.waitForEvent('download');
  await page.getByTestId('share-case-save').click();
  const file = testInfo.outputPath('case.html');
  await (await download).saveAs(file);
  await expect(page.getByTestId('share-case-done')).toContainText('redacted');

  const net = await offline(page);
  const url = pathToFileURL(file).href;
  await page.goto(url);
  await expect(page.getByTestId('case-app')).toBeVisible();
  await inspector.waitReady();
  await expect(inspector.opening).toContainText('Work on bead spotter-fum');
  await expect(inspector.header).toContainText(/Turns\s*143/i);
  await expect(page.getByTestId('case-episode-select').locator('option')).toHaveCount(3);
  await expect(page.getByTestId('case-footer')).toContainText(/Redacted: .*RouteLens \d+\.\d+\.\d+/);
  await expect(page.getByTestId('case-footer')).toContainText(/Cut: \d+ long texts?/);

  await inspector.expectTurn(0);
  await page.keyboard.press('j');
  await inspector.expectTurn(1);
  await page.keyboard.press('j');
  await inspector.expectTurn(2);
  await page.keyboard.press('k');
  await inspector.expectTurn(1);
  // The turn's head: its model and its cost, as in the window.
  await expect(inspector.detail).toContainText(/claude-opus-4-6[\s\S]*\$0\.\d+/);

  for (const [width, height] of [
    [1440, 900],
    [1024, 700],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: join(SHOTS_DIR, `share-html-case-${width}x${height}.png`) });
  }
  expect(net.refused, 'requests the page made beyond its file').toEqual([]);
  expect(net.requested.every((u) => u.startsWith('file:')), net.requested.join('\n')).toBe(true);
});

test('a case of hostile log text shows it as text, runs none of it and loads nothing', async ({ page, state }, testInfo) => {
  const file = testInfo.outputPath('hostile.html');
  mkdirSync(dirname(file), { recursive: true });
  cli(['export-html', '--db', state.dbPath, '--episode', 'hostile_0', '--out', file]);
  const net = await offline(page);
  await page.goto(pathToFileURL(file).href);
  await expect(page.getByTestId('inspector-view')).toHaveAttribute('data-state', 'ready');
  const conversation = page.getByTestId('turn-detail-scroll');
  await expect(conversation).toContainText('<img src=x onerror=alert(1)>');
  await expect(conversation.locator('img, a[href^="javascript"], style')).toHaveCount(0);
  expect(await page.locator('script').count()).toBe(2);
  expect(net.refused).toEqual([]);
});
