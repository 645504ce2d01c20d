/**
 * The policy lab's score/cost figure: one point per replayed policy at (estimated cost per episode, estimated
 * score), whiskers for the 95% CIs of score (vertical) and cost (horizontal) where there are any, and the frontier — the
 * policies no other policy beats on both score and cost — joined by a dashed line. Policies without a
 * score or cost are not drawn; a note under the plot names them and says why.
 */
import { line, scaleLinear } from 'd3';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth } from '../axes.ts';
import { toCsv } from '../csv.ts';
import type { FigureContext } from '../context.ts';
import { fmtUsd, fmtUsdTicks } from '../format.ts';
import { placeLabel, type Box } from '../marks.ts';
import type { Mark, Scene } from '../scene.ts';
import { fitText } from '../text.ts';

export interface FrontierPolicy {
  /** The spec string (unique per figure). */
  policy: string;
  /** Estimated mean cost per episode in USD; null when it could not be estimated. */
  cost: number | null;
  /** Estimated value (normalised score) under the chosen estimator; null when that estimator had nothing. */
  score: number | null;
  /** 95% CI of `score`; null when the estimator gives none. */
  ci: readonly [number, number] | null;
  /** 95% CI of `cost`, drawn as a horizontal whisker; null or omitted when there is none. */
  costCi?: readonly [number, number] | null;
  color: string;
  /** Why the point is missing, when it is (shown in the note). */
  missing?: string;
  /** More hover lines (agreement, switches, n). */
  details?: string[];
}

export interface FrontierInput {
  policies: readonly FrontierPolicy[];
  /** What `score` is, for the axis title and tooltips (e.g. "DR", "direct method"). */
  estimator: string;
}

export interface FrontierPoint {
  policy: string;
  cost: number;
  score: number;
}

/** Policies no other beats: none has a score ≥ and a cost ≤ with one of them strictly better (as analysis `pareto`). */
export function frontierOf(points: readonly FrontierPoint[]): FrontierPoint[] {
  return points
    .filter((p) => !points.some((q) => q !== p && q.score >= p.score && q.cost <= p.cost && (q.score > p.score || q.cost < p.cost)))
    .sort((a, b) => a.cost - b.cost || a.score - b.score);
}

/** The exported figure's title: what is plotted against what, under which estimate. */
export function policyFrontierTitle(estimator: string): string {
  return `Policy lab: estimated score (${estimator}) against cost per episode`;
}

/** The figure's points as CSV: what the exported figure draws, the frontier marked, and why a point is missing. */
export function policyFrontierCsv(input: FrontierInput, runs: readonly string[]): string {
  const drawn = input.policies.flatMap((p) => (p.cost !== null && p.score !== null ? [{ policy: p.policy, cost: p.cost, score: p.score }] : []));
  const onFrontier = new Set(frontierOf(drawn).map((p) => p.policy));
  return toCsv(
    ['policy', 'estimate', 'est_score', 'est_score_lo', 'est_score_hi', 'est_cost_usd', 'est_cost_lo_usd', 'est_cost_hi_usd', 'on_frontier', 'not_drawn_because', 'runs'],
    input.policies.map((p) => [
      p.policy, input.estimator, p.score, p.ci?.[0] ?? null, p.ci?.[1] ?? null, p.cost, p.costCi?.[0] ?? null, p.costCi?.[1] ?? null,
      p.cost !== null && p.score !== null ? onFrontier.has(p.policy) : null, p.missing ?? null, runs.join(' + '),
    ]),
  );
}

const DEFAULT_HEIGHT = 340;
const R = 5;
const CAP = 4;
const MAX_NOTE_LINES = 4;

export function policyFrontierLayout(input: FrontierInput, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const height = ctx.height ?? DEFAULT_HEIGHT;
  const drawn = input.policies.filter((p): p is FrontierPolicy & { cost: number; score: number } => p.cost !== null && p.score !== null);
  const missing = input.policies.filter((p) => p.cost === null || p.score === null);
  // One line per policy left out, so no name is cut off behind another's reason; past MAX_NOTE_LINES, a count.
  const notes = missing.slice(0, MAX_NOTE_LINES).map((p) => `Not drawn: ${p.policy}${p.missing ? ` (${p.missing})` : ''}`);
  if (missing.length > MAX_NOTE_LINES) {
    notes[MAX_NOTE_LINES - 1] = `Not drawn, ${missing.length - MAX_NOTE_LINES + 1} more: ${missing.slice(MAX_NOTE_LINES - 1).map((p) => p.policy).join(', ')}`;
  }
  const noteLines = notes.length;

  const values = drawn.flatMap((p) => (p.ci ? [p.score, p.ci[0], p.ci[1]] : [p.score]));
  const lo = values.length > 0 ? Math.min(...values) : 0;
  const hi = values.length > 0 ? Math.max(...values) : 1;
  const pad = Math.max((hi - lo) * 0.08, 0.02);
  const maxCost = drawn.length > 0 ? Math.max(...drawn.map((p) => Math.max(p.cost, p.costCi?.[1] ?? 0))) : 0;

  const yLabel = `estimated score (${input.estimator})`;
  const xLabel = 'estimated cost per episode ($)';
  const top = 14;
  const bottom = height - bottomAxisHeight({ theme, label: xLabel }) - noteLines * (theme.fontSize + 8);
  const y = scaleLinear().domain([lo - pad, hi + pad]).nice().range([bottom, top]);
  const left = leftAxisWidth(y, { theme, label: yLabel }) + 4;
  const right = width - 16;
  const x = scaleLinear().domain([0, maxCost > 0 ? maxCost * 1.08 : 1]).nice().range([left, right]);

  const marks: Mark[] = [
    ...leftAxis(y, left, { theme, label: yLabel, grid: right - left }),
    ...bottomAxis(x, bottom, { theme, label: xLabel, tickFormat: fmtUsdTicks, grid: bottom - top }),
  ];

  const frontier = frontierOf(drawn);
  const onFrontier = new Set(frontier.map((p) => p.policy));
  if (frontier.length > 1) {
    const d = line<FrontierPoint>().x((p) => x(p.cost)).y((p) => y(p.score))(frontier);
    if (d) marks.push({ type: 'path', d, fill: 'none', stroke: theme.reference, strokeWidth: 1.2, dash: '5 4', opacity: 0.7, role: 'frontier' });
  }

  /** The boxes a point's whiskers (with their caps) take, one pixel wider on each side. */
  const whiskerBoxes = (p: FrontierPolicy & { cost: number; score: number }): Box[] => {
    const px = x(p.cost);
    const py = y(p.score);
    const boxes: Box[] = [];
    if (p.ci) {
      const [top, bottom] = [y(p.ci[1]), y(p.ci[0])];
      boxes.push({ x: px - CAP - 1, y: Math.min(top, bottom) - 1, width: 2 * CAP + 2, height: Math.abs(bottom - top) + 2 });
    }
    if (p.costCi) {
      const [left, right] = [x(p.costCi[0]), x(p.costCi[1])];
      boxes.push({ x: Math.min(left, right) - 1, y: py - CAP - 1, width: Math.abs(right - left) + 2, height: 2 * CAP + 2 });
    }
    return boxes;
  };

  const fmt = (v: number) => v.toFixed(3);
  for (const p of drawn) {
    const px = x(p.cost);
    if (p.ci) {
      const [y0, y1] = [y(p.ci[0]), y(p.ci[1])];
      marks.push({ type: 'line', x1: px, x2: px, y1: y0, y2: y1, stroke: p.color, strokeWidth: 1.5, role: 'ci' });
      marks.push({ type: 'line', x1: px - CAP, x2: px + CAP, y1: y0, y2: y0, stroke: p.color, strokeWidth: 1.5, role: 'ci' });
      marks.push({ type: 'line', x1: px - CAP, x2: px + CAP, y1: y1, y2: y1, stroke: p.color, strokeWidth: 1.5, role: 'ci' });
    }
    if (p.costCi) {
      const py = y(p.score);
      const [x0, x1] = [x(p.costCi[0]), x(p.costCi[1])];
      marks.push({ type: 'line', x1: x0, x2: x1, y1: py, y2: py, stroke: p.color, strokeWidth: 1.5, opacity: 0.6, role: 'cost-ci' });
      marks.push({ type: 'line', x1: x0, x2: x0, y1: py - CAP, y2: py + CAP, stroke: p.color, strokeWidth: 1.5, opacity: 0.6, role: 'cost-ci' });
      marks.push({ type: 'line', x1: x1, x2: x1, y1: py - CAP, y2: py + CAP, stroke: p.color, strokeWidth: 1.5, opacity: 0.6, role: 'cost-ci' });
    }
  }
  // Labels keep off every point and every whisker, not only off each other (two policies often sit close
  // together, and a label across an interval hides where it ends).
  const placed: Box[] = [...drawn.map((p) => ({ x: x(p.cost) - R - 1, y: y(p.score) - R - 1, width: 2 * R + 2, height: 2 * R + 2 })), ...drawn.flatMap(whiskerBoxes)];
  const bounds: Box = { x: left + 2, y: top - 10, width: right - left, height: bottom - top + 8 };
  // Points after whiskers so a whisker never hides a point; labels placed frontier first (they matter most).
  const ordered = [...drawn].sort((a, b) => Number(onFrontier.has(b.policy)) - Number(onFrontier.has(a.policy)));
  for (const p of ordered) {
    const px = x(p.cost);
    const py = y(p.score);
    const lines = [
      p.policy,
      `est. score (${input.estimator}): ${fmt(p.score)}${p.ci ? ` [${fmt(p.ci[0])}, ${fmt(p.ci[1])}] 95% CI` : ''}`,
      `est. cost: ${fmtUsd(p.cost)} per episode${p.costCi ? ` [${fmtUsd(p.costCi[0])}, ${fmtUsd(p.costCi[1])}]` : ''}`,
      ...(p.details ?? []),
      onFrontier.has(p.policy) ? 'on the frontier' : 'dominated by a cheaper, better policy',
    ];
    marks.push({
      type: 'circle', cx: px, cy: py, r: onFrontier.has(p.policy) ? R + 1 : R, fill: p.color, stroke: theme.outline, strokeWidth: 1.5,
      role: 'point', datum: { lines }, series: p.policy,
    });
    const label = fitText(p.policy, theme.fontSize, 160);
    // Beside the point first; where whiskers fill those spots, a step further out, clear of their caps.
    const spot = [R + 1, R + CAP + 4, R + CAP + 14].reduce<ReturnType<typeof placeLabel>>(
      (found, r) => found ?? placeLabel(label, px, py, r, theme.fontSize, placed, bounds),
      null,
    );
    if (spot) {
      marks.push({
        type: 'text', x: spot.x, y: spot.y, text: label, fontSize: theme.fontSize, anchor: spot.anchor, baseline: 'middle',
        fill: theme.text, role: 'point-label',
      });
    }
  }

  if (drawn.length === 0) {
    marks.push({
      type: 'text', x: (left + right) / 2, y: (top + bottom) / 2, text: 'No policy has both an estimated score and cost yet.',
      fontSize: theme.fontSize + 1, anchor: 'middle', baseline: 'middle', fill: theme.mutedText, role: 'empty',
    });
  }
  notes.forEach((text, i) => {
    marks.push({
      type: 'text', x: left, y: height - 6 - (notes.length - 1 - i) * (theme.fontSize + 8), text: fitText(text, theme.fontSize, right - left), fontSize: theme.fontSize,
      fill: theme.mutedText, role: 'note',
    });
  });

  return {
    width,
    height,
    background: theme.background,
    fontFamily: theme.fontFamily,
    title: `Estimated score (${input.estimator}) against estimated cost per episode for ${input.policies.length} policies, with 95% CIs and the frontier`,
    marks,
  };
}
