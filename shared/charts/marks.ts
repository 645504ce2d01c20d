/** Small geometry helpers layouts share: readable text on a fill, label placement without overlaps. */
import { color as parseColor } from 'd3';
import { textWidth } from './text.ts';

/** Black or white, whichever reads better on `fill` (WCAG relative luminance). */
export function textOn(fill: string): string {
  const c = parseColor(fill)?.rgb();
  if (!c) return '#000000';
  const lin = (v: number): number => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
  return l > 0.4 ? '#111111' : '#ffffff';
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/**
 * Places a label beside a point of radius r: right, left, above, below, then the four diagonals — the first
 * spot that overlaps no label placed before and stays inside `bounds`. Returns null when none fits (the tooltip still names it).
 */
export function placeLabel(
  text: string, px: number, py: number, r: number, fontSize: number, placed: Box[], bounds: Box,
): { x: number; y: number; anchor: 'start' | 'end' | 'middle'; box: Box } | null {
  const w = textWidth(text, fontSize);
  const h = fontSize + 2;
  const candidates: { x: number; y: number; anchor: 'start' | 'end' | 'middle'; box: Box }[] = [
    { x: px + r + 4, y: py, anchor: 'start', box: { x: px + r + 4, y: py - h / 2, width: w, height: h } },
    { x: px - r - 4, y: py, anchor: 'end', box: { x: px - r - 4 - w, y: py - h / 2, width: w, height: h } },
    { x: px, y: py - r - 3 - h / 2, anchor: 'middle', box: { x: px - w / 2, y: py - r - 3 - h, width: w, height: h } },
    { x: px, y: py + r + 3 + h / 2, anchor: 'middle', box: { x: px - w / 2, y: py + r + 3, width: w, height: h } },
    // Diagonals, for a point near the plot's edge with a line through its side (a frontier step).
    { x: px + r, y: py - r - 2 - h / 2, anchor: 'start', box: { x: px + r, y: py - r - 2 - h, width: w, height: h } },
    { x: px + r, y: py + r + 2 + h / 2, anchor: 'start', box: { x: px + r, y: py + r + 2, width: w, height: h } },
    { x: px - r, y: py - r - 2 - h / 2, anchor: 'end', box: { x: px - r - w, y: py - r - 2 - h, width: w, height: h } },
    { x: px - r, y: py + r + 2 + h / 2, anchor: 'end', box: { x: px - r - w, y: py + r + 2, width: w, height: h } },
  ];
  for (const c of candidates) {
    const b = c.box;
    const inside = b.x >= bounds.x && b.y >= bounds.y && b.x + b.width <= bounds.x + bounds.width && b.y + b.height <= bounds.y + bounds.height;
    if (inside && !placed.some((p) => overlaps(p, b))) {
      placed.push(b);
      return c;
    }
  }
  return null;
}
