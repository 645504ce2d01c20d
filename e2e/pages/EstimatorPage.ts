import { expect, type Locator, type Page } from '@playwright/test';

/** The run globalSetup scores before the tests (calibration, embeddings and what-if neighbours need ŝ). */
export const SCORED_RUN = 'sw-switch-on-error';

/** The Estimator view (#/estimator) and its job panel. */
export class EstimatorPage {
  readonly view: Locator;
  readonly items: Locator;
  readonly card: Locator;
  readonly scoreButton: Locator;
  readonly trainButton: Locator;
  readonly epochs: Locator;
  readonly patience: Locator;
  readonly job: Locator;
  readonly jobMessage: Locator;
  readonly provider: Locator;
  readonly jobLoss: Locator;
  readonly calibration: Locator;
  readonly embeddings: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('estimator-view');
    this.items = page.getByTestId('estimator-item');
    this.card = page.getByTestId('model-card');
    this.scoreButton = page.getByTestId('score-button');
    this.trainButton = page.getByTestId('train-button');
    this.epochs = page.getByTestId('train-epochs');
    this.patience = page.getByTestId('train-patience');
    this.job = page.getByTestId('estimator-job');
    this.jobMessage = page.getByTestId('job-message');
    this.provider = page.getByTestId('job-provider');
    this.jobLoss = page.getByTestId('job-loss-curves');
    this.calibration = page.getByTestId('calibration-figure');
    this.embeddings = page.getByTestId('embeddings-figure');
  }

  async waitReady(): Promise<void> {
    await expect(this.view).toHaveAttribute('data-state', 'ready');
  }

  /** Waits for the job shown to end; returns its final state. */
  async waitJobEnd(timeout = 90_000): Promise<string | null> {
    await expect(this.job).toHaveAttribute('data-state', /^(done|failed|cancelled)$/, { timeout });
    return this.job.getAttribute('data-state');
  }

  /** Waits until a figure card shows its figure drawn. */
  async waitFigure(figure: Locator): Promise<void> {
    await expect(figure).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
    await expect(figure.getByTestId('figure')).toHaveAttribute('data-drawn', 'true');
  }
}

/** The what-if panel beside the inspector's conversation, opened by its button or `w`. */
export class WhatIfPage {
  readonly panel: Locator;
  readonly toggle: Locator;
  readonly title: Locator;
  readonly candidates: Locator;
  readonly neighbours: Locator;
  readonly source: Locator;

  constructor(readonly page: Page) {
    this.panel = page.getByTestId('whatif-panel');
    this.toggle = page.getByTestId('whatif-toggle');
    this.title = page.getByTestId('whatif-title');
    this.candidates = page.getByTestId('whatif-candidate');
    this.neighbours = page.getByTestId('whatif-neighbour');
    this.source = page.getByTestId('whatif-source');
  }

  async open(): Promise<void> {
    if ((await this.toggle.getAttribute('aria-pressed')) !== 'true') await this.page.keyboard.press('w');
    await expect(this.panel).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  }
}
