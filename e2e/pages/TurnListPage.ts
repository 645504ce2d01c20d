import type { Locator, Page } from '@playwright/test';

/** The inspector's turn list and the cost lane of its timeline: what each turn did and what it cost. */
export class TurnListPage {
  readonly rows: Locator;
  readonly costLine: Locator;
  readonly costGap: Locator;
  readonly costTicks: Locator;

  constructor(readonly page: Page) {
    this.rows = page.getByTestId('turn-item');
    this.costLine = page.getByTestId('timeline-cost');
    this.costGap = page.getByTestId('timeline-cost-gap');
    this.costTicks = page.getByTestId('timeline-cost-tick');
  }

  /** The row of the turn at this position in the episode. */
  row(index: number): Locator {
    return this.page.locator(`[data-testid="turn-item"][data-t="${index}"]`);
  }

  summary(index: number): Locator {
    return this.row(index).getByTestId('turn-summary');
  }

  moreCalls(index: number): Locator {
    return this.row(index).getByTestId('turn-more-calls');
  }

  cost(index: number): Locator {
    return this.row(index).getByTestId('turn-item-cost');
  }
}
