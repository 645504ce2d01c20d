/**
 * Ends the run with one plain line, `e2e: N passed, N failed, N skipped`, for CI logs and scripts.
 * A test counts once, by its final outcome (flaky = passed). When the run failed before some tests ran
 * (a broken globalSetup, an interrupt), those tests count as failed so the line never reads green.
 */
import type { FullResult, Reporter, Suite, TestCase } from '@playwright/test/reporter';
import { recordCounts } from '../test/summaryFile.ts';

export default class SummaryReporter implements Reporter {
  private all: TestCase[] = [];

  onBegin(_config: unknown, suite: Suite): void {
    this.all = suite.allTests();
  }

  onEnd(result: FullResult): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    let notRun = 0;
    for (const test of this.all) {
      if (test.results.length === 0) {
        notRun++;
        continue;
      }
      const outcome = test.outcome();
      if (outcome === 'expected' || outcome === 'flaky') passed++;
      else if (outcome === 'skipped') skipped++;
      else failed++;
    }
    if (result.status === 'passed') skipped += notRun;
    else failed += notRun;
    if (result.status !== 'passed' && failed === 0) failed = 1;
    recordCounts('e2e', { passed, failed, skipped });
    process.stdout.write(`e2e: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }

  printsToStdio(): boolean {
    return true;
  }
}
