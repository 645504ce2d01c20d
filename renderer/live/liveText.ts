/** How live figures read (issue 36 item 4): "40 s ago", a rate per hour, a model mix. */
import { formatCost } from '../format/numbers.ts';

/** "just now", "40 s ago", "3 min ago", "2 h ago": how long since `iso`, at `now`. */
export function agoText(iso: string, now: number): string {
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return '—';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min ago`;
  return `${Math.round(min / 60)} h ago`;
}

/** A rate in USD per hour; unknown (no timestamps) reads "—", a lower bound "≥". */
export function rateText(perHour: number | null, unpriced: number): string {
  if (perHour === null) return '—';
  return `${unpriced > 0 ? '≥ ' : ''}${formatCost(perHour)}/h`;
}
