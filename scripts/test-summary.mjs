// The closing line of `npm test`: unit and browser test counts added up, `total: N passed, N failed, N skipped`.
import { existsSync, readFileSync } from 'node:fs';

const total = { passed: 0, failed: 0, skipped: 0 };
for (const suite of ['unit', 'e2e']) {
  const file = `test-results/summary-${suite}.json`;
  if (!existsSync(file)) {
    total.failed += 1; // a suite that wrote no counts did not run to the end
    continue;
  }
  const counts = JSON.parse(readFileSync(file, 'utf8'));
  for (const k of Object.keys(total)) total[k] += counts[k];
}
console.log(`total: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exitCode = total.failed > 0 ? 1 : 0;
