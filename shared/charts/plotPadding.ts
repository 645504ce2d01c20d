/**
 * Room between a plot's data and its axis lines. A point drawn at the end of a scale's domain sits on the axis
 * line, half of its dot (or an interval's cap) outside the plot; widening the domain by a few pixels' worth
 * keeps marks inside while the ticks stay where they were.
 */
import type { ScaleLinear } from 'd3';

/**
 * `scale` with its domain widened so its ends lie `startPx` and `endPx` beyond the old ones, over the same
 * range (a copy; the scale given is not changed).
 */
export function padLinear(scale: ScaleLinear<number, number>, startPx: number, endPx = startPx): ScaleLinear<number, number> {
  const [r0, r1] = scale.range() as [number, number];
  const dir = r1 >= r0 ? 1 : -1;
  const inner = scale.copy().range([r0 + dir * startPx, r1 - dir * endPx]);
  return scale.copy().domain([inner.invert(r0), inner.invert(r1)]);
}
