/**
 * `plan-dag` (Uno-Orchestra). With an episode: each planned round's DAG of subtasks laid out in layers by
 * dagre (dependencies point down; left to right when a round is too wide), rounds side by side, wrapping; a node shows the primitive and the model
 * (outlined in the model's colour, dashed when the subtask failed) and opens the turn that planned it.
 * Without one: per run, the behaviour-mode shares as a stacked bar, then the model × primitive usage over
 * the selected runs as a heatmap of subtask counts.
 */
import { Graph, layout as dagreLayout } from '@dagrejs/dagre';
import { line, scaleBand } from 'd3';
import { isPlanDagEpisode, type PlanDagEpisodeResult, type PlanDagResult, type PlanDagSummaryResult, type PlanRound } from '../../analysisResults.ts';
import { colorBar, legend, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { distinctModelColors } from '../palette.ts';
import { fmtCount, fmtNum, fmtPct } from '../format.ts';
import { textOn } from '../marks.ts';
import type { Mark, Scene } from '../scene.ts';
import { fitText, textWidth, wrapText } from '../text.ts';
import { emptyNote, scene } from './common.ts';
import { ownValue } from '../../nameKeyed.ts';

/** Behaviour modes in Paul Tol's muted scheme (distinct from model and run colours); 'none' uses the theme's muted. */
export const MODE_COLORS: Record<string, string> = { lazy: '#88CCEE', oneshot: '#44AA99', continuation: '#DDCC77', decomp_repair: '#CC6677' };

const NODE_W = 132;
/** Nodes grow to their labels up to this; only a longer name (a hostile one) is shortened, in full on hover. */
const NODE_MAX_W = 280;
const NODE_H = 40;
/** Left of a node's text: its model band and a gap. */
const NODE_TEXT_X = 12;

type PlanNode = PlanDagEpisodeResult['rounds'][number]['nodes'][number];

const isFailed = (n: PlanNode): boolean => n.status !== null && !['ok', 'done', 'success', 'completed'].includes(n.status.toLowerCase());
const nodeTitle = (n: PlanNode): string => n.primitive ?? n.id;
const nodeSubtitle = (n: PlanNode): string => `${n.model ?? '?'}${isFailed(n) ? ` · ${n.status}` : ''}`;

/** A node wide enough for its primitive (bold) and its model line, so neither is cut. */
export function planNodeWidth(n: PlanNode, fontSize: number): number {
  const text = Math.max(textWidth(nodeTitle(n), fontSize, true), textWidth(nodeSubtitle(n), fontSize - 1));
  return Math.min(NODE_MAX_W, Math.max(NODE_W, Math.ceil(text) + NODE_TEXT_X + 8));
}

interface RoundGeometry {
  width: number;
  height: number;
  marks: Mark[];
}

function roundGeometry(round: PlanDagEpisodeResult['rounds'][number], episode: string, run: string | undefined, ctx: FigureContext, rankdir: 'TB' | 'LR' = 'TB'): RoundGeometry {
  const { theme } = ctx;
  const fs = theme.fontSize;
  const g = new Graph();
  g.setGraph({ rankdir, nodesep: 18, ranksep: 30, marginx: 4, marginy: 4 });
  g.setDefaultEdgeLabel(() => ({}));
  const widths = new Map(round.nodes.map((n) => [n.id, planNodeWidth(n, fs)]));
  for (const n of round.nodes) g.setNode(n.id, { width: widths.get(n.id) as number, height: NODE_H });
  const known = new Set(round.nodes.map((n) => n.id));
  for (const [src, dst] of round.edges) if (known.has(src) && known.has(dst)) g.setEdge(src, dst);
  dagreLayout(g);
  const marks: Mark[] = [];
  for (const e of g.edges()) {
    const pts = (g.edge(e).points ?? []) as { x: number; y: number }[];
    const d = line<{ x: number; y: number }>().x((p) => p.x).y((p) => p.y)(pts);
    if (d) marks.push({ type: 'path', d, stroke: theme.axis, strokeWidth: 1.3, role: 'edge' });
    const a = pts[pts.length - 2];
    const b = pts[pts.length - 1];
    if (a && b) {
      // Arrowhead at the dependent subtask.
      const ang = Math.atan2(b.y - a.y, b.x - a.x);
      const p = (da: number) => `${b.x - 7 * Math.cos(ang + da)},${b.y - 7 * Math.sin(ang + da)}`;
      marks.push({ type: 'path', d: `M${b.x},${b.y}L${p(0.45)}L${p(-0.45)}Z`, fill: theme.axis, role: 'arrow' });
    }
  }
  for (const n of round.nodes) {
    const pos = g.node(n.id) as { x: number; y: number };
    const w = widths.get(n.id) as number;
    const x = pos.x - w / 2;
    const y = pos.y - NODE_H / 2;
    const color = n.model ? ctx.modelColor(n.model) : theme.muted;
    const failed = isFailed(n);
    const lines = [
      `subtask ${n.id} · round ${round.round}${round.turn != null ? ` (turn ${round.turn})` : ''}`,
      `primitive ${n.primitive ?? 'n/a'} on ${n.model ?? 'unknown model'}`,
      `status ${n.status ?? 'n/a'}`,
      `depends on ${round.edges.filter(([, dst]) => dst === n.id).map(([src]) => src).join(', ') || 'nothing'}`,
    ];
    marks.push({
      type: 'rect', x, y, width: w, height: NODE_H, rx: 5, fill: theme.background, stroke: failed ? theme.status.failed : color,
      strokeWidth: 2, dash: failed ? '4 3' : undefined, role: 'node',
      datum: { lines, link: { kind: 'episode-ref', ext_id: episode, run, turn: round.turn ?? undefined } },
    });
    marks.push({ type: 'rect', x: x + 1, y: y + 1, width: 6, height: NODE_H - 2, fill: color, role: 'node-band', ...(n.model ? { series: n.model } : {}) });
    const room = w - NODE_TEXT_X - 6;
    marks.push({ type: 'text', x: x + NODE_TEXT_X, y: y + 14, text: fitText(nodeTitle(n), fs, room, true), fontSize: fs, weight: 'bold', baseline: 'middle', fill: theme.text, role: 'node-title' });
    marks.push({ type: 'text', x: x + NODE_TEXT_X, y: y + 29, text: fitText(nodeSubtitle(n), fs - 1, room), fontSize: fs - 1, baseline: 'middle', fill: failed ? theme.status.failed : theme.mutedText, role: 'node-model' });
  }
  const graph = g.graph() as { width?: number; height?: number };
  return { width: Math.max(graph.width ?? 0, NODE_W + 8), height: graph.height ?? NODE_H + 8, marks };
}

function episodeLayout(result: PlanDagEpisodeResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const marks: Mark[] = [];
  // On more lines when one would cut it (a narrow window, a long episode id).
  const header = wrapText(
    `episode ${result.episode}${result.run ? ` (run ${result.run})` : ''} · behaviour mode: ${result.mode ?? 'none'} · ${result.rounds.length} planned round${result.rounds.length === 1 ? '' : 's'}`,
    fs + 1, width - 24, 3,
  );
  header.forEach((text, i) => marks.push({ type: 'text', x: 12, y: 8 + i * (fs + 5), text, fontSize: fs + 1, baseline: 'hanging', fill: theme.text, role: 'header' }));
  const headerH = header.length * (fs + 5) - 4;
  const models = [...new Set(result.rounds.flatMap((r) => r.nodes.map((n) => n.model ?? 'unknown')))].sort((a, b) => a.localeCompare(b));
  // No two models of the figure share a colour, in the legend and in every round's nodes.
  const modelColor = distinctModelColors(ctx.modelColor, models);
  ctx = { ...ctx, modelColor };
  const leg = legend(
    [...models.map((m) => ({ label: m, color: modelColor(m), series: m })), { label: 'failed subtask (dashed)', color: theme.status.failed, shape: 'line' as const, dash: '4 3' }],
    12, 8 + headerH + 10, width - 24, theme, 'model',
  );
  marks.push(...leg.marks);
  let y = 8 + headerH + 10 + leg.height + 12;
  const title = `Plan DAGs of episode ${result.episode}`;
  if (result.rounds.length === 0) {
    marks.push(emptyNote(ctx, width / 2, y + 40, 'This episode planned no subtasks (behaviour mode: lazy).'));
    return scene(ctx, y + 90, title, marks);
  }
  let x = 12;
  let rowH = 0;
  for (const round of result.rounds) {
    // Many parallel subtasks make a wide top-down layout; left to right stacks them instead of cutting them off.
    let geo = roundGeometry(round, result.episode, result.run, ctx);
    if (geo.width > width - 24) geo = roundGeometry(round, result.episode, result.run, ctx, 'LR');
    const w = Math.max(geo.width, textWidth(`round ${round.round} · turn ${round.turn ?? '?'}`, fs + 1, true) + 8);
    if (x > 12 && x + w > width - 12) {
      x = 12;
      y += rowH + 20;
      rowH = 0;
    }
    marks.push(panelTitle(`round ${round.round}${round.turn != null ? ` · turn ${round.turn}` : ''}`, x, y, w, theme));
    marks.push({ type: 'group', x, y: y + fs + 8, marks: geo.marks });
    x += w + 28;
    rowH = Math.max(rowH, geo.height + fs + 8);
  }
  return scene(ctx, y + rowH + 12, title, marks);
}

function summaryLayout(result: PlanDagSummaryResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const marks: Mark[] = [];
  const title = 'Behaviour modes per run and model × primitive usage of plan subtasks';
  const modes = [...Object.keys(MODE_COLORS), 'none'];
  const modeColor = (m: string): string => MODE_COLORS[m] ?? theme.muted;
  const leg = legend(modes.map((m) => ({ label: m === 'none' ? 'no mode' : m, color: modeColor(m) })), 12, 8, width - 24, theme, 'behaviour mode');
  marks.push(...leg.marks);
  let y = 8 + leg.height + 12;
  if (result.runs.length === 0) {
    marks.push(emptyNote(ctx, width / 2, y + 40, 'No plan subtasks in the selected runs (import Uno-style logs).'));
    return scene(ctx, y + 90, title, marks);
  }
  const labelW = Math.min(200, Math.max(...result.runs.map((r) => textWidth(r.run, fs))) + 8);
  const left = 12 + labelW;
  const barW = width - 12 - left;
  for (const r of result.runs) {
    marks.push({ type: 'text', x: left - 6, y: y + 11, text: fitText(r.run, fs, labelW - 6), fontSize: fs, anchor: 'end', baseline: 'middle', fill: theme.text, role: 'row-label' });
    let acc = 0;
    for (const m of modes) {
      const share = ownValue(r.mode_shares, m) ?? 0;
      if (share <= 0) continue;
      const fill = modeColor(m);
      marks.push({
        type: 'rect', x: left + acc * barW, y, width: share * barW, height: 22, fill, stroke: theme.outline, strokeWidth: 0.5, role: 'segment',
        datum: {
          lines: [`run ${r.run}`, `${m === 'none' ? 'no behaviour mode' : m}: ${fmtPct(share)} of episodes`, `${fmtCount(Math.round(share * r.episodes))} of n = ${fmtCount(r.episodes)} episodes`],
          link: { kind: 'episodes', runs: [r.run], label: `episodes of ${r.run}` },
        },
      });
      if (share * barW > textWidth('100%', fs - 1) + 6) {
        marks.push({ type: 'text', x: left + (acc + share / 2) * barW, y: y + 11, text: fmtPct(share, 0), fontSize: fs - 1, anchor: 'middle', baseline: 'middle', fill: textOn(fill) });
      }
      acc += share;
    }
    marks.push({
      type: 'text', x: left, y: y + 28, text: fitText(`${fmtNum(r.mean_rounds_per_planned_episode)} rounds per planned episode · ${fmtNum(r.mean_subtasks_per_round)} subtasks per round · n = ${fmtCount(r.episodes)} episodes`, fs - 1, barW),
      fontSize: fs - 1, baseline: 'hanging', fill: theme.mutedText, role: 'note',
    });
    y += 22 + fs + 16;
  }
  // Model × primitive counts over the selected runs.
  const counts = new Map<string, number>();
  for (const r of result.runs) for (const u of r.model_primitive) {
    const key = `${u.model ?? 'unknown'}\u0000${u.primitive ?? 'none'}`;
    counts.set(key, (counts.get(key) ?? 0) + u.n);
  }
  const models = [...new Set([...counts.keys()].map((k) => k.split('\u0000')[0] as string))].sort((a, b) => a.localeCompare(b));
  const modelColor = distinctModelColors(ctx.modelColor, models);
  const prims = [...new Set([...counts.keys()].map((k) => k.split('\u0000')[1] as string))].sort((a, b) => a.localeCompare(b));
  const maxN = Math.max(1, ...counts.values());
  y += 8;
  marks.push(panelTitle('Subtasks by model and primitive (all selected runs)', 12, y, width - 24, theme));
  y += fs + 10;
  const bar = colorBar(theme.sequential, 12, y, Math.min(200, width - 24), ['0', fmtCount(maxN / 2), fmtCount(maxN)], 'subtasks', theme);
  marks.push(...bar.marks);
  y += bar.height + 8;
  const rowW = Math.min(170, Math.max(...models.map((m) => textWidth(m, fs))) + 22);
  const x = scaleBand<string>().domain(prims).range([12 + rowW, width - 12]).paddingInner(0.05);
  const cellH = 22;
  for (const m of models) {
    marks.push({ type: 'rect', x: 12, y: y + cellH / 2 - 5, width: 10, height: 10, fill: modelColor(m), role: 'model-swatch', series: m });
    marks.push({ type: 'text', x: 26, y: y + cellH / 2, text: fitText(m, fs, rowW - 18), fontSize: fs, baseline: 'middle', fill: theme.text, role: 'row-label' });
    for (const p of prims) {
      const n = counts.get(`${m}\u0000${p}`) ?? 0;
      const fill = n ? theme.sequential(n / maxN) : theme.background;
      marks.push({
        type: 'rect', x: x(p) as number, y, width: x.bandwidth(), height: cellH - 2, fill, stroke: n ? undefined : theme.grid, strokeWidth: n ? undefined : 1, role: 'cell',
        datum: { lines: [`${m} · ${p}`, `n = ${fmtCount(n)} subtasks`], link: { kind: 'episodes', models: [m], runs: result.runs.map((r) => r.run), label: `episodes where ${m} ran subtasks` } },
      });
      if (n && x.bandwidth() > textWidth(fmtCount(n), fs - 1) + 4) {
        marks.push({ type: 'text', x: (x(p) as number) + x.bandwidth() / 2, y: y + (cellH - 2) / 2, text: fmtCount(n), fontSize: fs - 1, anchor: 'middle', baseline: 'middle', fill: textOn(fill) });
      }
    }
    y += cellH;
  }
  const labelLen = Math.max(...prims.map((p) => textWidth(fitText(p, fs, 120), fs)));
  for (const p of prims) {
    marks.push({ type: 'text', x: (x(p) as number) + x.bandwidth() / 2, y: y + 4, text: fitText(p, fs, 120), fontSize: fs, anchor: 'end', baseline: 'hanging', rotate: -40, fill: theme.mutedText, role: 'col-label' });
  }
  y += labelLen * 0.65 + fs + 12;
  return scene(ctx, y, title, marks);
}

/**
 * One planned round on its own, for the inspector's plan turn: the round's DAG top-down, left to right when
 * that is too wide, and as wide as it needs when even that is (the window scrolls it rather than cut it).
 */
export function planRoundLayout(round: PlanRound, episode: string, run: string | undefined, ctx: FigureContext): Scene {
  const pad = 8;
  const models = [...new Set(round.nodes.flatMap((n) => (n.model ? [n.model] : [])))];
  ctx = { ...ctx, modelColor: distinctModelColors(ctx.modelColor, models) };
  let geo = roundGeometry(round, episode, run, ctx);
  if (geo.width > ctx.width - 2 * pad) geo = roundGeometry(round, episode, run, ctx, 'LR');
  const width = Math.max(ctx.width, Math.ceil(geo.width) + 2 * pad);
  const nodes = round.nodes.length;
  return {
    width,
    height: Math.ceil(geo.height) + 2 * pad,
    background: ctx.theme.background,
    fontFamily: ctx.theme.fontFamily,
    title: `Plan of round ${round.round}: ${nodes} subtask${nodes === 1 ? '' : 's'} with their dependencies, primitives and models`,
    marks: [{ type: 'group', x: pad, y: pad, marks: geo.marks }],
  };
}

export function planDagLayout(result: PlanDagResult, ctx: FigureContext): Scene {
  return isPlanDagEpisode(result) ? episodeLayout(result, ctx) : summaryLayout(result, ctx);
}
