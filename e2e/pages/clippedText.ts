/**
 * Text the window cuts off without saying so. A text is cut where it runs past the box that clips it (a box whose
 * overflow is hidden; a box that scrolls is not a cut); a cut is said when that box ends the text with "…" (an
 * ellipsis or a line clamp) and a tooltip holds the whole. Text a screen reader alone reads is left out, and so is
 * what `skip` names (a clamp with its own "show all" control).
 */
import type { Locator } from '@playwright/test';

export interface ClippedText {
  /** The clipping box: its test id (or the nearest one above it) and class. */
  where: string;
  text: string;
  /** Its box and the text's own extent, in pixels. */
  box: [number, number];
  needs: [number, number];
}

export async function clippedText(root: Locator, skip: readonly string[] = []): Promise<ClippedText[]> {
  return root.evaluate((top, skipped) => {
    const found: ClippedText[] = [];
    const seen = new Set<Element>();
    const walker = document.createTreeWalker(top, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || (node.textContent ?? '').trim() === '') continue;
      if (el.closest(['svg', '[aria-hidden="true"]', '.visually-hidden', '[hidden]', ...skipped].join(','))) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const text = range.getBoundingClientRect();
      if (text.width === 0 || text.height === 0) continue;
      let clip: HTMLElement | null = el;
      let clamped = false;
      while (clip && clip !== document.body) {
        const style = getComputedStyle(clip);
        if (style.webkitLineClamp !== 'none' && style.webkitLineClamp !== '') clamped = true;
        if (style.overflowX !== 'visible' || style.overflowY !== 'visible') break;
        clip = clip.parentElement;
      }
      if (!clip || clip === document.body || seen.has(clip)) continue;
      const style = getComputedStyle(clip);
      if ([style.overflowX, style.overflowY].some((o) => o === 'auto' || o === 'scroll')) continue;
      const box = clip.getBoundingClientRect();
      const cut = text.right > box.right + 1 || text.left < box.left - 1 || text.bottom > box.bottom + 1 || text.top < box.top - 1;
      if (!cut) continue;
      seen.add(clip);
      const said = style.textOverflow === 'ellipsis' || clamped || (style.webkitLineClamp !== 'none' && style.webkitLineClamp !== '');
      if (said && (clip.closest('[title]')?.getAttribute('title') ?? '') !== '') continue;
      const id = clip.closest('[data-testid]')?.getAttribute('data-testid') ?? '';
      found.push({
        where: `${id} ${clip.tagName.toLowerCase()}.${String(clip.className).split(' ').join('.')}`,
        text: (clip.textContent ?? '').trim().slice(0, 80),
        box: [Math.round(box.width), Math.round(box.height)],
        needs: [Math.round(text.width), Math.round(text.height)],
      });
    }
    return found;
  }, skip);
}
