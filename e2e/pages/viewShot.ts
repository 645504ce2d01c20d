/** Screenshots for a person to look at, in test-results/screenshots/ (docs/testing.md). */
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

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
