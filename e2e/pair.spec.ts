/**
 * The split inspector (#/pair/<A>/<B>): two episodes of one task, turns aligned by index, the first divergence
 * marked, keys as in the inspector (n / N step through differences), Escape back to Compare, the row in the URL.
 *
 * Two pairs: on the shared e2e database, the seeded simulation's grow-fruit_27 in sw-random (24 turns) and in
 * sw-mtrouter (17 turns), which differ from the first turn; and a pair made here from the canonical example's
 * melt_5_run1 (10 turns) whose divergences are known by construction, imported into a database of its own so the
 * shared one's runs and counts stay as the other specs expect.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type RunningServer } from '../electron/server/serve.ts';
import { AppPage } from './pages/AppPage.ts';
import { PairPage } from './pages/PairPage.ts';
import { expect, test as base } from './fixtures.ts';
import { cli } from './serveProcess.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const shots = join(root, 'test-results', 'screenshots');

const test = base.extend<{ pair: PairPage }>({
  pair: async ({ page }, use) => use(new PairPage(page)),
});

test.describe('on the e2e database', () => {
  let a = 0;
  let b = 0;
  test.beforeEach(async ({ app }) => {
    await app.open('#/runs');
    a = await app.episodeId('grow-fruit_27_e1');
    b = await app.episodeId('grow-fruit_27_e21');
  });

  test('aligns the two runs turn by turn, the shorter one empty past its end', async ({ app, pair, page }) => {
    await app.open(`#/pair/${a}/${b}`);
    await pair.waitReady();
    await pair.expectTurn(0);
    await expect(page.getByTestId('pair-header')).toContainText('Task grow-fruit_27');
    await expect(page.getByTestId('pair-task-mismatch')).toHaveCount(0);
    await expect(pair.side('a')).toContainText('sw-random');
    await expect(pair.side('a').getByTestId('pair-turns')).toHaveText('24');
    await expect(pair.side('b')).toContainText('sw-mtrouter');
    await expect(pair.side('b').getByTestId('pair-turns')).toHaveText('17');
    await expect(pair.side('a').getByTestId('pair-open-episode')).toHaveAttribute('href', `#/episode/${a}`);
    await expect(pair.side('b').getByTestId('pair-open-episode')).toHaveAttribute('href', `#/episode/${b}`);
    await expect(pair.grid).toHaveAttribute('data-rows', '24');

    // They part at once: different models on turn 0, which the marker names.
    const modelA = await pair.cell(0, 'a').getByTestId('model-chip').getAttribute('data-model');
    const modelB = await pair.cell(0, 'b').getByTestId('model-chip').getAttribute('data-model');
    expect(modelA).not.toBe(modelB);
    await expect(pair.marker).toHaveCount(1);
    const escape = (text: string | null) => (text ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await expect(pair.row(0).getByTestId('divergence-marker')).toHaveAttribute(
      'title',
      new RegExp(`^First divergence at turn 0: model \\(A ${escape(modelA)}, B ${escape(modelB)}\\)`),
    );

    await page.keyboard.press('End');
    await pair.expectTurn(23);
    await expect(pair.cell(23, 'b')).toHaveAttribute('data-empty', 'true');
    await expect(pair.cell(23, 'a')).not.toHaveAttribute('data-empty', 'true');
    await expect(pair.detail('a').getByTestId('turn-detail')).toHaveAttribute('data-t', '23');
    await expect(pair.detail('b').getByTestId('pair-detail-none')).toHaveText('B has no turn 23: it ended after 17 turns.');

    // The ended tail is one stop for N, at its start.
    await page.keyboard.press('Shift+N');
    await pair.expectTurn(17);
    await page.keyboard.press('k');
    await pair.expectTurn(16);
    await expect(pair.cell(16, 'b')).not.toHaveAttribute('data-empty', 'true');

    await page.keyboard.press('Escape');
    await expect.poll(() => app.hash()).toBe('#/compare');
  });

  for (const [width, height] of [
    [1440, 900],
    [1024, 700],
  ] as const) {
    for (const theme of ['light', 'dark'] as const) {
      test(`fits ${width}×${height} in the ${theme} theme`, async ({ app, pair, page }) => {
        await page.setViewportSize({ width, height });
        await app.open(`#/pair/${a}/${b}/turn/16`);
        await app.setTheme(theme);
        await pair.waitReady();
        await pair.expectTurn(16);
        await expect(pair.row(16)).toBeInViewport();
        await expect(pair.detail('a').getByTestId('turn-title')).toBeInViewport();
        await expect(pair.detail('b').getByTestId('turn-title')).toBeInViewport();
        // Nothing spills sideways: both columns fit the view.
        const spill = await pair.view.evaluate((el) => el.scrollWidth - el.clientWidth);
        expect(spill).toBeLessThanOrEqual(0);
        await page.screenshot({ path: join(shots, `pair-${width}-${theme}.png`) });
      });
    }
  }
});

/**
 * melt_5_run1 as A, and B: the same episode but for turn 1 (the same command wrapped in other prose: no
 * difference), turn 3 (another command), turn 5 (another model, whose cost is unknown) and its end after 7 turns.
 */
function pairLog(): string {
  const line = readFileSync(join(root, 'fixtures/canonical/example.jsonl'), 'utf8')
    .split('\n')
    .find((l) => l.includes('"melt_5_run1"'));
  if (!line) throw new Error('melt_5_run1 is not in fixtures/canonical/example.jsonl');
  type Turn = { model: string; action: { text: string }; cost_usd?: number };
  const a = JSON.parse(line) as { run: string; episode_id: string; turns: Turn[] };
  const b = JSON.parse(line) as typeof a;
  a.run = 'e2e-pair-a';
  a.episode_id = 'melt_5_a';
  b.run = 'e2e-pair-b';
  b.episode_id = 'melt_5_b';
  b.turns = b.turns.slice(0, 7);
  b.turns[1]!.action.text = 'THOUGHT: the pot goes on the stove first.\n```text\nmove  pot to stove\n```';
  b.turns[3]!.action.text = 'wait';
  b.turns[5]!.model = 'e2e-pair-unpriced';
  delete b.turns[5]!.cost_usd;
  return `${JSON.stringify(a)}\n${JSON.stringify(b)}\n`;
}

const own = base.extend<{ pair: PairPage }, { ownServer: RunningServer }>({
  ownServer: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-pair-'));
      const dbPath = join(dir, 'pair.db');
      writeFileSync(join(dir, 'pair.jsonl'), pairLog());
      cli(['import', join(dir, 'pair.jsonl'), '--db', dbPath]);
      const server = await startServer({ dbPath });
      await use(server);
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  app: async ({ page, ownServer }, use) => use(new AppPage(page, ownServer.url)),
  pair: async ({ page }, use) => use(new PairPage(page)),
});

own.describe('a pair whose divergences are known', () => {
  let a = 0;
  let b = 0;
  own.beforeEach(async ({ app }) => {
    await app.open('#/runs');
    a = await app.episodeId('melt_5_a');
    b = await app.episodeId('melt_5_b');
  });

  own('marks the first divergence and says why; rows that agree are not marked', async ({ app, pair }) => {
    await app.open(`#/pair/${a}/${b}/turn/0`);
    await pair.waitReady();
    await expect(pair.rows).toHaveCount(10);
    const differs = await pair.rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-differs')));
    expect(differs).toEqual(['', '', '', 'action', '', 'model', '', 'ended', 'ended', 'ended']);
    await expect(pair.marker).toHaveCount(1);
    await expect(pair.row(3).getByTestId('divergence-marker')).toHaveAttribute('title', 'First divergence at turn 3: action differs');
    await expect(pair.row(5).getByTestId('pair-differs')).toHaveAttribute('title', 'model (A gpt-5, B e2e-pair-unpriced) differs');
    await expect(pair.summary).toHaveText('First divergence at turn 3action differs; turns 0–2 agree.');
    for (const t of [7, 8, 9]) await expect(pair.cell(t, 'b')).toHaveAttribute('data-empty', 'true');
    await expect(pair.cell(6, 'b')).not.toHaveAttribute('data-empty', 'true');

    // B has a call of unknown cost: its known part as a lower bound and the calls left out, never a total; A's is known.
    await expect(pair.side('b').getByTestId('pair-cost')).toHaveText(/^≥ \$0\.0\d+ \(\d+ calls? unpriced\)$/);
    await expect(pair.side('a').getByTestId('pair-cost')).toHaveText(/^\$0\.0\d+$/);

    await pair.summary.getByRole('button').click();
    await pair.expectTurn(3);
    await expect(pair.detail('a').getByTestId('turn-action-text')).toContainText('move pot to stove');
    await expect(pair.detail('b').getByTestId('turn-action-text')).toContainText('wait');
  });

  own('n / N step through the differences, j / k and Home / End through turns, Escape goes to Compare', async ({ app, pair, page }) => {
    await app.open(`#/pair/${a}/${b}/turn/0`);
    await pair.waitReady();
    for (const t of [3, 5, 7]) {
      await page.keyboard.press('n');
      await pair.expectTurn(t);
    }
    await page.keyboard.press('n');
    await pair.expectTurn(7);
    await expect(pair.note).toHaveText('No difference after this turn.');
    await page.keyboard.press('Shift+N');
    await pair.expectTurn(5);
    await expect(pair.detail('b').getByTestId('model-chip').first()).toHaveAttribute('data-model', 'e2e-pair-unpriced');
    await page.keyboard.press('j');
    await pair.expectTurn(6);
    await page.keyboard.press('ArrowUp');
    await pair.expectTurn(5);
    await page.keyboard.press('End');
    await pair.expectTurn(9);
    await expect(pair.detail('b').getByTestId('pair-detail-none')).toHaveText('B has no turn 9: it ended after 7 turns.');
    await page.keyboard.press('Home');
    await pair.expectTurn(0);
    await page.keyboard.press('Shift+N');
    await expect(pair.note).toHaveText('No difference before this turn.');
    await pair.button('next-difference').click();
    await pair.expectTurn(3);
    await page.keyboard.press('Escape');
    await expect.poll(() => app.hash()).toBe('#/compare');
  });

  own('the URL keeps the row; a turn opens in the inspector and Back returns to it', async ({ app, pair, page }) => {
    await app.open(`#/pair/${a}/${b}/turn/5`);
    await pair.waitReady();
    await pair.expectTurn(5);
    await pair.row(8).click();
    await pair.expectTurn(8);
    await page.reload();
    await pair.waitReady();
    await pair.expectTurn(8);

    // A row past both ends shows the last one, and the URL says so.
    await app.open(`#/pair/${a}/${b}/turn/99`);
    await pair.waitReady();
    await pair.expectTurn(9);

    await pair.row(5).click();
    await pair.detail('b').getByTestId('pair-open-turn').click();
    await expect(page).toHaveURL(new RegExp(`#/episode/${b}/turn/5$`));
    await expect(page.getByTestId('inspector-view')).toHaveAttribute('data-episode-id', String(b));
    await page.goBack();
    await pair.waitReady();
    await pair.expectTurn(5);
  });
});
