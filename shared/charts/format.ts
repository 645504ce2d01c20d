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
