// CI reads a plain closing line `N passed, N failed, N skipped`; vitest's own summary is not recognised.
import type { Reporter, TestModule } from 'vitest/node';
import { recordCounts } from './summaryFile.ts';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++;
    }
    recordCounts('unit', { passed, failed, skipped });
    process.stdout.write(`\nunit: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
