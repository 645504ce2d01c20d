/** How the Compare view writes differences (always B − A, sign always shown), intervals and p-values. */
import { signed } from '../../../shared/charts/layouts/compareCommon.ts';
import { formatCost, formatUnit } from '../../format/numbers.ts';

/** A difference of rates in percentage points: "+12.5 pp". */
export function diffPoints(x: number): string {
  return `${signed(x * 100, (v) => v.toFixed(1))} pp`;
}

export function diffUnit(x: number): string {
  return signed(x, (v) => formatUnit(v, 3));
}

export function diffCost(x: number): string {
  return signed(x, (v) => formatCost(v));
}

/** "95% CI −3.1 pp to +20.0 pp", or why there is none. */
export function ciText(ci: readonly [number, number] | null, format: (x: number) => string): string {
  return ci ? `95% CI ${format(ci[0])} to ${format(ci[1])}` : 'no interval (too few pairs or no resamples)';
}

/** Exact p-values: "p = 0.031", "p < 0.001", "p = 1". */
export function pValue(p: number): string {
  if (p < 0.001) return 'p < 0.001';
  if (p >= 0.9995) return 'p = 1';
  return `p = ${p.toFixed(3)}`;
}
