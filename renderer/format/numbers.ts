/** How figures read everywhere in the UI: one function per kind of number, so a cost looks the same in every view. */

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatCount(n: number | null | undefined): string {
  return n == null ? '—' : integer.format(n);
}

/**
 * Dollars with a precision that suits the size: cents for a dollar and up, three significant digits below
 * (agent turns routinely cost fractions of a cent, and `$0.00` would hide every difference that matters).
 */
export function formatCost(usd: number | null | undefined, options?: { trimZeros?: boolean }): string {
  if (usd == null || !Number.isFinite(usd)) return '—';
  if (usd === 0) return '$0';
  const abs = Math.abs(usd);
  const sign = usd < 0 ? '−' : '';
  if (abs >= 1000) return `${sign}$${integer.format(Math.round(abs))}`;
  if (abs >= 1) return `${sign}$${abs.toFixed(2)}`;
  if (abs < 0.000001) return `${sign}<$0.000001`;
  // toPrecision keeps trailing zeros ($0.0170), so a column of costs lines up digit for digit; axis ticks trim them.
  const digits = abs.toPrecision(3);
  return `${sign}$${options?.trimZeros ? String(Number(digits)) : digits}`;
}

/** A share in [0, 1] as a percentage with one decimal where it matters (57.1%, 100%, 0%). */
export function formatPercent(share: number | null | undefined): string {
  if (share == null || !Number.isFinite(share)) return '—';
  const pct = share * 100;
  const rounded = Math.round(pct * 10) / 10;
  return `${Number.isInteger(rounded) ? rounded.toFixed(0) : rounded.toFixed(1)}%`;
}

/** A normalised score or probability in [0, 1], two decimals. */
export function formatUnit(x: number | null | undefined, digits = 2): string {
  if (x == null || !Number.isFinite(x)) return '—';
  return x.toFixed(digits);
}

/** A raw score as the log gave it: integers stay integers, others get up to three decimals. */
export function formatScore(x: number | null | undefined): string {
  if (x == null || !Number.isFinite(x)) return '—';
  return Number.isInteger(x) ? integer.format(x) : String(Number(x.toFixed(3)));
}

export function formatLatency(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Compact token counts for tight spaces (1.2k, 3.4M); exact counts elsewhere use formatCount. */
export function formatTokensShort(n: number | null | undefined): string {
  if (n == null) return '—';
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** File sizes in binary units, as file managers show them (820 B, 14.2 KiB, 3.4 MiB, 1.1 GiB). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
