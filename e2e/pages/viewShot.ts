/** Screenshots for a person to look at, in test-results/screenshots/ (docs/testing.md). */
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import type { AppPage } from './AppPage.ts';

export const SHOTS_DIR = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

/** Grows the window to the view's height (tall figures, the policy lab), at most `maxHeight`; returns a restorer. */
async function tallWindow(page: Page, maxHeight: number): Promise<() => Promise<void>> {
  const height = await page.getByTestId('view').evaluate((el) => el.scrollHeight + 48);
  await page.setViewportSize({ width: 1440, height: Math.min(maxHeight, Math.max(900, height)) });
  return () => page.setViewportSize({ width: 1440, height: 900 });
}

/**
 * The whole view in both themes (`name-light.png`, `name-dark.png`) inside one growth of the window: each resize
 * redraws the view's figures, so the two pictures share one. `settle` waits for what the theme switch redraws.
 */
export async function viewInBothThemes(app: AppPage, name: string, options: { maxHeight?: number; settle?: () => Promise<void> } = {}): Promise<void> {
  const restore = await tallWindow(app.page, options.maxHeight ?? 2400);
  await inBothThemes(app, async (theme) => {
    await options.settle?.();
    await app.page.screenshot({ path: `${SHOTS_DIR}${name}-${theme}.png` });
  });
  await restore();
}

/**
 * `shoot(theme)` in the light theme, then in the dark one, switched in place: a view reached once gives both
 * pictures (reaching it is what costs: a replay, a figure's query). Focus leaves the theme button afterwards, so the
 * view's keys answer as before.
 */
export async function inBothThemes(app: AppPage, shoot: (theme: 'light' | 'dark') => Promise<unknown>): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await app.setTheme(theme);
    await shoot(theme);
  }
  await app.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}
