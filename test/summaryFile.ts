// Each test runner records its counts here; scripts/test-summary.mjs adds them into the one closing line CI reads.
import { mkdirSync, writeFileSync } from 'node:fs';

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

export function recordCounts(suite: 'unit' | 'e2e', counts: Counts): void {
  mkdirSync('test-results', { recursive: true });
  writeFileSync(`test-results/summary-${suite}.json`, JSON.stringify(counts));
}
