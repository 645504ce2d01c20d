/**
 * Issue 35's rough edges of the window: an import names every format it reads, shows the run it added first with a
 * link to it, and clears a search typed before it; `?` lists every key the window answers to; no text of Runs,
 * Episodes, the inspector's header or Compare is cut off without "…" and a tooltip at 1024×700.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../electron/db/database.ts';
import { importPaths } from '../electron/importers/pipeline.ts';
import { startServer, type RunningServer } from '../electron/server/serve.ts';
import { KEY_GROUPS, keyLabel } from '../renderer/shortcuts.ts';
import { LOG_FORMAT_NAMES } from '../shared/logFormats.ts';
import { AppPage } from './pages/AppPage.ts';
import { clippedText } from './pages/clippedText.ts';
import { ComparePage } from './pages/ComparePage.ts';
import { ImportPage } from './pages/ImportPage.ts';
import { PalettePage } from './pages/PalettePage.ts';
import { inBothThemes, SHOTS_DIR } from './pages/viewShot.ts';
import { expect, test } from './fixtures.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const example = join(root, 'fixtures/canonical/example.jsonl');
const FORMATS = Object.values(LOG_FORMAT_NAMES);

test.describe('an import from the window', () => {
  let dir: string;
  let server: RunningServer;

  // A database of its own holding two runs already, so "first" means something and the shared one stays as it is.
  test.beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-edges-'));
    const db = openDatabase(join(dir, 'edges.db'));
    await importPaths(db, [example]);
    db.close();
    server = await startServer({ dbPath: join(dir, 'edges.db') });
  });

  test.afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('names every format it reads, shows the run it added first with Open, and clears the search typed before', async ({ page, runs, episodes }) => {
    const app = new AppPage(page, server.url);
    const importer = new ImportPage(page);
    const run = `e2e-fresh-${Date.now().toString(36)}`;
    // The example's first three ScienceWorld episodes under a run name of their own.
    const log = readFileSync(example, 'utf8').split('\n').slice(0, 3).map((line) => JSON.stringify({ ...JSON.parse(line), run })).join('\n');

    // A search and a runs filter from before the import, each hiding what it will add.
    await app.open('#/episodes');
    await episodes.searchFor('NameError');
    await app.go('#/runs');
    await page.getByTestId('runs-filter').fill('hle');
    await expect(runs.rows).toHaveCount(1);

    const dataTransfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['{}'], 'x.jsonl'));
      return dt;
    });
    await page.dispatchEvent('main', 'dragenter', { dataTransfer });
    for (const format of FORMATS) await expect(importer.overlay).toContainText(format);
    await page.dispatchEvent('main', 'dragleave', { dataTransfer });
    await expect(importer.overlay).toHaveCount(0);

    await importer.openInHeader.click();
    for (const format of FORMATS) await expect(importer.dialog).toContainText(format);
    await importer.fileInput.setInputFiles([{ name: `${run}.jsonl`, mimeType: 'application/octet-stream', buffer: Buffer.from(log) }]);
    await importer.run();
    const into = page.locator(`[data-testid="import-run"][data-run-name="${run}"]`);
    await expect(into).toBeVisible();
    await expect(into.getByTestId('import-run-open')).toHaveAttribute('href', /^#\/episodes\?runs=\d+$/);
    await page.screenshot({ path: `${SHOTS_DIR}roughEdges35-import-done.png` });
    await importer.done.click();

    // First, marked, with its link; the filter typed before is gone, so every run shows.
    await runs.waitReady();
    await expect(page.getByTestId('runs-filter')).toHaveValue('');
    expect(await runs.names()).toEqual([run, 'sw-router-demo', 'hle-router-demo']);
    await expect(runs.row(run)).toHaveAttribute('data-new', 'true');
    await inBothThemes(app, (theme) => page.screenshot({ path: `${SHOTS_DIR}roughEdges35-runs-after-import-${theme}.png` }));

    await runs.row(run).getByTestId('run-open').click();
    await episodes.waitReady();
    await expect(episodes.search).toHaveValue('');
    await expect(episodes.rows).toHaveCount(3);
    await expect(episodes.rows.first()).toContainText(run);
  });
});

test('? lists every key the window answers to, the inspector’s panels and the pair view’s among them', async ({ app, page }) => {
  const palette = new PalettePage(page);
  await app.open('#/runs');
  await page.keyboard.press('?');
  await expect(palette.help).toBeVisible();
  for (const group of KEY_GROUPS) {
    const section = palette.help.locator('section').filter({ has: page.getByRole('heading', { name: group.title, exact: true }) });
    for (const binding of group.bindings) {
      const keys = binding.keys.map((k) => keyLabel(k, false).join('+')).join(' or ');
      await expect(section.getByTestId('shortcut-row').filter({ has: page.locator('dd').getByText(binding.what, { exact: true }) }).locator('dt'), binding.what).toHaveText(keys);
    }
  }
  // The keys a walk-through missed: what-if, the step debugger's, and the pair view's differences and way back.
  for (const what of ['Step debugger: continue to the next breakpoint', 'Next turn where A and B differ', 'Back to Compare']) {
    await expect(palette.help.getByText(what, { exact: true })).toBeVisible();
  }
  await expect(palette.help.locator('kbd', { hasText: /^w$/ })).toHaveCount(1);
  // The dialog holds the theme button behind it: closed, switched, opened again.
  for (const theme of ['light', 'dark'] as const) {
    await page.keyboard.press('Escape');
    await app.setTheme(theme);
    await page.keyboard.press('?');
    await palette.help.screenshot({ path: `${SHOTS_DIR}roughEdges35-keys-${theme}.png` });
  }
});

test('no text of Runs, Episodes, the inspector’s header or Compare is cut off without “…” and a tooltip at 1024×700', async ({ app, episodes, inspector, page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1024, height: 700 });
  const view = page.getByTestId('view');
  const shoot = (name: string) => inBothThemes(app, (theme) => page.screenshot({ path: `${SHOTS_DIR}roughEdges35-${name}-1024-${theme}.png` }));

  await app.open('#/runs');
  expect(await clippedText(view), 'Runs').toEqual([]);
  // Nothing is hidden past the table's right edge either.
  expect(await page.getByTestId('runs-table').evaluate((t) => (t.parentElement as HTMLElement).scrollWidth - (t.parentElement as HTMLElement).clientWidth)).toBeLessThanOrEqual(0);
  await shoot('runs');

  await app.go('#/episodes');
  await episodes.waitReady();
  expect(await clippedText(view), 'Episodes, top').toEqual([]);
  await shoot('episodes');
  await episodes.scroller.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
  await expect(episodes.rows.last()).toBeVisible();
  expect(await clippedText(view), 'Episodes, bottom').toEqual([]);

  // A compaction of a Claude Code session (a long id under its parent's) and a Codex rollout (a cost of unknown calls).
  for (const ext of ['8463c716-a2ea-4c14-9efa-87158ebd9f20/agent-acompact-f46190', '01996135-afde-7911-97f0-d863511eca56', 'long_0']) {
    await app.go(`#/episode/${await app.episodeId(ext)}`);
    await inspector.waitReady();
    // The task opens whole with its own "Full task" button.
    expect(await clippedText(inspector.header, ['[data-testid="task-text"]']), ext).toEqual([]);
    expect(await inspector.header.evaluate((h) => h.scrollWidth - h.clientWidth), ext).toBeLessThanOrEqual(0);
  }
  await shoot('inspector-header');

  const compare = new ComparePage(page);
  await app.go('#/compare');
  await compare.chooseRuns('a', ['sw-mtrouter']);
  await compare.chooseRuns('b', ['sw-random', 'sw-gpt-5', 'sw-minimax-m2']);
  await page.getByTestId('compare-counterfactual').selectOption('gpt-5');
  await compare.compare();
  expect(await clippedText(view), 'Compare').toEqual([]);
  await page.getByTestId('compare-tasks').scrollIntoViewIfNeeded();
  await shoot('compare-tasks');
});
