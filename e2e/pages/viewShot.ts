/** Screenshots for a person to look at, in test-results/screenshots/ (docs/testing.md). */
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import type { AppPage } from './AppPage.ts';

export const SHOTS_DIR = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

/**
 * The whole view in one picture: the window grown to the view's height (tall figures, the policy lab), at most
 * `maxHeight`, then set back to 1440x900.
 */
export async function shotOfView(page: Page, name: string, maxHeight = 2400): Promise<void> {
  const height = await page.getByTestId('view').evaluate((el) => el.scrollHeight + 48);
  await page.setViewportSize({ width: 1440, height: Math.min(maxHeight, Math.max(900, height)) });
  await page.screenshot({ path: `${SHOTS_DIR}${name}.png` });
  await page.setViewportSize({ width: 1440, height: 900 });
}

/**
 * `shoot(theme)` in the light theme, then in the dark one, switched in place: a view reached once gives both
 * pictures (reaching it is what costs: a replay, a figure's query). Focus leaves the theme button afterwards, so the
 * view's keys answer as before.
 */
export async function inBothThemes(app: AppPage, shoot: (theme: 'light' | 'dark') => Promise<void>): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await app.setTheme(theme);
    await shoot(theme);
  }
  await app.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}
