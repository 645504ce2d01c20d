/**
 * Issue 35 item 8, the analysis figures' rough edges, as a user sees them at 1024×700: the targets page opens on
 * an episode with something to show and the episode pickers show the whole episode; budget modes names the runs
 * it leaves out and draws intervals; usage ratio starts from the ρ the controller's log states; calibration's dots,
 * error recovery's bars, usage-by-turn's counts and confusion's row counts stay inside their figures. Each view is
 * shot in both themes.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { RUNS_FOR } from './pages/AnalysesPage.ts';
import { inBothThemes, SHOTS_DIR } from './pages/viewShot.ts';

test.use({ viewport: { width: 1024, height: 700 } });

/** Whether the select's chosen option is drawn whole: its text, padding and arrow fit the box. */
async function showsWholeOption(select: Locator): Promise<{ fits: boolean; text: string }> {
  return select.evaluate((el: HTMLSelectElement) => {
    const style = getComputedStyle(el);
    const ctx = document.createElement('canvas').getContext('2d') as CanvasRenderingContext2D;
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = el.selectedOptions[0]?.text ?? '';
    const needed = ctx.measureText(text).width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 16;
    return { fits: needed <= el.clientWidth, text };
  });
}

/** The hover lines of a figure's marks with this role. */
const labels = (panel: Locator, role: string) => panel.locator(`[data-mark][data-role="${role}"]`).evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));

const shoot = (page: Page, name: string) => (theme: 'light' | 'dark') => page.screenshot({ path: `${SHOTS_DIR}figure-edges-${name}-1024-${theme}.png`, fullPage: true });

test('the targets page opens on an episode with errors and a score, and the episode pickers show the whole episode', async ({ app, analyses, page }) => {
  test.setTimeout(60_000);
  await app.open('#/runs');
  // This run's first episode by id failed without an error: a flat line at 0 was what the page opened on.
  await app.go(`#/analyses/targets${await app.runsQuery(['sw-switch-on-error'])}`);
  await analyses.waitFigure();
  const points = await labels(analyses.panel(), 'point');
  const targets = points.map((l) => Number(/target (-?[\d.]+)/.exec(l)?.[1]));
  // A flat line of one value (no error) or a line at 0 (a failure) was what the page opened on.
  expect(points.length).toBeGreaterThanOrEqual(3);
  expect(points.some((l) => l.includes('errors: '))).toBe(true);
  expect(targets.at(-1)).toBeGreaterThan(0);
  expect(new Set(targets).size).toBeGreaterThan(1);
  const picker = page.getByTestId('episode-picker-select');
  expect(await showsWholeOption(picker)).toMatchObject({ fits: true, text: expect.stringMatching(/ · sw-switch-on-error · \d+ turns$/) });
  await inBothThemes(app, shoot(page, 'targets'));

  await app.go(`#/analyses/plan-dag${await app.runsQuery(RUNS_FOR['plan-dag'] ?? [])}`);
  await analyses.waitFigure('episode');
  const planPicker = page.getByTestId('episode-picker-select');
  await planPicker.scrollIntoViewIfNeeded();
  // The episode with the longest label (an id of 35 characters in uno-random-workers): 440 px cut its "· 5 turns".
  const longest = await planPicker.evaluate((el: HTMLSelectElement) => [...el.options].filter((o) => o.value).sort((a, b) => b.text.length - a.text.length)[0]?.value ?? '');
  await planPicker.selectOption(longest);
  await analyses.waitFigure('episode');
  expect(await showsWholeOption(planPicker)).toMatchObject({ fits: true, text: expect.stringMatching(/ · \d+ turns$/) });
  await inBothThemes(app, shoot(page, 'plan-dag-picker'));
});

test('budget modes names the selected runs it leaves out and draws an interval on its bars', async ({ app, analyses, page }) => {
  await app.open('#/runs');
  // corl-controller-only logs no budget mode: it was left out without a word.
  await app.go(`#/analyses/budget-modes${await app.runsQuery(RUNS_FOR['budget-modes'] ?? [])}`);
  await analyses.waitFigure();
  const panel = analyses.panel();
  await expect(panel.locator('[data-role="note"]').filter({ hasText: 'Not drawn, no episode with a budget mode: corl-controller-only' })).toHaveCount(1);
  await expect(panel.locator('[data-role="legend-label"]').first()).toHaveText('the selected runs with a budget mode');
  const bars = await labels(panel, 'bar');
  expect(bars.length).toBeGreaterThanOrEqual(6);
  expect(bars.filter((l) => l.includes('95% CI')).length).toBeGreaterThanOrEqual(bars.length / 2);
  expect(bars.some((l) => l.includes('(Wilson)'))).toBe(true);
  expect(bars.some((l) => l.includes('(bootstrap over episodes)'))).toBe(true);
  expect(await panel.locator('[data-role="ci"]').count()).toBeGreaterThanOrEqual(bars.filter((l) => l.includes('95% CI')).length);
  await inBothThemes(app, shoot(page, 'budget-modes'));
});

test('usage ratio starts from the ρ the controller’s log states, and a ρ set on the page wins', async ({ app, analyses, page }) => {
  await app.open('#/runs');
  await app.go(`#/analyses/usage-ratio${await app.runsQuery(RUNS_FOR['usage-ratio'] ?? [])}`);
  await analyses.waitFigure();
  // crit-controller's episodes log policy.usage_targets (ρ = 1 / 0.5 / 0.25, weak to strong); the other runs none.
  await expect(page.getByTestId('rho-gpt-5')).toHaveValue('0.25');
  await expect(page.getByTestId('rho-deepseek-v3.2')).toHaveValue('0.5');
  await expect(page.getByTestId('rho-from-log')).toBeVisible();
  const panel = analyses.panel();
  await expect(panel.locator('[data-role="target"]')).toHaveCount(3);
  const gpt5 = panel.locator('[data-mark][data-role="bar"][aria-label^="gpt-5 in crit-controller"]');
  await expect(gpt5).toHaveAttribute('aria-label', /target ρ = 25\.0% \(as the run’s log states it\)/);
  await inBothThemes(app, shoot(page, 'usage-ratio'));

  await page.getByTestId('rho-gpt-5').fill('0.2');
  await page.getByTestId('rho-gpt-5').press('Enter');
  await expect(gpt5).toHaveAttribute('aria-label', /target ρ = 20\.0% \(set on this page\) — over target/);
  await expect(page.getByTestId('rho-deepseek-v3.2')).toHaveValue('0.5');
});

/** Boxes of a figure's axis lines (the frame) and of the marks with `role`, in page pixels. */
async function frameAndMarks(panel: Locator, role: string) {
  return panel.getByTestId('figure').locator('svg').first().evaluate((svg, r) => {
    const box = (e: Element) => e.getBoundingClientRect();
    const axes = [...svg.querySelectorAll('[data-role="axis"]')].map(box);
    const marks = [...svg.querySelectorAll(`[data-role="${r}"]`)].map(box);
    return { axes: axes.map((a) => ({ left: a.left, right: a.right, top: a.top, bottom: a.bottom })), marks: marks.map((m) => ({ left: m.left, right: m.right, top: m.top, bottom: m.bottom })) };
  }, role);
}

test('calibration, error recovery, usage by turn and confusion keep their marks inside and say their counts', async ({ app, analyses, page }) => {
  test.setTimeout(60_000);
  await app.open('#/runs');
  await app.go(`#/analyses/calibration${await app.runsQuery(RUNS_FOR.calibration ?? [])}`);
  await analyses.waitFigure();
  {
    // Every dot between the reliability panel's axis lines (the first vertical one and the first horizontal one).
    const { axes, marks } = await frameAndMarks(analyses.panel(), 'point');
    const yAxis = axes.find((a) => a.right - a.left < 2)!;
    const xAxis = axes.find((a) => a.bottom - a.top < 2)!;
    expect(marks.length).toBeGreaterThan(0);
    for (const m of marks) {
      expect(m.left).toBeGreaterThan(yAxis.left);
      expect(m.bottom).toBeLessThan(xAxis.top);
      expect(m.top).toBeGreaterThan(yAxis.top);
    }
  }
  await inBothThemes(app, shoot(page, 'calibration'));

  await app.go(`#/analyses/error-recovery${await app.runsQuery(RUNS_FOR['error-recovery'] ?? [])}`);
  await analyses.waitFigure();
  {
    const { axes, marks } = await frameAndMarks(analyses.panel(), 'ci');
    const yAxis = axes.find((a) => a.right - a.left < 2)!;
    for (const m of marks) expect(m.top).toBeGreaterThanOrEqual(yAxis.top + 8);
  }
  await inBothThemes(app, shoot(page, 'error-recovery'));

  await app.go(`#/analyses/usage-by-turn${await app.runsQuery(RUNS_FOR['usage-by-turn'] ?? [])}`);
  await analyses.waitFigure();
  const counts = await labels(analyses.panel(), 'count');
  expect(counts.length).toBeGreaterThan(2);
  expect(counts[0]).toMatch(/n = [\d,]+ episodes reach turn 0/);
  await analyses.hover(analyses.panel().locator('[data-mark][data-role="count"]').last());
  await expect(analyses.tooltip).toContainText(/n = [\d,]+ episodes reach turn \d+/);
  await inBothThemes(app, shoot(page, 'usage-by-turn'));

  await app.go(`#/analyses/confusion${await app.runsQuery(RUNS_FOR.confusion ?? [])}`);
  await analyses.waitFigure();
  const rows = await analyses.panel().locator('[data-role="row-label"]').allTextContents();
  expect(rows.length).toBeGreaterThan(2);
  for (const row of rows) expect(row).toMatch(/ · n = [\d,]+$/);
  await inBothThemes(app, shoot(page, 'confusion'));
});
