/**
 * Issue 17's rough edges: the policy lab's run count, its notes said once, its diff scrolled into view and
 * its figure exported like every other; exported figures captioned and named after the analysis and runs,
 * with rounded CSV numbers; a plan turn's DAG inside the inspector; an estimator renamed; import results
 * that wrap paths at their folders and flag "0 imported".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Download, Locator, Page } from '@playwright/test';
import { startServer, type RunningServer } from '../electron/server/serve.ts';
import { expect, test } from './fixtures.ts';
import { AppPage } from './pages/AppPage.ts';
import { RUNS_FOR } from './pages/AnalysesPage.ts';
import { EstimatorPage } from './pages/EstimatorPage.ts';
import { ImportPage } from './pages/ImportPage.ts';
import { PolicyLabPage } from './pages/PolicyLabPage.ts';

const DATE = /\d{4}-\d{2}-\d{2}/.source;

/** Opens an export menu, picks a choice and gives the download. */
async function exportFrom(page: Page, menu: Locator, choice: 'svg' | 'png2x' | 'pdf' | 'csv'): Promise<Download> {
  await menu.click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`export-${choice}`).click()]);
  return download;
}

const text = async (d: Download): Promise<string> => readFileSync(await d.path(), 'utf8');

test('the policy lab counts its runs, says each note once, and exports its figure as PNG, PDF, SVG and CSV', async ({ app, page }) => {
  test.setTimeout(90_000);
  const lab = new PolicyLabPage(page);
  await app.open('#/policy');
  // mini-swe-agent logs no propensities: every policy's OPE uses only sw-router-demo's episodes.
  await app.selectRuns(['sw-router-demo', 'mini-swe-agent']);
  await lab.choosePolicies(['logged', 'cheapest', 'random:3']);

  // The runs are a count that opens their names, not a list that pushes the Replay button away.
  await expect(page.getByTestId('lab-runs')).toHaveText('2 runs');
  await page.getByTestId('lab-runs').click();
  await expect(page.getByTestId('lab-runs-list').locator('li')).toHaveCount(2);
  expect((await page.getByTestId('lab-runs-list').locator('li').allInnerTexts()).sort()).toEqual(['mini-swe-agent', 'sw-router-demo']);
  await page.keyboard.press('Escape');

  await lab.replay();
  await expect(page.getByTestId('replay-scope-runs')).toHaveText('2 runs');
  // The off-policy coverage note is the same sentence for the three policies: said once, naming none.
  const notes = page.getByTestId('policy-notes').locator('li');
  await expect(notes.filter({ hasText: 'off-policy estimates use' })).toHaveCount(1);
  await expect(notes.filter({ hasText: 'off-policy estimates use' })).not.toContainText('logged:');

  const menu = page.getByTestId('frontier-export');
  const png = await exportFrom(page, menu, 'png2x');
  expect(png.suggestedFilename()).toMatch(new RegExp(`^policy-frontier_(sw-router-demo\\+mini-swe-agent|mini-swe-agent\\+sw-router-demo)_${DATE}\\.png$`));
  expect(readFileSync(await png.path()).subarray(1, 4).toString('latin1')).toBe('PNG');
  const pdf = await exportFrom(page, menu, 'pdf');
  expect(pdf.suggestedFilename()).toMatch(/\.pdf$/);
  expect(readFileSync(await pdf.path()).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  expect(readFileSync(await pdf.path()).toString('latin1')).not.toContain('/Subtype /Image'); // drawn, as analysis PDFs are
  const svg = await text(await exportFrom(page, menu, 'svg'));
  expect(svg).toContain('>Policy lab: estimated score (best of DR / WIS / DM) against cost per episode</text>');
  expect(svg).toMatch(new RegExp(`runs (sw-router-demo|mini-swe-agent) and (sw-router-demo|mini-swe-agent) · exported ${DATE}`));
  const csv = (await text(await exportFrom(page, menu, 'csv'))).trim().split('\r\n');
  expect(csv[0]).toMatch(/^policy,estimate,est_score/);
  expect(csv.slice(1).map((l) => l.split(',')[0])).toEqual(['logged', 'cheapest', 'random:3']);
});

test('a paired diff that arrives below the fold is scrolled into view', async ({ app, page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  const lab = new PolicyLabPage(page);
  await app.open('#/policy');
  await app.selectRuns(['sw-router-demo']);
  await lab.choosePolicies(['logged', 'cheapest']);
  await lab.replay();
  await page.getByTestId('replay-run').scrollIntoViewIfNeeded();
  await expect(lab.diff).not.toBeInViewport();
  await lab.compare('logged', 'cheapest');
  await expect(page.getByTestId('diff-caption')).toBeInViewport();
  // Its rows fit the window's width: the Δŝ column is not cut at the right edge.
  const rows = page.locator('.diff-rows-scroll');
  expect(await rows.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(1);
});

test('an analysis export is captioned and named after the analysis, runs and day; its CSV numbers are rounded', async ({ app, analyses }) => {
  test.setTimeout(60_000);
  const runs = RUNS_FOR['switch-cost'] as string[];
  await app.open('#/analyses/switch-cost');
  await app.selectRuns(runs);
  await analyses.waitFigure();
  const svg = await analyses.exportAs('svg');
  expect(svg.suggestedFilename()).toMatch(new RegExp(`^switch-cost_(${runs.join('|')})(\\+(${runs.join('|')})){2}_${DATE}\\.svg$`));
  const body = await text(svg);
  expect(body).toContain('>Switches vs cost</text>');
  expect(body).toMatch(new RegExp(`runs [\\w-]+, [\\w-]+ and [\\w-]+ · exported ${DATE}`));

  const csv = await analyses.exportAs('csv');
  expect(csv.suggestedFilename()).toMatch(new RegExp(`^switch-cost_.*_${DATE}\\.csv$`));
  const cells = (await text(csv)).trim().split('\r\n').slice(1).flatMap((l) => l.split(','));
  const decimals = cells.filter((c) => /^-?\d+\.\d+$/.test(c)).map((c) => (c.split('.')[1] as string).length);
  expect(decimals.length).toBeGreaterThan(10);
  expect(Math.max(...decimals)).toBeLessThanOrEqual(6);
});

test('a plan turn shows its round of subtasks in the inspector, with no label cut', async ({ app, analyses, inspector, page }) => {
  await app.open('#/analyses/plan-dag');
  await app.selectRuns(RUNS_FOR['plan-dag'] ?? []);
  await analyses.waitFigure('episode');
  await analyses.panel('episode').locator('[data-mark][role="link"]').first().click();
  await inspector.waitReady();
  const plan = page.getByTestId('plan-turn');
  await expect(plan).toBeVisible();
  await expect(plan).toContainText(/round \d+ · \d+ subtasks?/);
  const labels = plan.locator('text');
  await expect(labels.first()).toBeVisible();
  const texts = await labels.allTextContents();
  expect(texts.length).toBeGreaterThanOrEqual(2);
  expect(texts.filter((t) => t.endsWith('…'))).toEqual([]);
  // The figure is never narrower than its nodes: it scrolls sideways rather than cut one off.
  const fits = await plan.getByTestId('plan-turn-figure').evaluate((el) => {
    const svg = el.querySelector('svg');
    const box = svg?.getBoundingClientRect();
    return [...el.querySelectorAll('rect')].every((r) => {
      const b = r.getBoundingClientRect();
      return box !== undefined && b.left >= box.left - 0.5 && b.right <= box.right + 0.5;
    });
  });
  expect(fits).toBe(true);
});

test('an estimator can be renamed from its model card, and the new name is listed', async ({ app, page }) => {
  const est = new EstimatorPage(page);
  await app.open('#/estimator');
  await est.waitReady();
  const item = est.items.first();
  await item.click();
  const name = page.getByTestId('estimator-card-name');
  const before = (await name.textContent()) ?? '';
  const rename = async (to: string) => {
    await page.getByTestId('estimator-rename').click();
    await page.getByTestId('estimator-rename-input').fill(to);
    await page.getByTestId('estimator-rename-save').click();
    await expect(name).toHaveText(to);
  };
  await rename('SWE turns only — e2e');
  await expect(item).toContainText('SWE turns only — e2e');
  // A name with an invisible character is refused, saying why; Escape leaves the name as it was.
  await page.getByTestId('estimator-rename').click();
  await page.getByTestId('estimator-rename-input').fill('x\u202Ey');
  await page.getByTestId('estimator-rename-save').click();
  await expect(page.getByTestId('estimator-rename-form').getByRole('alert')).toContainText('invisible');
  await page.getByTestId('estimator-rename-input').press('Escape');
  await expect(name).toHaveText('SWE turns only — e2e');
  // Other specs read this database: the estimator gets its name back.
  await rename(before);
});

test.describe('import results', () => {
  let dir: string;
  let server: RunningServer;
  test.beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-rough-'));
    server = await startServer({ dbPath: join(dir, 'import.db') });
  });
  test.afterEach(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('say "0 imported" as a warning and wrap a long path at its parts', async ({ page }) => {
    const app = new AppPage(page, server.url);
    const importer = new ImportPage(page);
    await app.open('#/runs');
    await importer.openInEmptyState.click();
    const name = 'a-trajectory-log-with-a-long-descriptive-file-name-that-is-not-canonical.jsonl';
    // A canonical log with a wrong type on line 3: recognised, then refused.
    const broken = readFileSync(join(process.cwd(), 'fixtures/broken/canonical-wrong-type.jsonl'));
    await importer.fileInput.setInputFiles([{ name, mimeType: 'application/octet-stream', buffer: broken }]);
    await importer.run();
    await expect(importer.cell(name, 'status')).toHaveText('rejected');
    const count = page.getByTestId('import-count');
    await expect(count).toHaveText('0 imported');
    await expect(count).toHaveClass(/badge-warning/);
    const cell = importer.cell(name, 'path');
    await expect(cell).toHaveText(name);
    // Break opportunities between the name's parts, and nothing sticking out of its column.
    expect(await cell.locator('wbr').count()).toBeGreaterThan(3);
    expect(await cell.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    // Wrapped onto more than one line (one line with the cell's padding is under three font sizes high).
    expect(await cell.evaluate((el) => el.getBoundingClientRect().height > 3 * parseFloat(getComputedStyle(el).fontSize))).toBe(true);
  });
});
