import type { Locator, Page } from '@playwright/test';

/** The "Estimator in use" picker each view that shows ŝ carries (renderer/views/estimator/EstimatorInUse.tsx). */
export class EstimatorInUsePage {
  constructor(readonly page: Page) {}

  /** The picker inside the block with this test id (whatif-estimator, debugger-estimator, analysis-estimator, policy-estimator). */
  select(block: string): Locator {
    return this.page.getByTestId(block).getByTestId('estimator-in-use-select');
  }
}
