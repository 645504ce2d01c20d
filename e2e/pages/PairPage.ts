/** The split inspector (#/pair/<A>/<B>): the aligned rows, the divergence marker, both turns' details. */
import { expect, type Locator, type Page } from '@playwright/test';

export class PairPage {
  readonly view: Locator;
  readonly grid: Locator;
  readonly rows: Locator;
  readonly marker: Locator;
  readonly summary: Locator;
  readonly note: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('pair-view');
    this.grid = page.getByTestId('pair-grid');
    this.rows = page.getByTestId('pair-row');
    this.marker = page.getByTestId('divergence-marker');
    this.summary = page.getByTestId('divergence-summary');
    this.note = page.getByTestId('turn-nav-note');
  }

  async waitReady(): Promise<void> {
    await expect(this.view).toHaveAttribute('data-state', 'ready');
  }

  side(side: 'a' | 'b'): Locator {
    return this.page.getByTestId(`pair-side-${side}`);
  }

  row(t: number): Locator {
    return this.page.locator(`[data-testid="pair-row"][data-t="${t}"]`);
  }

  cell(t: number, side: 'a' | 'b'): Locator {
    return this.row(t).getByTestId(`pair-cell-${side}`);
  }

  detail(side: 'a' | 'b'): Locator {
    return this.page.getByTestId(`pair-detail-${side}`);
  }

  button(name: 'pair-back' | 'prev-turn' | 'next-turn' | 'prev-difference' | 'next-difference'): Locator {
    return this.page.getByTestId(name);
  }

  /** Row t is selected, in the grid and in the URL. */
  async expectTurn(t: number): Promise<void> {
    await expect(this.row(t)).toHaveAttribute('aria-selected', 'true');
    await expect(this.page).toHaveURL(new RegExp(`#/pair/\\d+/\\d+/turn/${t}(\\?|$)`));
  }
}
