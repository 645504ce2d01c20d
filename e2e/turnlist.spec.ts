/**
 * The turn list says what the agent did (the command that ran, the tool it called), per format, and a cost the
 * log does not give per turn reads as unknown everywhere in the inspector, never as $0 or a flat cost line.
 *
 * Its own `routelens serve` over its own database of real samples (mini-swe-agent, SWE-agent, a Claude Code
 * session), so the shared database the other specs count stays as it is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { startServer, type RunningServer } from '../electron/server/serve.ts';
import { AppPage } from './pages/AppPage.ts';
import { inBothThemes } from './pages/viewShot.ts';
import { TurnListPage } from './pages/TurnListPage.ts';
import { cli } from './serveProcess.ts';
import { expect, test as base } from './fixtures.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const shots = join(root, 'test-results', 'screenshots');
const SAMPLES = ['fixtures/samples/mini-swe-agent', 'fixtures/samples/swe-agent', 'fixtures/samples/claude-code/spotter'];

const test = base.extend<{ list: TurnListPage }, { server: RunningServer & { episodeId(extId: string): number } }>({
  server: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-turnlist-'));
      const dbPath = join(dir, 'turnlist.db');
      cli(['import', '--db', dbPath, ...SAMPLES.map((p) => join(root, p))], 300_000);
      const ids = new Database(dbPath, { readonly: true });
      const episodeId = (extId: string) => ids.prepare('SELECT id FROM episodes WHERE ext_id = ?').pluck().get(extId) as number;
      const server = await startServer({ dbPath });
      await use(Object.assign(server, { episodeId }));
      await server.close();
      ids.close();
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  app: async ({ page, server }, use) => use(new AppPage(page, server.url)),
  list: async ({ page }, use) => use(new TurnListPage(page)),
});

test('mini-swe-agent turns show the bash command that ran, not code quoted in the reasoning', async ({ app, inspector, list, server }) => {
  await app.open(`#/episode/${server.episodeId('astropy__astropy-7166')}/turn/4`);
  await inspector.waitReady();
  await expect(list.summary(0)).toHaveText('ls -R && grep -r "class InheritDocstrings" .');
  // Turn 4's reply quotes Python (`for key, val in dct.items():`) before its ```bash block.
  await expect(inspector.detail).toContainText('for key, val in dct.items():');
  await expect(list.summary(4)).toHaveText("cat <<'EOF' > reproduce_issue.py …");
  await expect(list.summary(3)).toHaveText("sed -n '497,550p' astropy/utils/misc.py");
});

test('a mini-swe-agent reply reads as its thought (the model\'s words), then the command that ran and what it printed', async ({ app, inspector, server }) => {
  await app.open(`#/episode/${server.episodeId('astropy__astropy-7166')}/turn/3`);
  await inspector.waitReady();
  await expect(inspector.block('turn-message').text).toContainText('starts on line 497');
  await expect(inspector.block('turn-message').text).not.toContainText('THOUGHT');
  const command = inspector.detail.getByTestId('turn-command');
  await expect(command.getByTestId('turn-action')).toHaveAttribute('data-format', 'code');
  await expect(command.getByTestId('turn-action-text')).toHaveText("sed -n '497,550p' astropy/utils/misc.py");
  await expect(command.getByTestId('turn-observation-text')).toContainText('class InheritDocstrings(type):');
});

test('at 1440×900 beside the step debugger, the turn list has room for a command of about 30 characters', async ({ app, inspector, list, page, server }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await app.open(`#/episode/${server.episodeId('8463c716-a2ea-4c14-9efa-87158ebd9f20')}/turn/0`);
  await inspector.waitReady();
  await inspector.openDebugger();
  // 12.5 px text is about 7 px a character; 18 characters (126 px) was what the list showed before.
  expect(await list.summary(1).evaluate((el) => el.clientWidth)).toBeGreaterThanOrEqual(200);
  await expect(list.summary(1)).toHaveText('bash: bd show spotter-fum.1');
  expect(await list.summary(1).evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
});

test('a Claude Code turn with several tool calls shows the first and counts the rest', async ({ app, inspector, list, server }) => {
  await app.open(`#/episode/${server.episodeId('8463c716-a2ea-4c14-9efa-87158ebd9f20')}/turn/2`);
  await inspector.waitReady();
  await expect(list.summary(2)).toHaveText('bash: bd update spotter-fum.1 --status in_progress');
  await expect(list.moreCalls(2)).toHaveText('+2');
  await expect(list.summary(2)).toHaveAttribute('title', /Read …\/spotter\/services\/transcript_renderer\.ex\nRead …\/spotter\/transcripts\/jsonl_parser\.ex/);
  await expect(list.moreCalls(1)).toHaveCount(0);
  // In the turn, each call once: the shell call as its command; no Action block repeating the list's digest.
  await expect(inspector.block('turn-action').root).toHaveCount(0);
  await expect(inspector.detail.getByTestId('tool-call-input')).toHaveCount(3);
  await expect(inspector.block('tool-call-input').text).toHaveText('bd update spotter-fum.1 --status in_progress');
  await expect(inspector.block('turn-observation').root).toHaveCount(0);
});

test("a log with only the episode's total: turn costs unknown, no cost line (both themes)", async ({ app, inspector, list, page, server }) => {
  await app.open(`#/episode/${server.episodeId('6e44b9__sweagenttestrepo-1c2844')}/turn/0`);
  await inspector.waitReady();
  await expect(list.rows).toHaveCount(5);
  // What SWE-agent ran, and its thought kept as the turn's reasoning.
  await expect(list.summary(0)).toHaveText('find_file missing_colon.py');
  await expect(list.summary(4)).toHaveText('submit');
  await expect(inspector.detail.getByTestId('turn-reasoning')).toContainText('To start addressing this issue, I will first search for the');
  for (let i = 0; i < 5; i++) {
    await expect(list.cost(i)).toHaveText('—');
    await expect(list.cost(i)).toHaveAttribute('title', "Unknown: this log gives only the episode's total, $0.0195");
  }
  await expect(inspector.detail.getByTestId('turn-cost')).toContainText('—');
  await expect(inspector.detail.getByTestId('turn-cost')).toHaveAttribute('title', /this log gives only the episode's total, \$0\.0195/);
  // No line, no dollar axis: a flat line from $0 would read as a free episode.
  await expect(list.costLine).toHaveCount(0);
  await expect(list.costTicks).toHaveCount(0);
  await expect(list.costGap).toHaveText(/cost per turn unknown/);
  await inBothThemes(app, (theme) => page.screenshot({ path: join(shots, `turnlist-total-only-${theme}.png`) }));
});

test('a run with a cost per turn still draws its cost line and shows each cost', async ({ app, inspector, list, server }) => {
  await app.open(`#/episode/${server.episodeId('astropy__astropy-7166')}/turn/0`);
  await inspector.waitReady();
  await expect(list.costLine).toHaveCount(1);
  await expect(list.costGap).toHaveCount(0);
  await expect(list.cost(0)).toHaveText(/^\$0\.\d+$/);
  await expect(list.cost(0)).not.toHaveAttribute('title', /.+/);
});
