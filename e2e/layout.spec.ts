/**
 * The inspector's layout on a small window (issue 17, item 3; issue 35, item 3) on the mini-swe-agent fixture episode
 * django__django-12143 (a long PR description as its task, long observations): the conversation gets at least
 * 60% of the window, the compact header and nav are one line each, the folded timeline has no empty box, the
 * folds, the step debugger and the what-if panel (open on demand) are remembered, a key takes the next turn to the
 * top, ]/[ step episodes, and the task is cut between two lines, never through one.
 */
import type { Locator } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import type { InspectorPage } from './pages/InspectorPage.ts';

const EPISODE = 'django__django-12143';
const SMALL = [
  { width: 1024, height: 700 },
  { width: 1280, height: 720 },
] as const;

let id = 0;
test.beforeEach(async ({ app, state }) => {
  test.skip(!state.info.runs.some((r) => r.name === 'mini-swe-agent'), 'fixtures/samples/mini-swe-agent is not there');
  await app.open('#/runs');
  id = await app.episodeId(EPISODE);
});

/** Lines of the task that the clip cuts through: a line box partly inside its box (none when the cut is between lines). */
function cutLines(task: Locator): Promise<{ top: number; bottom: number }[]> {
  return task.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const top = box.top + el.clientTop;
    const bottom = top + el.clientHeight;
    const range = document.createRange();
    range.selectNodeContents(el);
    return [...range.getClientRects()]
      .filter((r) => r.height > 0 && r.bottom > top + 0.5 && r.top < bottom - 0.5)
      .filter((r) => r.top < top - 0.5 || r.bottom > bottom + 0.5)
      .map((r) => ({ top: r.top - top, bottom: r.bottom - top }));
  });
}

async function lineHeight(task: Locator): Promise<number> {
  return task.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
}

async function height(el: Locator): Promise<number> {
  return el.evaluate((e) => e.getBoundingClientRect().height);
}

async function openAt(app: { open(hash: string): Promise<void> }, inspector: InspectorPage, turn: number): Promise<void> {
  await app.open(`#/episode/${id}/turn/${turn}`);
  await inspector.waitReady();
  await inspector.expectTurn(turn);
}

for (const size of SMALL) {
  test(`at ${size.width}×${size.height} the conversation gets at least 60% of the window`, async ({ app, inspector, page }) => {
    await page.setViewportSize(size);
    await openAt(app, inspector, 3);
    await expect(inspector.header).toHaveAttribute('data-density', 'compact');
    await expect(inspector.timeline).toHaveAttribute('data-density', 'compact');
    expect(await height(inspector.detailScroll)).toBeGreaterThanOrEqual(0.6 * size.height);

    // The compact header is one line: its title row no taller than its tallest item, every item on it.
    const row = inspector.header.locator('.episode-title-row');
    const items = await row.evaluate((el) => [...el.children].map((c) => c.getBoundingClientRect()).map((r) => ({ top: r.top, bottom: r.bottom })));
    const rowBox = await row.evaluate((el) => el.getBoundingClientRect().toJSON() as DOMRect);
    expect(rowBox.height).toBeLessThanOrEqual(Math.max(...items.map((r) => r.bottom - r.top)) + 1);
    for (const r of items) expect(r.bottom).toBeLessThanOrEqual(rowBox.bottom + 1);
    await expect(inspector.header.getByTestId('episode-turns')).toBeVisible();
    await expect(inspector.headerToggle).toBeInViewport();

    // The nav is one row of buttons, each still named.
    const buttons = await inspector.nav.locator('button').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().top));
    expect(new Set(buttons.map(Math.round)).size).toBe(1);
    await expect(inspector.nav.getByRole('button', { name: 'Next episode' })).toBeVisible();
    await expect(inspector.nav.getByRole('button', { name: 'Previous error' })).toBeVisible();

    // The folded timeline is its drawing (the strip and error marks), no empty box under it.
    const drawn = await inspector.timeline.locator('svg').evaluate((el) => el.getBoundingClientRect().height);
    expect(await inspector.timeline.evaluate((el) => el.clientHeight)).toBe(drawn);
    await expect(inspector.timelineTurns).toHaveCount(Number(await inspector.header.getByTestId('episode-turns').textContent()));
  });
}

test('folding the header and the timeline is remembered across a reload', async ({ app, inspector, page }) => {
  await openAt(app, inspector, 0);
  await expect(inspector.header).toHaveAttribute('data-density', 'full');
  await expect(inspector.timeline).toHaveAttribute('data-density', 'full');
  const fullTimeline = await height(inspector.timeline);
  await inspector.headerToggle.click();
  await inspector.timelineToggle.click();
  await expect(inspector.header).toHaveAttribute('data-density', 'compact');
  await expect(inspector.timeline).toHaveAttribute('data-density', 'compact');
  expect(await height(inspector.timeline)).toBeLessThan(fullTimeline / 2);

  await page.reload();
  await inspector.waitReady();
  await expect(inspector.header).toHaveAttribute('data-density', 'compact');
  await expect(inspector.timeline).toHaveAttribute('data-density', 'compact');

  // And the other way on a small window, where both start folded.
  await page.evaluate(() => localStorage.clear());
  await page.setViewportSize(SMALL[0]);
  await page.reload();
  await inspector.waitReady();
  await expect(inspector.header).toHaveAttribute('data-density', 'compact');
  await inspector.headerToggle.click();
  await expect(inspector.header).toHaveAttribute('data-density', 'full');
  await page.reload();
  await inspector.waitReady();
  await expect(inspector.header).toHaveAttribute('data-density', 'full');
  await expect(inspector.timeline).toHaveAttribute('data-density', 'compact');
});

test('the step debugger and what-if open on demand, by a button or a key, and stay as chosen after a reload', async ({ app, inspector, page }) => {
  await openAt(app, inspector, 0);
  // The conversation has the width until one is asked for.
  await expect(inspector.debugger).toHaveCount(0);
  await expect(page.getByTestId('whatif-panel')).toHaveCount(0);
  await expect(page.getByTestId('inspector-side')).toBeHidden();
  const wide = await inspector.detailScroll.evaluate((el) => el.clientWidth);
  await inspector.debuggerToggle.click();
  await expect(inspector.debugger).toBeVisible();
  await expect(inspector.debuggerToggle).toHaveAttribute('aria-pressed', 'true');
  expect(await inspector.detailScroll.evaluate((el) => el.clientWidth)).toBeLessThan(wide);
  await page.keyboard.press('w');
  await expect(page.getByTestId('whatif-panel')).toBeVisible();
  await page.reload();
  await inspector.waitReady();
  await expect(inspector.debugger).toBeVisible();
  await expect(page.getByTestId('whatif-panel')).toBeVisible();
  // Closed again: by its key, and by the panel's own button.
  await page.keyboard.press('d');
  await expect(inspector.debugger).toHaveCount(0);
  await page.getByTestId('whatif-close').click();
  await expect(inspector.whatIfToggle).toHaveAttribute('aria-pressed', 'false');
  await page.reload();
  await inspector.waitReady();
  await expect(inspector.debugger).toHaveCount(0);
  await expect(page.getByTestId('whatif-panel')).toHaveCount(0);
  expect(await inspector.detailScroll.evaluate((el) => el.clientWidth)).toBe(wide);
});

/** Where the current turn starts, from the top of the conversation's visible part. */
function currentTop(inspector: InspectorPage): Promise<number> {
  return inspector.detailScroll.evaluate((el) => {
    const turn = el.querySelector('[data-testid="turn-detail"][data-current="true"]');
    return turn ? Math.round(turn.getBoundingClientRect().top - el.getBoundingClientRect().top - el.clientTop) : NaN;
  });
}

test('the next turn is brought to the top of the conversation', async ({ app, inspector, page }) => {
  await page.setViewportSize(SMALL[0]);
  await openAt(app, inspector, 3);
  await expect.poll(() => currentTop(inspector)).toBe(0);
  await page.keyboard.press('j');
  await inspector.expectTurn(4);
  await expect.poll(() => currentTop(inspector)).toBe(0);
  // Clicking a turn in the list does the same.
  await inspector.turnItems.and(page.locator('[data-t="6"]')).click();
  await inspector.expectTurn(6);
  await expect.poll(() => currentTop(inspector)).toBe(0);
});

test('] and [ step to the next and previous episode of the run', async ({ app, inspector, page }) => {
  await openAt(app, inspector, 2);
  await page.keyboard.press(']');
  // Another episode, shown: not the moment between two when the view names none.
  await expect.poll(async () => [null, id].includes(await inspector.episodeShown())).toBe(false);
  const next = await inspector.episodeShown();
  await inspector.waitReady();
  await expect(page).toHaveURL(new RegExp(`#/episode/${next}(/turn/0)?(\\?|$)`));
  await page.keyboard.press('[');
  await expect.poll(() => inspector.episodeShown()).toBe(id);
  await inspector.waitReady();
  await inspector.button('next-episode').click();
  await expect.poll(() => inspector.episodeShown()).toBe(next);
});

test('the task is cut between two lines, never through one, and "Full task" shows the rest', async ({ app, inspector, page }) => {
  for (const [size, lines] of [
    [{ width: 1440, height: 900 }, 3],
    [SMALL[0], 1],
  ] as const) {
    await page.setViewportSize(size);
    await openAt(app, inspector, 0);
    const lh = await lineHeight(inspector.taskText);
    const clamped = await inspector.taskText.evaluate((el) => ({ client: el.clientHeight, scroll: el.scrollHeight }));
    expect(clamped.scroll, 'the fixture task is longer than the clamp').toBeGreaterThan(clamped.client);
    expect(clamped.client).toBe(lines * lh);
    expect(await cutLines(inspector.taskText)).toEqual([]);

    await inspector.taskToggle.click();
    await expect(inspector.taskToggle).toHaveAttribute('aria-expanded', 'true');
    expect(await inspector.taskText.evaluate((el) => el.clientHeight)).toBeGreaterThan(lines * lh);
    await inspector.taskToggle.click();
    await expect(inspector.taskToggle).toHaveAttribute('aria-expanded', 'false');
  }
});
