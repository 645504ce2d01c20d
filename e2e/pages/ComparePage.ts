/** The Compare view (#/compare): choosing the sides, running the comparison, and what it shows. */
import { expect, type Locator, type Page } from '@playwright/test';

export class ComparePage {
  readonly view: Locator;
  readonly runButton: Locator;
  readonly result: Locator;
  readonly taskRows: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('compare-view');
    this.runButton = page.getByTestId('compare-run');
    this.result = page.getByTestId('compare-result');
    this.taskRows = page.getByTestId('task-row');
  }

  /** Chooses exactly these runs (by name) for one side. */
  async chooseRuns(side: 'a' | 'b', names: string[]): Promise<void> {
    await this.page.getByTestId(`compare-runs-${side}`).click();
    const panel = this.page.getByTestId(`compare-runs-${side}-panel`);
    const all = panel.getByRole('button', { name: 'All runs' });
    if (await all.isEnabled()) await all.click();
    for (const name of names) await panel.getByLabel(name, { exact: true }).check();
    await this.page.keyboard.press('Escape');
  }

  async compare(): Promise<void> {
    await this.runButton.click();
    await expect(this.view).toHaveAttribute('data-state', 'done', { timeout: 20_000 });
  }

  figure(id: 'paired-scatter' | 'cost-diff' | 'model-cost'): Locator {
    return this.page.getByTestId(`compare-figure-${id}`);
  }
}
