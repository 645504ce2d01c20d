/**
 * Runs at the scale of a selection: the Runs table sorts and filters, the run picker selects every run a
 * filter finds, run colours stay the same across figures and reloads and never take a model's colour, and
 * crowded figures (pareto, calibration) cap the runs they draw and say so; pareto has a log cost axis and
 * calibration's panels share one x axis over ŝ's range.
 */
import { expect, test } from './fixtures.ts';
import { SCORED_RUN } from './pages/EstimatorPage.ts';

test('the Runs table sorts by a clicked column, unknown last, and flips on a second click', async ({ app, runs, page }) => {
  await app.open('#/runs');
  await runs.waitReady();
  const column = (id: string) => page.getByTestId(id).allTextContents().then((t) => t.map((x) => Number(x.replace(/[^\d.]/g, ''))));
  const before = await runs.names();
  await runs.sortBy('episodes');
  await expect(runs.header('episodes')).toHaveAttribute('aria-sort', 'descending');
  const down = await column('run-episodes');
  expect(down).toEqual([...down].sort((a, b) => b - a));
  expect(await runs.names()).not.toEqual(before);
  await runs.sortBy('episodes');
  await expect(runs.header('episodes')).toHaveAttribute('aria-sort', 'ascending');
  const up = await column('run-episodes');
  expect(up).toEqual([...up].sort((a, b) => a - b));
  await runs.sortBy('name');
  await expect(runs.header('episodes')).toHaveAttribute('aria-sort', 'none');
  const names = await runs.names();
  expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' })));
  // Success: the known rates largest first, then every run without one ('—').
  await runs.sortBy('success');
  const rates = await page.getByTestId('run-success').allTextContents();
  const firstUnknown = rates.findIndex((r) => r.trim().startsWith('—'));
  const known = (firstUnknown < 0 ? rates : rates.slice(0, firstUnknown)).map((r) => Number(r.replace(/[^\d.]/g, '')));
  expect(known).toEqual([...known].sort((a, b) => b - a));
  if (firstUnknown >= 0) expect(rates.slice(firstUnknown).every((r) => r.trim().startsWith('—'))).toBe(true);
});

test('the Runs filter finds runs by name, format or model, and makes them the selection', async ({ app, runs, state, page }) => {
  await app.open('#/runs');
  await runs.waitReady();
  await runs.filter('crit-');
  const crit = state.info.runs.filter((r) => r.name.includes('crit-'));
  expect(crit.length).toBeGreaterThanOrEqual(2);
  await expect(runs.rows).toHaveCount(crit.length);
  await expect(page.getByTestId('runs-filter-count')).toHaveText(`${crit.length} of ${state.info.runs.length} runs match`);
  // A model name finds the runs that used it.
  const model = state.info.runs.find((r) => r.models.length > 0)!.models[0]!;
  await runs.filter(model);
  await expect(runs.rows).toHaveCount(state.info.runs.filter((r) => r.models.some((m) => m.toLowerCase().includes(model.toLowerCase())) || r.name.includes(model)).length);
  await runs.filter('no-run-is-called-this');
  await expect(runs.rows).toHaveCount(0);
  await expect(page.getByTestId('runs-none')).toBeVisible();
  await runs.filter('crit-');
  await page.getByTestId('runs-select-matching').click();
  await expect(app.runSelector).toContainText(`${crit.length} of ${state.info.runs.length} runs`);
  await runs.filter('');
  await expect(runs.filterBanner).toContainText(`Showing ${crit.length} of ${state.info.runs.length} runs`);
  await expect(runs.rows).toHaveCount(crit.length);
});

test('the run picker selects every run its filter finds', async ({ app, state, page }) => {
  await app.open('#/runs');
  await app.runSelector.click();
  const panel = page.getByTestId('run-selector-panel');
  await panel.getByTestId('checklist-filter').fill('sw-');
  const sw = state.info.runs.filter((r) => r.name.toLowerCase().includes('sw-'));
  await panel.getByTestId('checklist-select-matching').click();
  await expect(panel.getByTestId('checklist-select-matching')).toBeDisabled();
  await page.keyboard.press('Escape');
  await expect(app.runSelector).toContainText(`${sw.length} of ${state.info.runs.length} runs`);
});

test('pareto over every run draws six, names the others, and offers a log cost axis', async ({ app, analyses, state, page }) => {
  expect(state.info.runs.length).toBeGreaterThan(6);
  await app.open('#/analyses/pareto');
  await analyses.waitFigure();
  const panel = analyses.panel();
  await expect(panel.locator('[data-role="point"]')).toHaveCount(6);
  // The runs not drawn are named in the figure (e2e/runColours.spec.ts chooses them).
  await expect(panel.locator('[data-role="left-out"]').first()).toContainText(/^Not drawn, \d+ more runs \(a figure draws at most 6/);
  await expect(panel.locator('[data-role="axis-label"]').filter({ hasText: 'mean cost per episode' })).toHaveText('mean cost per episode ($)');
  await page.getByTestId('control-cost-axis').getByRole('button', { name: 'Log' }).click();
  await expect(panel.locator('[data-role="axis-label"]').filter({ hasText: 'mean cost per episode' })).toHaveText('mean cost per episode ($, log scale)');
  await expect(page.getByTestId('control-cost-axis').getByRole('button', { name: 'Log' })).toHaveAttribute('aria-pressed', 'true');
});

test('a run keeps its colour across figures and reloads, and no run takes a model colour', async ({ app, analyses, page }) => {
  const runsShown = ['sw-mtrouter', 'sw-random', 'sw-switch-on-error'];
  await app.open('#/runs');
  const modelColors = new Set(await page.locator('[data-testid="run-row"] .chip-dot').evaluateAll((els) => els.map((e) => getComputedStyle(e).backgroundColor)));
  await app.selectRuns(runsShown);
  const fillOf = async (run: string, role: string) => {
    const mark = analyses.panel().locator(`[data-role="${role}"][aria-label*="${run}"]`).first();
    return mark.evaluate((e) => getComputedStyle(e).fill);
  };
  await app.open(`${(await app.hash()).replace(/^#\/runs/, '#/analyses/pareto')}`);
  await analyses.waitFigure();
  const pareto = await Promise.all(runsShown.map((r) => fillOf(r, 'point')));
  expect(new Set(pareto).size).toBe(3);
  for (const c of pareto) expect(modelColors.has(c)).toBe(false);
  await page.reload();
  await analyses.waitFigure();
  expect(await Promise.all(runsShown.map((r) => fillOf(r, 'point')))).toEqual(pareto);
  // The same runs on another figure: the same colours.
  await app.open(`${(await app.hash()).replace('#/analyses/pareto', '#/analyses/switch-cost')}`);
  await analyses.waitFigure();
  const legend = await Promise.all(
    runsShown.map((r) => analyses.panel().locator('[data-role="legend-label"]', { hasText: r }).locator('xpath=preceding-sibling::*[1]').evaluate((e) => getComputedStyle(e).fill)),
  );
  expect(legend).toEqual(pareto);
});

test('calibration spans ŝ’s range on x and lines its two panels up', async ({ app, analyses }) => {
  await app.open('#/runs');
  await app.selectRuns([SCORED_RUN]);
  await app.open(`${(await app.hash()).replace(/^#\/runs/, '#/analyses/calibration')}`);
  await analyses.waitFigure();
  const axes = await analyses.panel().locator('line[data-role="axis"]').evaluateAll((els) =>
    els.map((e) => ({ x1: Number(e.getAttribute('x1')), x2: Number(e.getAttribute('x2')), y1: Number(e.getAttribute('y1')), y2: Number(e.getAttribute('y2')) })).filter((l) => l.y1 === l.y2),
  );
  expect(axes).toHaveLength(2);
  expect(axes[0]!.x1).toBeCloseTo(axes[1]!.x1, 3);
  expect(axes[0]!.x2).toBeCloseTo(axes[1]!.x2, 3);
  const text = await analyses.panel().getByTestId('figure').textContent();
  expect(text).not.toContain('S̃');
  expect(text).toContain('mean realised target');
});

test('the Runs header says the cost it knows and how many runs have none, never a bare dash', async ({ app, runs, page }) => {
  await app.open('#/runs');
  await runs.waitReady();
  const costs = await page.getByTestId('run-cost').allTextContents();
  // A run with calls of unknown cost shows its known part as a lower bound ("≥ $…") or "—" when none is known.
  const unknown = costs.filter((c) => /^(≥|—)/.test(c.trim())).length;
  await expect(runs.summary).not.toContainText('— total');
  if (unknown === 0) {
    await expect(page.getByTestId('runs-unknown-cost')).toHaveCount(0);
    await expect(page.getByTestId('runs-total-cost')).toHaveText(/^≈?\$[\d.,]+ total$/);
  } else {
    await expect(page.getByTestId('runs-unknown-cost')).toHaveText(unknown === costs.length ? /^cost unknown for/ : `${unknown} ${unknown === 1 ? 'run' : 'runs'} with an unknown cost`);
    if (unknown < costs.length) await expect(page.getByTestId('runs-total-cost')).toHaveText(/^at least ≈?\$[\d.,]+ total$/);
  }
  // One run with a known cost alone: its total, nothing unknown.
  const known = await page.locator('[data-testid="run-row"]').filter({ has: page.getByTestId('run-cost').filter({ hasText: '$' }) }).first().getAttribute('data-run-name');
  await runs.filter(known!);
  const shown = await page.getByTestId('run-cost').allTextContents();
  if (shown.every((c) => c.includes('$'))) await expect(page.getByTestId('runs-unknown-cost')).toHaveCount(0);
});

test('at 1024×700 every column of the Runs and Episodes tables is in view, none cut at the right edge', async ({ app, runs, episodes, page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await app.open('#/runs');
  await runs.waitReady();
  const fits = (card: string, cells: string) =>
    page.evaluate(([card, cells]) => {
      const box = document.querySelector(card)!.getBoundingClientRect();
      const scroller = document.querySelector(card)!;
      const right = Math.max(...[...document.querySelectorAll(cells)].map((c) => c.getBoundingClientRect().right));
      return { overflow: scroller.scrollWidth - scroller.clientWidth, past: right - box.right };
    }, [card, cells] as const);
  const runsFit = await fits('.runs-view .table-card', '.runs-table th');
  expect(runsFit.overflow).toBeLessThanOrEqual(1);
  expect(runsFit.past).toBeLessThanOrEqual(1);
  await expect(runs.header('score')).toBeInViewport();
  await expect(runs.header('cost')).toBeInViewport();
  await app.open('#/episodes');
  await episodes.waitReady();
  const episodesFit = await fits('.etable-scroll', '.etable-th');
  expect(episodesFit.overflow).toBeLessThanOrEqual(1);
  // No header label spills out of its column.
  const spilled = await page.locator('.etable-th').evaluateAll((ths) => ths.filter((t) => t.scrollWidth > t.clientWidth + 1).map((t) => t.textContent));
  expect(spilled).toEqual([]);
});

test('model usage by turn gives every model it draws its own colour', async ({ app, analyses }) => {
  await app.open('#/analyses/usage-by-turn');
  await analyses.waitFigure();
  // Each legend entry: its label and the swatch drawn just before it.
  const entries = await analyses
    .panel()
    .locator('[data-role="legend-label"]')
    .evaluateAll((labels) => labels.map((l) => ({ label: l.textContent, fill: l.previousElementSibling ? getComputedStyle(l.previousElementSibling).fill : '' })));
  expect(entries.length).toBeGreaterThan(3);
  const byFill = new Map<string, string[]>();
  for (const e of entries) byFill.set(e.fill, [...(byFill.get(e.fill) ?? []), e.label ?? '']);
  expect([...byFill.values()].filter((labels) => labels.length > 1)).toEqual([]);
});
