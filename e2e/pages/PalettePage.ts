/** The command palette (Ctrl+K) and the shortcut help (?). */
import { expect, type Locator, type Page } from '@playwright/test';

export class PalettePage {
  readonly dialog: Locator;
  readonly input: Locator;
  readonly help: Locator;
  readonly helpRows: Locator;

  constructor(readonly page: Page) {
    this.dialog = page.getByTestId('command-palette');
    this.input = page.getByTestId('palette-input');
    this.help = page.getByTestId('shortcut-help');
    this.helpRows = this.help.getByTestId('shortcut-row');
  }

  /** Opens it with the keys (Playwright's browsers run on Linux here: Ctrl, not ⌘). */
  async open(): Promise<void> {
    await this.page.keyboard.press('Control+k');
    await expect(this.dialog).toBeVisible();
    await expect(this.input).toBeFocused();
  }

  item(id: string): Locator {
    return this.page.getByTestId(`palette-${id}`);
  }

  /** Types, then waits until `id` is the item Enter would choose, and chooses it. */
  async choose(text: string, id: string): Promise<void> {
    await this.input.fill(text);
    await expect(this.item(id)).toHaveAttribute('data-selected', 'true');
    await this.page.keyboard.press('Enter');
    await expect(this.dialog).toBeHidden();
  }
}
