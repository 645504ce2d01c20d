/**
 * Words a user knows: what the window says (its text, every tooltip and accessible label) never holds "DESIGN §",
 * "S̃" or "S_t", and every mention of a penalty outside a figure says, in its sentence or its tooltip, what it takes
 * off the score.
 */
import { expect, type Page } from '@playwright/test';

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

export async function expectPlainWords(page: Page, where: string): Promise<void> {
  const { text, unexplainedPenalty } = await windowWords(page);
  for (const jargon of ['DESIGN §', 'S̃', 'S_t', 'S_norm']) expect(text.includes(jargon), `${where} says "${jargon}"`).toBe(false);
  expect(unexplainedPenalty, `${where}: a penalty without a tooltip saying what it is`).toEqual([]);
}
