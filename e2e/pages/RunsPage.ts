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
}
