/**
 * Words a user knows: walking every view, the window never shows "DESIGN §", "S̃" or "S_t" (text, tooltips or
 * labels), and every mention of a penalty outside a figure says, in its sentence or its tooltip, what it takes off the score. Each
 * analysis page says in one sentence what it shows and which paper figure; outcome badges read in words.
 */
import type { Page } from '@playwright/test';
import { ANALYSIS_PAGES } from '../renderer/views/analyses/catalog.ts';
import { expect, test } from './fixtures.ts';

/** What the window says: its text, and every tooltip and accessible label. */
async function windowWords(page: Page): Promise<{ text: string; unexplainedPenalty: string[] }> {
  return page.evaluate(() => {
    const attrs = [...document.querySelectorAll('[title], [aria-label], [placeholder]')].flatMap((e) =>
      ['title', 'aria-label', 'placeholder'].map((a) => e.getAttribute(a) ?? ''),
    );
    const unexplained: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('svg, script, style') || !/penalt/i.test(n.textContent ?? '')) continue;
      const title = el.closest('[title]')?.getAttribute('title') ?? '';
      // Explained in the same sentence or in a tooltip: what it takes off the score.
      if (!/score/i.test(`${n.textContent ?? ''} ${title}`)) unexplained.push(n.textContent ?? '');
    }
    return { text: `${document.body.innerText}\n${document.body.textContent}\n${attrs.join('\n')}`, unexplainedPenalty: unexplained };
  });
}

async function expectPlainWords(page: Page, where: string): Promise<void> {
  const { text, unexplainedPenalty } = await windowWords(page);
  for (const jargon of ['DESIGN §', 'S̃', 'S_t', 'S_norm']) expect(text.includes(jargon), `${where} says "${jargon}"`).toBe(false);
  expect(unexplainedPenalty, `${where}: a penalty without a tooltip saying what it is`).toEqual([]);
}

test('no view speaks in design-document or formula jargon', async ({ app, page, analyses }) => {
  test.setTimeout(120_000);
  for (const hash of ['#/runs', '#/episodes', '#/analyses', '#/estimator', '#/policy', '#/compare']) {
    await app.open(hash);
    await page.waitForLoadState('networkidle');
    await expectPlainWords(page, hash);
  }
  // An episode with errors, at a turn with an error: targets and penalties are shown there.
  const id = await app.episodeId('long_0');
  await app.open(`#/episode/${id}/turn/7`);
  await page.getByTestId('turn-detail').waitFor();
  await page.waitForLoadState('networkidle');
  await expectPlainWords(page, 'the inspector');
  for (const p of ANALYSIS_PAGES) {
    await app.open(`#/analyses/${p.id}`);
    await expect(analyses.view).toBeVisible();
    await page.waitForLoadState('networkidle');
    await expectPlainWords(page, `analysis ${p.id}`);
  }
});

test('each analysis page says in one sentence what it shows and which paper figure', async ({ app, analyses, page }) => {
  // Twelve pages, each computing its figure over every run: more than one test's default 30 s on a busy 2-core machine.
  test.setTimeout(90_000);
  for (const p of ANALYSIS_PAGES) {
    await app.open(`#/analyses/${p.id}`);
    await expect(analyses.view).toBeVisible();
    const summary = page.getByTestId('analysis-summary');
    await expect(summary).toHaveText(p.summary);
    const text = (await summary.textContent()) ?? '';
    expect(text.match(/(?<!\b(?:Fig|Tab|Eq|App))\.\s+[A-Z]/g), `${p.id}: more than one sentence`).toBeNull();
    expect(text).toMatch(/Fig\. \d|Tables? \d|Tab\. \d|§\d|no paper/);
  }
});

test('outcome badges read success, failure or score', async ({ app, page }) => {
  await app.open('#/episodes');
  const badges = page.getByTestId('episodes-table').getByTestId('outcome');
  await expect(badges.first()).toBeVisible();
  for (const text of await badges.allInnerTexts()) expect(text.trim()).toMatch(/^(success|failure|no outcome)?\s*(score -?[\d.,]+)?$/);
  const id = await app.episodeId('long_0');
  await app.open(`#/episode/${id}`);
  const header = page.getByTestId('episode-header').getByTestId('outcome');
  await expect(header).toHaveText(/^success( score -?[\d.,]+)?$/);
  await expect(header).toHaveAttribute('title', /success/);
});
