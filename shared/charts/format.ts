/** How numbers read on axes and in tooltips: units always written ($, %, turns), n always given. */
import { format } from 'd3';

const sig3 = format('.3~r');

/** $0.0123, $1.23, $1,234 — enough digits for per-turn prices without noise on totals. */
export function fmtUsd(x: number): string {
  if (!Number.isFinite(x)) return 'n/a';
  const a = Math.abs(x);
  if (a === 0) return '$0';
  if (a >= 100) return `$${format(',.0f')(x)}`;
  if (a >= 1) return `$${format('.2f')(x)}`;
  return `$${format('.3~r')(x)}`;
}

/**
 * Money tick labels with one number of decimals along the axis ($0.50 $1.00 $1.50, not $0.5 $1.00 $1.50): as
 * many as the step between ticks needs, at least two below a dollar step, none from a whole-dollar step.
 */
export function fmtUsdTicks(values: readonly number[]): (x: number) => string {
  const step = values.length > 1 ? Math.abs((values[1] as number) - (values[0] as number)) : 0;
  if (!(step > 0)) return fmtUsd;
  const decimals = step >= 1 && Number.isInteger(step) ? 0 : Math.min(8, Math.max(2, Math.ceil(-Math.log10(step) - 1e-9)));
  const digits = format(`,.${decimals}f`);
  return (x) => `${x < 0 ? '−' : ''}$${digits(Math.abs(x))}`;
}

/** 0.423 → "42.3%". */
export function fmtPct(x: number | null, digits = 1): string {
  if (x === null || !Number.isFinite(x)) return 'n/a';
  return `${(x * 100).toFixed(digits)}%`;
}

export function fmtNum(x: number | null): string {
  if (x === null || !Number.isFinite(x)) return 'n/a';
  return Math.abs(x) >= 1000 ? format(',.0f')(x) : sig3(x);
}

export function fmtCount(n: number): string {
  return format(',')(Math.round(n));
}

/** "n = 1,234 turns" */
export function fmtN(n: number, unit: string): string {
  return `n = ${fmtCount(n)} ${unit}`;
}
