import { expect, type Locator, type Page } from '@playwright/test';

/** The import dialog, its openers and the window's drop overlay. */
export class ImportPage {
  readonly dialog: Locator;
  readonly openInHeader: Locator;
  readonly openInEmptyState: Locator;
  readonly fileInput: Locator;
  readonly folderInput: Locator;
  readonly chosen: Locator;
  readonly chosenSummary: Locator;
  readonly runName: Locator;
  readonly start: Locator;
  readonly progress: Locator;
  readonly results: Locator;
  readonly summary: Locator;
  readonly warnings: Locator;
  readonly ignored: Locator;
  readonly done: Locator;
  readonly again: Locator;
  readonly overlay: Locator;

  constructor(readonly page: Page) {
    this.dialog = page.getByRole('dialog', { name: 'Import logs' });
    this.openInHeader = page.getByTestId('import-open');
    this.openInEmptyState = page.getByTestId('import-open-empty');
    this.fileInput = page.getByTestId('import-file-input');
    this.folderInput = page.getByTestId('import-folder-input');
    this.chosen = page.getByTestId('import-chosen-file');
    this.chosenSummary = page.getByTestId('import-chosen-summary');
    this.runName = this.dialog.getByLabel('Run name');
    this.start = page.getByTestId('import-start');
    this.progress = page.getByTestId('import-progress');
    this.results = page.getByTestId('import-result');
    this.summary = page.getByTestId('import-summary');
    this.warnings = page.getByTestId('import-warnings');
    this.ignored = page.getByTestId('import-ignored');
    this.done = page.getByTestId('import-done');
    this.again = page.getByTestId('import-again');
    this.overlay = page.getByTestId('drop-overlay');
  }

  /** A file's row in the results table. */
  result(path: string): Locator {
    return this.page.locator(`[data-testid="import-result"][data-path="${path.replace(/"/g, '\\"')}"]`);
  }

  cell(path: string, column: 'path' | 'format' | 'status' | 'episodes' | 'turns' | 'reason'): Locator {
    return this.result(path).locator(`[data-col="${column}"]`);
  }

  /** Starts the import and waits for the per-file report. */
  async run(): Promise<void> {
    await this.start.click();
    await expect(this.dialog.locator('[data-phase="finished"]')).toBeVisible({ timeout: 20_000 });
  }
}
