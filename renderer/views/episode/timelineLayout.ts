/**
 * Geometry of the turn timeline, computed with d3 scales and shapes and no DOM (STYLE §8): the component only
 * draws what this returns. Lanes, top to bottom: error markers (one triangle per turn with an error, sized and
 * coloured by its max severity), the cumulative-cost line over its area, and the model strip (one band per
 * turn coloured by model) with a tick at every model switch. Turn-index labels sit below the strip.
 */
import { area, line, scaleBand, scaleLinear, type ScaleBand } from 'd3';
import type { TurnDetail } from '../../../shared/api.ts';
import type { Severity } from '../../../shared/canonical.ts';

export const TIMELINE_HEIGHT = 148;
const MARGIN = { left: 56, right: 14 };
const LANES = {
  errorY: 12,
  costTop: 28,
  costBottom: 88,
  stripTop: 96,
  stripBottom: 114,
  axisY: 132,
};

const TRIANGLE_HALF: Record<Severity, number> = { high: 6, medium: 5, low: 4 };

export interface TurnMark {
  t: number;
  x: number;
  width: number;
  model: string;
}

export interface ErrorMark {
  t: number;
  path: string;
  severity: Severity;
  label: string;
}

export interface TimelineLayout {
  width: number;
  height: number;
  strip: { top: number; height: number };
  plot: { top: number; bottom: number; left: number; right: number };
  marks: TurnMark[];
  /** x of the left edge of every turn that switched model, with the models on either side. */
  switches: { t: number; x: number; from: string; to: string }[];
  errors: ErrorMark[];
  costLine: string;
  costArea: string;
  /** Empty when no turn's cost is known: an axis from $0 with nothing on it would read as a cost of $0. */
  costTicks: { y: number; value: number }[];
  /**
   * Where the cost line stops and why, drawn in its lane: at the first turn of unknown cost (x is the left edge of
   * its band; for an episode with no known turn cost, the plot's left edge). Null when every turn's cost is known.
   */
  costGap: { x: number; t: number; label: string } | null;
  turnTicks: { x: number; t: number }[];
  errorY: number;
  axisY: number;
  /** The band of turn t (for hit areas and the current-turn highlight). */
  band(t: number): { x: number; width: number };
}

function trianglePath(cx: number, cy: number, half: number): string {
  const h = half * 1.7;
  return `M${cx},${cy - h / 2}L${cx + half},${cy + h / 2}L${cx - half},${cy + h / 2}Z`;
}

function turnTicks(x: ScaleBand<number>, n: number, width: number): { x: number; t: number }[] {
  if (n === 0) return [];
  const target = Math.max(2, Math.floor(width / 56));
  const step = Math.max(1, [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000].find((s) => n / s <= target) ?? Math.ceil(n / target));
  const ticks: { x: number; t: number }[] = [];
  for (let t = 0; t < n; t += step) ticks.push({ t, x: (x(t) ?? 0) + x.bandwidth() / 2 });
  return ticks;
}

export function timelineLayout(
  turns: readonly Pick<TurnDetail, 't' | 'model' | 'switched' | 'errors' | 'max_severity' | 'cumulative_cost'>[],
  width: number,
): TimelineLayout {
  const n = turns.length;
  const left = MARGIN.left;
  const right = Math.max(left + 10, width - MARGIN.right);
  // Gaps between turns: 16% of a step, at most 6 px (few turns), none once a step is under 4 px (hundreds).
  const step = n === 0 ? 0 : (right - left) / n;
  const x = scaleBand<number>()
    .domain(turns.map((_, i) => i))
    .range([left, right])
    .paddingInner(step < 4 ? 0 : Math.min(0.16, 6 / step));
  const bw = x.bandwidth();
  const maxCost = turns.reduce((m, t) => Math.max(m, t.cumulative_cost ?? 0), 0);
  const y = scaleLinear()
    .domain([0, maxCost > 0 ? maxCost : 1])
    .range([LANES.costBottom, LANES.costTop])
    .nice(3);

  const band = (t: number) => ({ x: x(t) ?? left, width: bw });
  const marks = turns.map((turn, i) => ({ t: i, x: band(i).x, width: Math.max(bw, 0.5), model: turn.model }));

  const switches = turns.flatMap((turn, i) =>
    turn.switched && i > 0 ? [{ t: i, x: band(i).x, from: turns[i - 1]?.model ?? '', to: turn.model }] : [],
  );

  const errors: ErrorMark[] = turns.flatMap((turn, i) => {
    const severity = turn.max_severity ?? (turn.errors.length > 0 ? (turn.errors[0]?.severity ?? 'low') : null);
    if (!severity) return [];
    const cx = band(i).x + bw / 2;
    const half = Math.min(TRIANGLE_HALF[severity], Math.max(2.5, bw / 2 + 1));
    return [{ t: i, severity, path: trianglePath(cx, LANES.errorY, half), label: turn.errors.map((e) => `${e.type} (${e.severity})`).join(', ') }];
  });

  // Cost accrues during a turn: the line goes from (start of turn 0, 0) through (end of turn t, cumulative at t).
  // It stops at the first turn of unknown cost: a flat line after it would show unknown as $0.
  const firstUnknown = turns.findIndex((t) => t.cumulative_cost === null);
  const priced = firstUnknown === -1 ? turns : turns.slice(0, firstUnknown);
  const points: [number, number][] =
    priced.length === 0 ? [] : [[band(0).x, 0], ...priced.map((turn, i): [number, number] => [band(i).x + bw, turn.cumulative_cost ?? 0])];
  const costLine = line<[number, number]>()
    .x((p) => p[0])
    .y((p) => y(p[1]))(points) ?? '';
  const costArea =
    area<[number, number]>()
      .x((p) => p[0])
      .y0(LANES.costBottom)
      .y1((p) => y(p[1]))(points) ?? '';

  return {
    width,
    height: TIMELINE_HEIGHT,
    strip: { top: LANES.stripTop, height: LANES.stripBottom - LANES.stripTop },
    plot: { top: LANES.costTop, bottom: LANES.costBottom, left, right },
    marks,
    switches,
    errors,
    costLine,
    costArea,
    costTicks: priced.length === 0 ? [] : y.ticks(3).map((value) => ({ value, y: y(value) })),
    costGap:
      firstUnknown === -1
        ? null
        : {
            x: band(firstUnknown).x,
            t: turns[firstUnknown]?.t ?? firstUnknown,
            label: firstUnknown === 0 ? 'cost per turn unknown' : `cost unknown from turn ${turns[firstUnknown]?.t ?? firstUnknown}`,
          },
    turnTicks: turnTicks(x, n, right - left),
    errorY: LANES.errorY,
    axisY: LANES.axisY,
    band,
  };
}
