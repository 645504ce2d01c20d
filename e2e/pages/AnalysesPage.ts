/** The Analyses index and pages: figures, their marks and tooltip, controls, and the export menu. */
import { expect, type Download, type Locator, type Page } from '@playwright/test';
import { SCORED_RUN } from './EstimatorPage.ts';

export type ExportChoice = 'svg' | 'png2x' | 'pngdpi' | 'pdf' | 'csv';

/**
 * Runs a user would compare on each analysis, from the simulated runs globalSetup imports (each preset makes
 * several runs: a controller or router, baselines, single-model runs).
 */
export const RUNS_FOR: Record<string, string[]> = {
  pareto: ['sw-mtrouter', 'sw-random', 'sw-switch-on-error', 'sw-gpt-5', 'sw-deepseek-v3.2', 'sw-kimi-k2', 'sw-minimax-m2'],
  'switch-cost': ['sw-mtrouter', 'sw-random', 'sw-switch-on-error'],
  'error-recovery': ['sw-mtrouter', 'sw-random', 'sw-switch-on-error'],
  'usage-by-turn': ['sw-mtrouter', 'sw-random'],
  lift: ['sw-mtrouter', 'sw-random'],
  'plan-dag': ['uno-orchestra', 'uno-random-workers', 'uno-gpt-5'],
  'budget-modes': ['corl-controller', 'corl-controller-only'],
  'usage-ratio': ['crit-controller', 'crit-no-lagrangian', 'crit-random'],
  confusion: ['crit-controller', 'crit-random'],
  targets: ['sw-mtrouter'],
  calibration: [SCORED_RUN],
  embeddings: [SCORED_RUN],
};

export class AnalysesPage {
  readonly index: Locator;
  readonly cards: Locator;
  readonly view: Locator;
  readonly tooltip: Locator;

  constructor(readonly page: Page) {
    this.index = page.getByTestId('analyses-index');
    this.cards = page.getByTestId('analysis-card');
    this.view = page.getByTestId('analysis-page');
    this.tooltip = page.getByTestId('figure-tooltip');
  }

  /** A figure card: the page's main one, or plan-dag's one-episode panel. */
  panel(which: 'main' | 'episode' = 'main'): Locator {
    return this.page.getByTestId(which === 'main' ? 'figure-panel' : 'figure-panel-episode');
  }

  /** Waits until a panel shows a drawn figure (or says it has no data, when `allowEmpty`). */
  async waitFigure(which: 'main' | 'episode' = 'main', allowEmpty = false): Promise<void> {
    const panel = this.panel(which);
    await expect(panel).toHaveAttribute('data-state', allowEmpty ? /^(ready|empty)$/ : 'ready', { timeout: 20_000 });
    // The marks are drawn as a transition after the layout is ready.
    if ((await panel.getAttribute('data-state')) === 'ready') await expect(panel.getByTestId('figure')).toHaveAttribute('data-drawn', 'true');
  }

  marks(which: 'main' | 'episode' = 'main'): Locator {
    return this.panel(which).locator('[data-mark]');
  }

  /** The first mark big enough to point at whose hover lines include `text` (a count: "n = "). */
  async markWith(text: string, which: 'main' | 'episode' = 'main'): Promise<Locator> {
    const candidates = this.panel(which).locator(`[data-mark][aria-label*="${text}"]`);
    const count = await candidates.count();
    for (let i = 0; i < count; i++) {
      const box = await candidates.nth(i).boundingBox();
      if (box && box.width >= 2 && box.height >= 2) return candidates.nth(i);
    }
    throw new Error(`no mark of a pointable size says "${text}" (${count} say it)`);
  }

  async hover(mark: Locator): Promise<void> {
    await mark.scrollIntoViewIfNeeded();
    // A mark drawn again under a resting pointer (its figure's data answered once more while the machine was busy:
    // seen once in a full run, on the store) gets no new pointer event: the pointer leaves and points again.
    await expect(async () => {
      await this.page.mouse.move(0, 0);
      await mark.hover({ force: true });
      await expect(this.tooltip).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 12_000 });
  }

  /** Opens the export menu of a panel and saves one format; returns the download. */
  async exportAs(choice: ExportChoice, which: 'main' | 'episode' = 'main', dpi?: number): Promise<Download> {
    const panel = this.panel(which);
    await panel.getByTestId('export-menu').click();
    const menu = panel.getByTestId('export-menu-panel');
    if (dpi !== undefined) await menu.getByTestId('export-dpi').selectOption(String(dpi));
    const [download] = await Promise.all([this.page.waitForEvent('download'), menu.getByTestId(`export-${choice}`).click()]);
    await expect(menu).toHaveCount(0);
    return download;
  }
}
