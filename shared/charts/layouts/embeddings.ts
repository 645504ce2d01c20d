/**
 * `embeddings` (MTRouter Fig. 7; DESIGN §8), two t-SNE maps side by side (stacked when narrow). Left, the
 * estimator's model embeddings z_a, one labelled point per model filled by price tier (an ordered ramp:
 * pale budget to deep premium); a click lists the model's episodes.
 * Right, the sampled turn histories, coloured by the model the log chose or by the episode's outcome
 * (failure to success on the diverging scale); a click opens the turn. t-SNE axes have no units, so the
 * panels are framed without ticks.
 */
import { scaleLinear } from 'd3';
import type { EmbeddingsResult } from '../../analysisResults.ts';
import { colorBar, legend, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { distinctModelColors } from '../palette.ts';
import { fmtCount, fmtN, fmtUsd } from '../format.ts';
import { placeLabel, type Box } from '../marks.ts';
import type { Mark, Scene, TextMark } from '../scene.ts';
import { textWidth } from '../text.ts';
import type { ChartTheme } from '../theme.ts';
import { scene } from './common.ts';

const TIERS = ['budget', 'mid', 'premium'] as const;

/** Price tiers as an ordered blue ramp (pale = budget, deep = premium), readable on either background. */
const TIER_COLORS: Record<ChartTheme['name'], readonly string[]> = {
  light: ['#9ecae1', '#4292c6', '#08306b'],
  dark: ['#deebf7', '#6baed6', '#2166ac'],
};

export function tierColor(tier: string | null, theme: ChartTheme): string {
  const i = TIERS.indexOf((tier ?? '') as (typeof TIERS)[number]);
  return i < 0 ? theme.muted : (TIER_COLORS[theme.name][i] as string);
}

/** `text` broken into lines no wider than `maxWidth` (at spaces), as text marks from (x, y) down. */
function wrapped(text: string, x: number, y: number, maxWidth: number, theme: ChartTheme, anchor: TextMark['anchor'] = 'middle', role = 'empty'): TextMark[] {
  const fs = theme.fontSize + 1;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, fs) > maxWidth) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines.map((l, i) => ({ type: 'text', x, y: y + i * (fs + 5), text: l, fontSize: fs, anchor, baseline: 'hanging', fill: theme.mutedText, role }));
}

interface Panel {
  x: number;
  y: number;
  size: number;
}

function frame(p: Panel, theme: ChartTheme): Mark {
  return { type: 'rect', x: p.x, y: p.y, width: p.size, height: p.size, stroke: theme.grid, strokeWidth: 1, role: 'frame' };
}

/** Scales that fit the points of a map (unit-RMS t-SNE output) into a square panel with a margin. */
function fit(points: readonly { x: number; y: number }[], p: Panel, pad: number) {
  const xs = points.map((q) => q.x);
  const ys = points.map((q) => q.y);
  const ext = Math.max(1e-9, ...xs.map(Math.abs), ...ys.map(Math.abs));
  return {
    x: scaleLinear().domain([-ext, ext]).range([p.x + pad, p.x + p.size - pad]),
    y: scaleLinear().domain([-ext, ext]).range([p.y + p.size - pad, p.y + pad]),
  };
}

export function embeddingsLayout(result: EmbeddingsResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const marks: Mark[] = [];
  const title = `t-SNE of the model embeddings z_a${result.estimator ? ` of ${result.estimator.name}` : ''} by price tier, and of turn histories by ${result.histories.color === 'model' ? 'chosen model' : 'outcome'}`;
  const side = width >= 640;
  const gap = 32;
  const size = Math.floor(side ? Math.min((width - 24 - gap) / 2, 520) : Math.min(width - 24, 520));
  let top = 8;
  if (result.estimator) {
    const src = result.estimator.source === 'default' ? 'the default estimator shipped in models/ (this database has none of its own)' : `estimator ${result.estimator.name}`;
    marks.push({ type: 'text', x: 12, y: top, text: `z_a from ${src} · seed ${result.seed}`, fontSize: fs, fill: theme.mutedText, baseline: 'hanging', role: 'note' });
    top += fs + 10;
  }

  // Legends of both panels above them, so the squares line up.
  const unknownTier = result.models.points.some((p) => !TIERS.includes((p.tier ?? '') as (typeof TIERS)[number]));
  const tierLeg = legend(
    [
      ...TIERS.map((t) => ({ label: t, color: tierColor(t, theme), shape: 'circle' as const })),
      ...(unknownTier ? [{ label: 'unknown', color: theme.muted, shape: 'circle' as const }] : []),
    ],
    12, top, side ? size : width - 24, theme, 'price tier',
  );
  const hx = side ? 12 + size + gap : 12;
  const models = [...new Set(result.histories.points.map((p) => p.model))].sort();
  const modelColor = distinctModelColors(ctx.modelColor, models);
  let histLeg: { marks: Mark[]; height: number };
  if (result.histories.color === 'model') {
    histLeg = legend(models.map((m) => ({ label: m, color: modelColor(m), shape: 'circle' as const, series: m })), hx, side ? top : 0, side ? size : width - 24, theme, 'chosen model');
  } else {
    const bar = colorBar(theme.diverging, hx, side ? top : 0, Math.min(220, size), ['0 (failed)', '0.5', '1 (solved)'], 'episode outcome (normalised score)', theme);
    histLeg = { marks: [...bar.marks, { type: 'circle', cx: hx + Math.min(220, size) + 24, cy: (side ? top : 0) + fs + 10, r: 4, fill: theme.muted }, { type: 'text', x: hx + Math.min(220, size) + 32, y: (side ? top : 0) + fs + 10, text: 'unknown', fontSize: fs, baseline: 'middle', fill: theme.text }], height: bar.height };
  }

  const left: Panel = { x: 12, y: top + (side ? Math.max(tierLeg.height, histLeg.height) : tierLeg.height) + fs + 14, size };
  marks.push(...tierLeg.marks);
  marks.push(panelTitle(`Model embeddings z_a (${fmtCount(result.models.points.length)} models)`, left.x, left.y - fs - 8, size, theme));
  marks.push(frame(left, theme));
  if (result.models.points.length === 0) {
    marks.push(...wrapped(result.note ?? 'No estimator to read model embeddings from.', left.x + size / 2, left.y + size / 2 - 20, size - 24, theme));
  } else {
    const s = fit(result.models.points, left, 40);
    const placed: Box[] = result.models.points.map((p) => ({ x: s.x(p.x) - 8, y: s.y(p.y) - 8, width: 16, height: 16 }));
    const bounds: Box = { x: left.x + 2, y: left.y + 2, width: size - 4, height: size - 4 };
    for (const p of result.models.points) {
      const lines = [
        `model ${p.model}`,
        `price tier ${p.tier ?? 'unknown'}`,
        `price in ${p.price_in_per_m === null ? 'n/a' : fmtUsd(p.price_in_per_m)} / out ${p.price_out_per_m === null ? 'n/a' : fmtUsd(p.price_out_per_m)} per M tokens`,
        `${fmtN(p.turns, 'turns')} logged on it in the selected runs`,
      ];
      marks.push({
        type: 'circle', cx: s.x(p.x), cy: s.y(p.y), r: 7, fill: tierColor(p.tier, theme), stroke: theme.text, strokeWidth: 0.75, role: 'model-point', series: p.model,
        datum: { lines, link: { kind: 'episodes', models: [p.model], label: `episodes with turns on ${p.model}` } },
      });
    }
    for (const p of result.models.points) {
      const at = placeLabel(p.model, s.x(p.x), s.y(p.y), 9, fs, placed, bounds);
      if (at) marks.push({ type: 'text', x: at.x, y: at.y, text: p.model, fontSize: fs, anchor: at.anchor, baseline: 'middle', fill: theme.text, role: 'point-label' });
    }
  }

  const right: Panel = side ? { x: hx, y: left.y, size } : { x: 12, y: left.y + size + 24 + histLeg.height + fs + 14, size };
  if (!side) {
    const dy = left.y + size + 24;
    for (const m of histLeg.marks) shift(m, dy);
  }
  marks.push(...histLeg.marks);
  const h = result.histories;
  marks.push(panelTitle(`Turn histories (${fmtCount(h.points.length)} of ${fmtCount(h.sketched)} sketched turns)`, right.x, right.y - fs - 8, size, theme));
  marks.push(frame(right, theme));
  if (h.points.length === 0) {
    const why = h.sketched === 0 ? (result.note?.match(/No turn history[^]*$/)?.[0] ?? 'No turn of the selected runs is sketched yet: score them first.') : 'The sample size is 0: only the models are mapped.';
    marks.push(...wrapped(why, right.x + size / 2, right.y + size / 2 - 20, size - 24, theme));
  } else {
    const s = fit(h.points, right, 10);
    const r = h.points.length > 1000 ? 2 : 2.6;
    for (const p of h.points) {
      const fill = h.color === 'model' ? modelColor(p.model) : p.outcome === null ? theme.muted : theme.diverging(p.outcome);
      const outcome = p.outcome === null ? 'outcome unknown' : `outcome ${p.outcome.toFixed(3)}${p.success === null ? '' : p.success ? ' (solved)' : ' (failed)'}`;
      marks.push({
        type: 'circle', cx: s.x(p.x), cy: s.y(p.y), r, fill, opacity: 0.85, role: 'history-point', ...(h.color === 'model' ? { series: p.model } : {}),
        datum: { lines: [`episode ${p.episode} (run ${p.run}), turn ${p.turn}`, `chosen model ${p.model}`, outcome], link: { kind: 'turn', episodeId: p.episode_id, turn: p.turn } },
      });
    }
  }
  const bottom = right.y + size + 12;
  const note = wrapped('Distances in a t-SNE map are local: near points are similar, far ones need not be as far apart as drawn.', 12, bottom, width - 24, theme, 'start', 'note');
  marks.push(...note);
  return scene(ctx, bottom + note.length * (fs + 6) + 10, title, marks);
}

function shift(m: Mark, dy: number): void {
  switch (m.type) {
    case 'rect':
    case 'text':
      m.y += dy;
      break;
    case 'circle':
      m.cy += dy;
      break;
    case 'line':
      m.y1 += dy;
      m.y2 += dy;
      break;
    case 'group':
      m.y = (m.y ?? 0) + dy;
      break;
    case 'path':
      break;
  }
}
