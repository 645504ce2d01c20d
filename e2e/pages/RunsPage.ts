import { expect, type Locator, type Page } from '@playwright/test';

export class RunsPage {
  readonly view: Locator;
  readonly rows: Locator;
  readonly summary: Locator;
  readonly filterBanner: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('runs-view');
    this.rows = page.getByTestId('run-row');
    this.summary = page.getByTestId('runs-summary');
    this.filterBanner = page.getByTestId('runs-filter-banner');
  }

  async waitReady(): Promise<void> {
    await expect(this.view).toHaveAttribute('data-state', 'ready');
  }

  row(name: string): Locator {
    return this.page.locator(`[data-testid="run-row"][data-run-name="${name.replace(/"/g, '\\"')}"]`);
  }

  cell(name: string, column: 'episodes' | 'turns' | 'cost' | 'success' | 'score'): Locator {
    return this.row(name).getByTestId(`run-${column}`);
  }

  /** The run names in the order the table lists them. */
  names(): Promise<string[]> {
    return this.rows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-name') ?? ''));
  }

  /** Clicks a column header (sorts by it; again flips the direction). */
  async sortBy(column: 'name' | 'episodes' | 'turns' | 'cost' | 'success' | 'score'): Promise<void> {
    await this.page.getByTestId(`runs-sort-${column}`).click();
  }

  header(column: 'name' | 'episodes' | 'turns' | 'cost' | 'success' | 'score'): Locator {
    return this.page.locator('th').filter({ has: this.page.getByTestId(`runs-sort-${column}`) });
  }

  async filter(text: string): Promise<void> {
    await this.page.getByTestId('runs-filter').fill(text);
  }
}
