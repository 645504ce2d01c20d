/**
 * One colour per run (issue 35 items 4 and 5), read from the figures as drawn: a run has the same colour in Pareto,
 * Switch cost, Error recovery and Calibration and in the exported SVG (each series mark names its run in
 * data-series); a figure that cannot draw every selected run names the others in the figure, says when its runs
 * mix task types, and "Runs drawn" chooses which runs every figure draws. Its own database: ScienceWorld and HLE
 * runs (18, more than a figure draws), two of them scored so that Calibration draws runs too.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { cli, freePort, startServe, type ServeProcess } from './serveProcess.ts';
import { AppPage } from './pages/AppPage.ts';
import { SHOTS_DIR, inBothThemes } from './pages/viewShot.ts';

let dir = '';
let server: ServeProcess | undefined;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  dir = mkdtempSync(join(tmpdir(), 'routelens-colours-'));
  const db = join(dir, 'colours.db');
  const logs = ['scienceworld', 'hle'].map((preset) => {
    const out = join(dir, `${preset}.jsonl`);
    cli(['simulate', '--preset', preset, '--episodes', '40', '--seed', '11', '--out', out]);
    return out;
  });
  cli(['import', ...logs, '--db', db]);
  const model = join(process.cwd(), 'models', 'default-estimator.onnx');
  for (const run of ['sw-mtrouter', 'sw-random']) cli(['score', '--db', db, '--model', model, '--run', run, '--ep', 'cpu']);
  server = await startServe(db, await freePort());
});

test.afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const figure = (page: AppPage['page']): Locator => page.getByTestId('figure-panel');

async function waitFigure(page: AppPage['page']): Promise<void> {
  await expect(figure(page)).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
  await expect(figure(page).getByTestId('figure')).toHaveAttribute('data-drawn', 'true');
}

/** Each run's colours in the figure on screen: the fill of its filled marks, else the stroke of its lines. */
async function runColours(page: AppPage['page']): Promise<Record<string, string[]>> {
  return figure(page).getByTestId('figure').evaluate((root) => {
    const out: Record<string, Set<string>> = {};
    for (const el of root.querySelectorAll('svg [data-series]')) {
      const fill = el.getAttribute('fill');
      const paint = fill && fill !== 'none' ? fill : el.getAttribute('stroke');
      if (el.tagName === 'text' || !paint) continue;
      (out[el.getAttribute('data-series') as string] ??= new Set()).add(paint.toLowerCase());
    }
    return Object.fromEntries(Object.entries(out).map(([run, set]) => [run, [...set]]));
  });
}

const noteOf = (page: AppPage['page'], role: string) => figure(page).locator(`svg text[data-role="${role}"]`).allTextContents().then((t) => t.join(' '));

test('a run has one colour in Pareto, Switch cost, Error recovery, Calibration and the exported SVG', async ({ page, analyses }) => {
  const app = new AppPage(page, server?.url ?? '');
  await app.open('#/runs');
  const runs = ['sw-mtrouter', 'sw-random', 'sw-switch-on-error'];
  const query = await app.runsQuery(runs);
  const seen: Record<string, Record<string, string[]>> = {};
  for (const id of ['pareto', 'switch-cost', 'error-recovery', 'calibration']) {
    await app.go(`#/analyses/${id}${query}`);
    await waitFigure(page);
    seen[id] = await runColours(page);
  }
  const colourOf = (run: string) => Object.entries(seen).map(([id, colours]) => `${id}: ${(colours[run] ?? []).join(' ')}`);
  for (const run of runs.slice(0, 2)) {
    const one = seen.pareto?.[run]?.[0];
    expect(one, run).toBeDefined();
    expect(colourOf(run)).toEqual(Object.keys(seen).map((id) => `${id}: ${one}`));
  }
  // sw-switch-on-error has no ŝ: no calibration curve of its own, the same colour everywhere else.
  const third = seen.pareto?.['sw-switch-on-error']?.[0];
  expect(colourOf('sw-switch-on-error').slice(0, 3)).toEqual(['pareto', 'switch-cost', 'error-recovery'].map((id) => `${id}: ${third}`));
  expect(new Set(runs.map((r) => seen.pareto?.[r]?.[0])).size).toBe(3);

  // The file the export menu writes draws them alike, each mark naming its run.
  await app.go(`#/analyses/pareto${query}`);
  await waitFigure(page);
  const svg = readFileSync(await (await analyses.exportAs('svg')).path(), 'utf8');
  for (const run of runs) expect(svg).toMatch(new RegExp(`fill="${seen.pareto?.[run]?.[0]}"[^>]*data-series="${run}"`, 'i'));
});

test('a figure names the runs it leaves out and the mixed task types, and Runs drawn chooses them for every figure', async ({ page }) => {
  const app = new AppPage(page, server?.url ?? '');
  await app.open('#/analyses/pareto');
  await waitFigure(page);
  // 18 runs selected (all), six drawn: those with the most scored sessions.
  const drawn = () => figure(page).locator('svg circle[data-role="point"][data-series]').evaluateAll((els) => els.map((e) => e.getAttribute('data-series')).sort());
  expect(await drawn()).toEqual(['hle-mtrouter', 'hle-random', 'hle-switch-on-error', 'sw-mtrouter', 'sw-random', 'sw-switch-on-error']);
  const leftOut = await noteOf(page, 'left-out');
  expect(leftOut).toMatch(/^Not drawn, 12 more runs .*: hle-deepseek-v3\.2, .*sw-minimax-m2/);
  expect(await noteOf(page, 'task-types')).toMatch(/Task types differ.*hle \(.*\), scienceworld \(.*\)/);
  await page.setViewportSize({ width: 1024, height: 700 });
  await waitFigure(page);
  await inBothThemes(app, (theme) => page.screenshot({ path: `${SHOTS_DIR}run-colours-pareto-left-out-1024-${theme}.png` }));
  await page.setViewportSize({ width: 1440, height: 900 });

  // Draw sw-minimax-m2 instead of hle-switch-on-error: in Pareto, and in every other figure, in one colour.
  await figure(page).getByTestId('runs-drawn').click();
  const option = (run: string) => page.locator(`[data-testid="runs-drawn-option"][data-run="${run}"]`);
  await expect(option('sw-minimax-m2')).toBeDisabled();
  await option('hle-switch-on-error').uncheck();
  await option('sw-minimax-m2').check();
  await page.keyboard.press('Escape');
  await expect.poll(drawn).toContain('sw-minimax-m2');
  await waitFigure(page);
  await inBothThemes(app, async (theme) => {
    await figure(page).getByTestId('runs-drawn').click();
    await page.screenshot({ path: `${SHOTS_DIR}run-colours-runs-drawn-${theme}.png` });
    await page.keyboard.press('Escape');
  });
  expect(await drawn()).not.toContain('hle-switch-on-error');
  expect(await noteOf(page, 'left-out')).toContain('hle-switch-on-error');
  expect(await noteOf(page, 'left-out')).not.toContain('sw-minimax-m2');
  const colour = (await runColours(page))['sw-minimax-m2'];
  expect(colour).toHaveLength(1);
  await app.go('#/analyses/error-recovery');
  await waitFigure(page);
  expect((await runColours(page))['sw-minimax-m2']).toEqual(colour);
  await expect(figure(page).getByTestId('runs-drawn')).toHaveText(/Runs drawn: 6 of 18/);
});
