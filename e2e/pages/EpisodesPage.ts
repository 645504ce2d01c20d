import { expect, type Locator, type Page } from '@playwright/test';
import type { EpisodeSortColumn } from '../../shared/api.ts';

export class EpisodesPage {
  readonly view: Locator;
  readonly rows: Locator;
  readonly count: Locator;
  readonly search: Locator;
  readonly scroller: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('episodes-view');
    this.rows = page.getByTestId('episode-row');
    this.count = page.getByTestId('episode-count');
    this.search = page.getByTestId('episode-search');
    this.scroller = page.getByTestId('episodes-scroll');
  }

  /** Waits until the table shows the answer to the current filters (not the previous, stale one). */
  async waitReady(): Promise<void> {
    await expect(this.view).toHaveAttribute('data-state', 'ready');
    await expect(this.count).toHaveAttribute('data-loading', 'false');
  }

  header(column: EpisodeSortColumn | 'models'): Locator {
    return this.page.getByTestId(`col-${column}`);
  }

  async sortBy(column: EpisodeSortColumn, direction: 'ascending' | 'descending'): Promise<void> {
    const header = this.header(column);
    for (let i = 0; i < 3 && (await header.getAttribute('aria-sort')) !== direction; i++) {
      await header.getByRole('button').click();
      await this.waitReady();
    }
    await expect(header).toHaveAttribute('aria-sort', direction);
    await expect(this.view).toHaveAttribute('data-sort', `${column}:${direction === 'ascending' ? 'asc' : 'desc'}`);
    await this.waitReady();
  }

  /** The text of one column for every rendered row, top to bottom. */
  async columnTexts(column: string): Promise<string[]> {
    return this.rows.locator(`[data-col="${column}"]`).allInnerTexts();
  }

  row(extId: string): Locator {
    return this.page.locator(`[data-testid="episode-row"][data-ext-id="${extId}"]`);
  }

  async setOutcome(label: 'Any' | 'Success' | 'Failure' | 'Unknown'): Promise<void> {
    await this.page.getByTestId('outcome-filter').getByRole('radio', { name: label }).click();
    await this.waitReady();
  }

  async filterModels(models: string[]): Promise<void> {
    await this.page.getByTestId('model-filter').click();
    const panel = this.page.getByTestId('model-filter-panel');
    for (const model of models) await panel.getByLabel(model, { exact: true }).check();
    await this.page.keyboard.press('Escape');
    await this.waitReady();
  }

  async searchFor(text: string): Promise<void> {
    await this.search.fill(text);
    // The view says which search its rows answer; wait for this one (the box is debounced).
    await expect(this.view).toHaveAttribute('data-search', text.trim());
    await this.waitReady();
  }

  async matchCount(): Promise<number> {
    const text = await this.count.innerText();
    const match = text.replace(/,/g, '').match(/^(\d+)/);
    if (!match) throw new Error(`no count in "${text}"`);
    return Number(match[1]);
  }
}
