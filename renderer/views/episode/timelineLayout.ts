/**
 * Geometry of the turn timeline, computed with d3 scales and shapes and no DOM (STYLE §8): the component only
 * draws what this returns. Lanes, top to bottom: error markers (one triangle per turn with an error, sized and
 * coloured by its max severity), the cumulative-cost line over its area, and the model strip (one band per
 * turn coloured by model) with a tick at every model switch. Turn-index labels sit below the strip.
 *
 * An episode with more turns than the plot has pixels (agents that ran for days: a million turns) is drawn by pixel
 * column instead: each column the model of most of its turns (neighbours of one model merged into one band), its worst
 * error, its first switch (no ticks when they would stand closer than 8 px on average: the strip's colours show those
 * switches and the header counts them), and the cost where it ends. The drawing then has a few thousand elements whatever
 * the length; one element per turn made 3 million of them and a second per keypress (issue 38).
 */
import { area, line, scaleLinear } from 'd3';
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
  /** The first turn the band covers (its only one unless the timeline is drawn by pixel column). */
  t: number;
  x: number;
  width: number;
  model: string;
}

/** A click target: turns `t`…`last` (one turn, or a pixel column's turns). */
export interface TurnHit {
  t: number;
  last: number;
  x: number;
  width: number;
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
  /** Turns per pixel column: 1 when every turn has its own band. */
  turnsPerColumn: number;
  marks: TurnMark[];
  hits: TurnHit[];
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

type LayoutTurn = Pick<TurnDetail, 't' | 'model' | 'switched' | 'errors' | 'max_severity' | 'cumulative_cost'>;

const SEVERITY_RANK: Record<Severity, number> = { low: 1, medium: 2, high: 3 };

function trianglePath(cx: number, cy: number, half: number): string {
  const h = half * 1.7;
  return `M${cx},${cy - h / 2}L${cx + half},${cy + h / 2}L${cx - half},${cy + h / 2}Z`;
}

function turnTicks(band: (t: number) => { x: number; width: number }, n: number, width: number): { x: number; t: number }[] {
  if (n === 0) return [];
  const target = Math.max(2, Math.floor(width / 56));
  const step = Math.max(1, [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000].find((s) => n / s <= target) ?? niceStep(n / target));
  const ticks: { x: number; t: number }[] = [];
  for (let t = 0; t < n; t += step) {
    const b = band(t);
    ticks.push({ t, x: b.x + b.width / 2 });
  }
  return ticks;
}

/** 1, 2 or 5 times a power of ten, at least `raw`: tick steps a reader can add up (2,000 rather than 1,873). */
function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
}

function worstSeverity(turn: LayoutTurn): Severity | null {
  return turn.max_severity ?? (turn.errors.length > 0 ? (turn.errors[0]?.severity ?? 'low') : null);
}

/** Turn i's pixel column, and a column's first turn: columns hold ⌈n / columns⌉ or ⌊n / columns⌋ turns. */
function columnsOf(n: number, columns: number) {
  return {
    of: (i: number) => Math.floor((i * columns) / n),
    first: (c: number) => Math.ceil((c * n) / columns),
  };
}

export function timelineLayout(turns: readonly LayoutTurn[], width: number): TimelineLayout {
  const n = turns.length;
  const left = MARGIN.left;
  const right = Math.max(left + 10, width - MARGIN.right);
  const columns = Math.max(1, Math.floor(right - left));
  const binned = n > columns;
  // Gaps between turns: 16% of a step, at most 6 px (few turns), none once a step is under 4 px (hundreds).
  const step = n === 0 ? 0 : binned ? (right - left) / columns : (right - left) / n;
  const padding = step < 4 ? 0 : Math.min(0.16, 6 / step);
  // As d3's band scale places n bands with that inner padding across the plot (outer padding 0).
  const unit = binned ? step : n === 0 ? 0 : (right - left) / Math.max(1, n - padding);
  const bw = unit * (1 - padding);
  // A lone turn's band is centred, as the band scale aligns what its bands leave of the range.
  const offset = binned || n === 0 ? 0 : (right - left - unit * (n - padding)) / 2;
  const column = columnsOf(n, columns);
  const band = binned
    ? (t: number) => ({ x: left + column.of(Math.min(Math.max(t, 0), n - 1)) * step, width: step })
    : (t: number) => ({ x: left + offset + t * unit, width: bw });

  const maxCost = turns.reduce((m, t) => Math.max(m, t.cumulative_cost ?? 0), 0);
  const y = scaleLinear()
    .domain([0, maxCost > 0 ? maxCost : 1])
    .range([LANES.costBottom, LANES.costTop])
    .nice(3);

  const firstUnknown = turns.findIndex((t) => t.cumulative_cost === null);
  const pricedCount = firstUnknown === -1 ? n : firstUnknown;
  const drawn = binned ? byColumn(turns, columns, step, left, pricedCount) : byTurn(turns, band, bw, pricedCount);

  // Cost accrues during a turn: the line goes from (start of turn 0, 0) through (end of turn t, cumulative at t).
  // It stops at the first turn of unknown cost: a flat line after it would show unknown as $0.
  const points: [number, number][] = pricedCount === 0 ? [] : [[band(0).x, 0], ...drawn.costPoints];
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
    turnsPerColumn: binned ? n / columns : 1,
    marks: drawn.marks,
    hits: drawn.hits,
    switches: drawn.switches,
    errors: drawn.errors,
    costLine,
    costArea,
    costTicks: pricedCount === 0 ? [] : y.ticks(3).map((value) => ({ value, y: y(value) })),
    costGap:
      firstUnknown === -1
        ? null
        : {
            x: band(firstUnknown).x,
            t: turns[firstUnknown]?.t ?? firstUnknown,
            label: firstUnknown === 0 ? 'cost per turn unknown' : `cost unknown from turn ${turns[firstUnknown]?.t ?? firstUnknown}`,
          },
    turnTicks: turnTicks(band, n, right - left),
    errorY: LANES.errorY,
    axisY: LANES.axisY,
    band,
  };
}

type Drawn = Pick<TimelineLayout, 'marks' | 'hits' | 'switches' | 'errors'> & { costPoints: [number, number][] };

/** One band, hit area and marks per turn. */
function byTurn(turns: readonly LayoutTurn[], band: (t: number) => { x: number; width: number }, bw: number, pricedCount: number): Drawn {
  const marks = turns.map((turn, i) => ({ t: i, x: band(i).x, width: Math.max(bw, 0.5), model: turn.model }));
  const hits = marks.map((m) => ({ t: m.t, last: m.t, x: m.x, width: Math.max(m.width, 1) }));
  const switches = turns.flatMap((turn, i) =>
    turn.switched && i > 0 ? [{ t: i, x: band(i).x, from: turns[i - 1]?.model ?? '', to: turn.model }] : [],
  );
  const errors: ErrorMark[] = turns.flatMap((turn, i) => {
    const severity = worstSeverity(turn);
    if (!severity) return [];
    const cx = band(i).x + bw / 2;
    const half = Math.min(TRIANGLE_HALF[severity], Math.max(2.5, bw / 2 + 1));
    return [{ t: i, severity, path: trianglePath(cx, LANES.errorY, half), label: turn.errors.map((e) => `${e.type} (${e.severity})`).join(', ') }];
  });
  const costPoints = turns.slice(0, pricedCount).map((turn, i): [number, number] => [band(i).x + bw, turn.cumulative_cost ?? 0]);
  return { marks, hits, switches, errors, costPoints };
}

/** One pixel column per step: the most frequent model (ties to the one seen first), the worst error, the first switch. */
function byColumn(turns: readonly LayoutTurn[], columns: number, step: number, left: number, pricedCount: number): Drawn {
  const n = turns.length;
  const column = columnsOf(n, columns);
  const marks: TurnMark[] = [];
  const hits: TurnHit[] = [];
  const switches: Drawn['switches'] = [];
  const errors: ErrorMark[] = [];
  const costPoints: [number, number][] = [];
  for (let c = 0; c < columns; c++) {
    const first = column.first(c);
    const last = Math.min(n, column.first(c + 1)) - 1;
    if (last < first) continue;
    const x = left + c * step;
    const counts = new Map<string, number>();
    let model = turns[first]?.model ?? '';
    let best = 0;
    let worst: Severity | null = null;
    let worstAt = first;
    let errorCount = 0;
    let switchAt = -1;
    for (let i = first; i <= last; i++) {
      const turn = turns[i] as LayoutTurn;
      const k = (counts.get(turn.model) ?? 0) + 1;
      counts.set(turn.model, k);
      if (k > best) {
        best = k;
        model = turn.model;
      }
      const severity = worstSeverity(turn);
      if (severity) {
        errorCount++;
        if (!worst || SEVERITY_RANK[severity] > SEVERITY_RANK[worst]) {
          worst = severity;
          worstAt = i;
        }
      }
      if (switchAt === -1 && turn.switched && i > 0) switchAt = i;
    }
    hits.push({ t: first, last, x, width: step });
    const previous = marks[marks.length - 1];
    if (previous && previous.model === model) previous.width = x + step - previous.x;
    else marks.push({ t: first, x, width: step, model });
    if (switchAt !== -1) switches.push({ t: switchAt, x, from: turns[switchAt - 1]?.model ?? '', to: turns[switchAt]?.model ?? '' });
    if (worst) {
      const half = Math.min(TRIANGLE_HALF[worst], 3.5);
      errors.push({ t: worstAt, severity: worst, path: trianglePath(x + step / 2, LANES.errorY, half), label: `${errorCount} turn(s) with errors, the worst ${worst}` });
    }
    if (last < pricedCount) costPoints.push([x + step, turns[last]?.cumulative_cost ?? 0]);
    else if (first < pricedCount) costPoints.push([x + step * ((pricedCount - first) / (last - first + 1)), turns[pricedCount - 1]?.cumulative_cost ?? 0]);
  }
  // Ticks closer than 8 px on average would hatch the strip over: its colours show those switches, the header counts them.
  return { marks, hits, switches: switches.length * 8 <= columns ? switches : [], errors, costPoints };
}
