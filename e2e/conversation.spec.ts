/**
 * One conversation view for every format (issue 35 item 1): an episode reads top to bottom as it happened, every
 * format through the same blocks. MTRouter's `<tool_call>` replies read as calls with their arguments (not JSON with
 * literal `\n`), Inspect's final prose answer as the model's message, Gemini CLI's task (which opens with a blank
 * line) as its text; the column scrolls through the whole episode and the timeline and the list follow the turn in
 * view; a search hit opens on the block that matched, not on the same word higher up in the turn.
 *
 * Its own `routelens serve` over its own database of real samples and one episode written here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { Page } from '@playwright/test';
import { startServer, type RunningServer } from '../electron/server/serve.ts';
import { AppPage } from './pages/AppPage.ts';
import type { InspectorPage } from './pages/InspectorPage.ts';
import { inBothThemes, SHOTS_DIR } from './pages/viewShot.ts';
import { cli } from './serveProcess.ts';
import { expect, test as base } from './fixtures.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const SAMPLES = [
  'fixtures/mtrouter/hle/roulette',
  'fixtures/samples/inspect/2025-05-12T20-27-36-04-00_browser.json',
  'fixtures/samples/gemini-cli/vct-gemini.jsonl',
  'fixtures/samples/claude-code/spotter',
];
const HLE = '66f2a7c9d0e14b3a8c5d6e70';
const GEMINI = '0ab84937-9fe7-4284-986a-33c832af0b6a';
const CLAUDE = '8463c716-a2ea-4c14-9efa-87158ebd9f20';
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
] as const;

/**
 * Turn 1's words name the kestrel before its call; only the call's result (the observation, which search indexes)
 * holds it as well, 60 lines down: the search matches the observation, and that is where the reader must land.
 */
function searchEpisode(): string {
  const listing = Array.from({ length: 90 }, (_, i) => (i === 60 ? 'conf/birds/kestrel.yaml' : `conf/other/file-${i}.yaml`)).join('\n');
  const turn = (t: number, extra: Record<string, unknown>) => ({ t, model: 'gpt-5', cost_usd: 0.001, action: { type: 'tool', tool: 'bash', text: 'bash: ls -R conf' }, ...extra });
  return JSON.stringify({
    schema: 'routelens/v1',
    run: 'search-run',
    episode_id: 'kestrel_0',
    task: { text: 'Find the bird config.' },
    outcome: { success: true },
    turns: [
      turn(0, { message: 'Looking around.', tool_calls: [{ id: 'a', name: 'bash', input: '{"command":"ls"}', result: 'conf' }], observation: 'conf' }),
      turn(1, { message: 'The kestrel settings should be somewhere under conf.', tool_calls: [{ id: 'b', name: 'bash', input: '{"command":"ls -R conf"}', result: listing }], observation: listing }),
      turn(2, { message: 'Done.', action: { type: 'message', text: 'Done.' } }),
    ],
  });
}

const test = base.extend<object, { server: RunningServer & { episodeId(extId: string, run?: string): number } }>({
  server: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-conversation-'));
      const written = join(dir, 'kestrel.jsonl');
      writeFileSync(written, `${searchEpisode()}\n`);
      const dbPath = join(dir, 'conversation.db');
      cli(['import', '--db', dbPath, ...SAMPLES.map((p) => join(root, p)), written], 300_000);
      const ids = new Database(dbPath, { readonly: true });
      const episodeId = (extId: string, run = '%') =>
        ids.prepare('SELECT e.id FROM episodes e JOIN runs r ON r.id = e.run_id WHERE e.ext_id = ? AND r.name LIKE ?').pluck().get(extId, run) as number;
      const server = await startServer({ dbPath });
      await use(Object.assign(server, { episodeId }));
      await server.close();
      ids.close();
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  app: async ({ page, server }, use) => use(new AppPage(page, server.url)),
});

/**
 * The inspector in both themes at one of the two window sizes (a format at each: every resize and theme redraws the
 * view, which the suite's time pays for): the view people read most, looked at.
 */
async function shoot(app: AppPage, page: Page, name: string, size: (typeof SIZES)[number]): Promise<void> {
  await page.setViewportSize(size);
  await inBothThemes(app, (theme) => page.screenshot({ path: `${SHOTS_DIR}conversation-${name}-${size.width}-${theme}.png` }));
  await page.setViewportSize(SIZES[0]);
}

async function open(app: AppPage, inspector: InspectorPage, id: number, turn: number): Promise<void> {
  await app.open(`#/episode/${id}/turn/${turn}`);
  await inspector.waitReady();
  await inspector.expectTurn(turn);
}

test('every format reads as a conversation: MTRouter’s tool calls with their arguments, Inspect’s final answer as a message, Gemini’s task as its text', async ({ app, inspector, page, server }) => {
  test.setTimeout(60_000);
  // MTRouter HLE: the words, then the <tool_call> as a python call whose code reads as lines, then its result.
  await open(app, inspector, server.episodeId(HLE), 0);
  await expect(inspector.block('turn-message').text).toContainText('Energy conservation: m g L/2');
  const call = inspector.detail.getByTestId('tool-call');
  await expect(call).toHaveCount(1);
  await expect(call.getByTestId('tool-call-input').locator('h3').first()).toHaveText('python');
  await expect(call.getByTestId('tool-call-arg-block-text').locator('code.language-python')).toContainText('import math');
  expect(await call.getByTestId('tool-call-arg-block-text').innerText()).toContain('L = 1.2\ng = 9.81\n');
  await expect(call.getByTestId('tool-call-result-text')).toHaveText('4.9522722057657536');
  // Nothing of the turn reads as the reply's raw JSON: no `<tool_call>` markup, no escaped line breaks.
  const shown = await inspector.detail.innerText();
  expect(shown).not.toContain('\\n');
  expect(shown).not.toContain('<tool_call>');
  await expect(inspector.detail.getByTestId('turn-action')).toHaveCount(0);
  await shoot(app, page, 'mtrouter-hle', SIZES[1]);

  // Inspect: its calls with their arguments and results, and its final prose answer as the model's message.
  const inspect = server.episodeId('1', 'browser%');
  await open(app, inspector, inspect, 0);
  await expect(inspector.detail.getByTestId('tool-call-arg')).toHaveText(['urlhttps://www.aisi.gov.uk/']);
  await expect(inspector.detail.getByTestId('tool-call-result-text')).toContainText('AI Security Institute');
  await open(app, inspector, inspect, 4);
  const answer = inspector.block('turn-message');
  await expect(answer.root).toHaveAttribute('data-format', 'markdown');
  await expect(answer.text).toContainText('The AI Security Institute (AISI) is the premier governmental organization');
  await expect(inspector.detail.getByTestId('turn-action')).toHaveCount(0);
  await expect(inspector.detail.getByTestId('turn-observation')).toHaveCount(0);
  await expect(inspector.detail).not.toContainText('None logged');
  await shoot(app, page, 'inspect-answer', SIZES[0]);

  // Gemini CLI: the task opens with a blank line; the header and the conversation show its words.
  await open(app, inspector, server.episodeId(GEMINI), 0);
  await expect(inspector.taskText).toHaveText(/^You are an AI agent that brings the power of Gemini/);
  await expect(inspector.block('turn-task', inspector.opening).text).toContainText('You are an AI agent that brings the power of Gemini');
  await expect(inspector.detail.getByTestId('turn-reasoning-fold')).not.toHaveAttribute('open');
  await expect(inspector.detail.getByTestId('tool-call')).toHaveCount(5);
});

test('the column scrolls through the whole episode and the timeline and the list follow the turn in view', async ({ app, inspector, page, server }) => {
  test.setTimeout(60_000);
  const id = server.episodeId(CLAUDE);
  await open(app, inspector, id, 0);
  await expect(inspector.opening.getByTestId('turn-task')).toBeVisible();
  const pane = await inspector.detailScroll.boundingBox();
  await page.mouse.move((pane?.x ?? 0) + 200, (pane?.y ?? 0) + 200);
  let last = 0;
  for (let i = 0; i < 10; i++) {
    const top = await inspector.detailScroll.evaluate((el) => el.scrollTop);
    await page.mouse.wheel(0, 1500);
    await expect.poll(() => inspector.detailScroll.evaluate((el) => el.scrollTop)).toBeGreaterThan(top);
    // The URL, the list and the timeline say the turn in view; the conversation stays where the reader put it.
    await expect.poll(async () => new URL(page.url()).hash).toBe(`#/episode/${id}/turn/${await inspector.detail.getAttribute('data-t')}`);
    const t = Number(await inspector.detail.getAttribute('data-t'));
    await expect(page.locator('.turn-item.is-current')).toHaveAttribute('data-t', String(t));
    expect(t).toBeGreaterThanOrEqual(last);
    last = t;
  }
  expect(last).toBeGreaterThan(5);
  await expect(page.locator('.timeline-mark.is-current')).toHaveCount(1);
  // A key takes the next turn to the top; the turns are read a section at a time (a few in the page, not all).
  await page.keyboard.press('j');
  await inspector.expectTurn(last + 1);
  await expect
    .poll(() => inspector.detailScroll.evaluate((el) => Math.round(el.querySelector('[data-current="true"]')!.getBoundingClientRect().top - el.getBoundingClientRect().top - el.clientTop)))
    .toBe(0);
  expect(await page.getByTestId('turn-detail').count()).toBeLessThan(20);
  // A turn far away from the list: the conversation goes there, and the episode's end reads last.
  await page.keyboard.press('End');
  await inspector.expectTurn(142);
  await expect(inspector.detail).toBeInViewport();
  await shoot(app, page, 'claude-code', SIZES[0]);
});

test('a search hit opens on the block that matched, not on the same word earlier in the turn', async ({ app, episodes, inspector, page }) => {
  await app.open('#/episodes');
  await episodes.searchFor('kestrel');
  const row = episodes.row('kestrel_0');
  await expect(row.getByTestId('search-match')).toContainText('Turn 1 · observation');
  await row.click();
  await inspector.waitReady();
  await inspector.expectTurn(1);
  expect(new URL(page.url()).hash).toMatch(/\?q=kestrel&at=observation$/);
  const inWords = inspector.block('turn-message').text.locator('mark.search-hit');
  const inResult = inspector.detail.getByTestId('tool-call-result-text').locator('mark.search-hit');
  await expect(inWords).toHaveText('kestrel');
  await expect(inResult).toHaveText('kestrel');
  await expect(inResult).toBeInViewport();
  await expect(inWords).not.toBeInViewport();
});
