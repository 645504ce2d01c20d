/** `npm run bench`: each benchmark against its baseline, measured in the same run (DESIGN §11). */
import { benchScoring } from './scoring.ts';

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

const s = await benchScoring();
console.log(
  `scoring: ${fmt(s.rowsPerSec)} rows/s (${s.provider}, ${s.threads} threads, batch ${s.batchSize}, ${fmt(s.rows)} rows × 6 models), ` +
    `bare ORT ${fmt(s.bareRowsPerSec)} rows/s, ratio ${s.ratio.toFixed(2)}`,
);
