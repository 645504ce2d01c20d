/**
 * `confusion` (critique-and-route controller): routing confusion — rows are task difficulty, columns the
 * routed model, colour and text the share of that difficulty's calls — beside verification confusion, a
 * 2×2 of verdict (stop / continue) × whether the draft was correct, with counts and row shares. One pair of
 * panels per run when runs are compared.
 */
import { scaleBand } from 'd3';
import type { ConfusionResult } from '../../analysisResults.ts';
import { colorBar, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import { distinctModelColors } from '../palette.ts';
import { fmtCount, fmtNum, fmtPct } from '../format.ts';
import { textOn } from '../marks.ts';
import type { Mark, Scene } from '../scene.ts';
import { fitText, textWidth } from '../text.ts';
import { emptyNote, leftOutNote, scene } from './common.ts';
import { ownValue } from '../../nameKeyed.ts';

type Tables = Pick<ConfusionResult, 'routing' | 'verification'>;

export function confusionLayout(result: ConfusionResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const marks: Mark[] = [];
  const title = 'Routing confusion (difficulty × routed model) and verification confusion (verdict × correct)';
  const panels: (Tables & { run: string | null })[] = result.by_run && result.by_run.length > 1 ? result.by_run : [{ run: null, ...result }];
  const bar = colorBar(theme.sequential, 12, 8, Math.min(200, width - 24), ['0%', '50%', '100%'], 'share of the row', theme);
  marks.push(...bar.marks);
  let y = 8 + bar.height + 12;
  const notDrawn = leftOutNote(ctx, result.by_run_omitted ?? [], 12, y, width - 24);
  marks.push(...notDrawn.marks);
  y += notDrawn.height + (notDrawn.height ? 6 : 0);
  const models = [...new Set(panels.flatMap((p) => p.routing.flatMap((r) => Object.keys(r.shares))))].sort((a, b) => a.localeCompare(b));
  const modelColor = distinctModelColors(ctx.modelColor, models);
  const empty = panels.every((p) => p.routing.length === 0 && Object.values(p.verification).every((k) => k === 0));
  if (empty) {
    marks.push(emptyNote(ctx, width / 2, y + 50, 'No difficulty labels or verdicts in the selected runs.'));
    return scene(ctx, y + 100, title, marks);
  }
  const verifyW = Math.min(260, width * 0.34);
  const routeW = width - 24 - verifyW - 32;
  // Each row says how many it rests on: a share of 3 calls reads differently from one of 300.
  const rowLabel = (row: Tables['routing'][number]) => `difficulty ${fmtNum(row.difficulty)} · n = ${fmtCount(row.n)}`;
  const rowLabelW = Math.max(textWidth('difficulty 0.00', fs), ...panels.flatMap((p) => p.routing.map((r) => textWidth(rowLabel(r), fs)))) + 8;
  const cellH = 24;
  for (const p of panels) {
    if (p.run !== null) {
      marks.push(panelTitle(`run: ${p.run}`, 12, y, width - 24, theme));
      y += fs + 10;
    }
    const top = y;
    // Routing confusion.
    const left = 12 + rowLabelW;
    const x = scaleBand<string>().domain(models).range([left, 12 + routeW]).paddingInner(0.05);
    marks.push({ type: 'text', x: left, y: top, text: 'routed model →', fontSize: fs, baseline: 'hanging', fill: theme.mutedText });
    let ry = top + fs + 6;
    for (const m of models) {
      marks.push({ type: 'rect', x: (x(m) as number) + x.bandwidth() / 2 - 5, y: ry, width: 10, height: 10, fill: modelColor(m), role: 'model-swatch', series: m });
    }
    ry += 14;
    for (const row of p.routing) {
      marks.push({ type: 'text', x: left - 6, y: ry + cellH / 2, text: rowLabel(row), fontSize: fs, anchor: 'end', baseline: 'middle', fill: theme.text, role: 'row-label' });
      for (const m of models) {
        const share = ownValue(row.shares, m) ?? 0;
        const fill = theme.sequential(share);
        marks.push({
          type: 'rect', x: x(m) as number, y: ry, width: x.bandwidth(), height: cellH - 2, fill, role: 'cell',
          datum: {
            lines: [`difficulty ${fmtNum(row.difficulty)} → ${m}${p.run ? ` · run ${p.run}` : ''}`, `${fmtPct(share)} of this difficulty's calls`, `${fmtCount(Math.round(share * row.n))} of n = ${fmtCount(row.n)} calls`],
            link: { kind: 'episodes', runs: p.run ? [p.run] : undefined, models: [m], label: `episodes using ${m}` },
          },
        });
        if (x.bandwidth() > textWidth('100%', fs - 1) + 4) {
          marks.push({ type: 'text', x: (x(m) as number) + x.bandwidth() / 2, y: ry + (cellH - 2) / 2, text: fmtPct(share, 0), fontSize: fs - 1, anchor: 'middle', baseline: 'middle', fill: textOn(fill), role: 'cell-value' });
        }
      }
      ry += cellH;
    }
    if (p.routing.length === 0) {
      marks.push({ type: 'text', x: left, y: ry + 12, text: 'no difficulty labels', fontSize: fs, baseline: 'middle', fill: theme.mutedText });
      ry += 24;
    }
    // Model names under their columns: straight when they fit, on two staggered lines when each fits in two
    // columns, slanted otherwise (cut at 150 px; the full name is in the cells' tooltips).
    const widest = Math.max(...models.map((m) => textWidth(m, fs)));
    const layout = widest <= x.step() - 4 ? 'straight' : widest <= 2 * x.step() - 8 ? 'staggered' : 'slanted';
    models.forEach((m, i) => {
      const cxm = (x(m) as number) + x.bandwidth() / 2;
      if (layout === 'slanted') {
        marks.push({ type: 'text', x: cxm, y: ry + 4, text: fitText(m, fs, 150), fontSize: fs, anchor: 'end', baseline: 'hanging', rotate: -35, fill: theme.mutedText, role: 'col-label' });
        return;
      }
      const ly = ry + 4 + (layout === 'staggered' && i % 2 === 1 ? fs + 4 : 0);
      marks.push({ type: 'text', x: cxm, y: ly, text: m, fontSize: fs, anchor: 'middle', baseline: 'hanging', fill: theme.mutedText, role: 'col-label' });
    });
    const labelsH = layout === 'straight' ? 0 : layout === 'staggered' ? fs + 4 : Math.min(150, widest) * 0.6;
    const routeBottom = ry + labelsH + fs + 8;

    // Verification confusion.
    const v = p.verification;
    const vx = 12 + routeW + 32;
    const verdictLabel = (verdict: 'stop' | 'continue') => `${verdict} · n = ${fmtCount(v[`${verdict}_correct`] + v[`${verdict}_incorrect`])}`;
    const labW = Math.max(textWidth(verdictLabel('stop'), fs), textWidth(verdictLabel('continue'), fs)) + 8;
    const cw = (verifyW - labW) / 2;
    marks.push({ type: 'text', x: vx + labW, y: top, text: 'draft was →', fontSize: fs, baseline: 'hanging', fill: theme.mutedText });
    const heads = ['correct', 'incorrect'] as const;
    heads.forEach((h, i) => marks.push({ type: 'text', x: vx + labW + cw * i + cw / 2, y: top + fs + 6, text: h, fontSize: fs, anchor: 'middle', baseline: 'hanging', fill: theme.text }));
    let vy = top + 2 * fs + 14;
    for (const verdict of ['stop', 'continue'] as const) {
      const c = v[`${verdict}_correct`];
      const ic = v[`${verdict}_incorrect`];
      const n = c + ic;
      marks.push({ type: 'text', x: vx + labW - 6, y: vy + 22, text: verdictLabel(verdict), fontSize: fs, anchor: 'end', baseline: 'middle', fill: theme.text, role: 'row-label' });
      [c, ic].forEach((k, i) => {
        const share = n ? k / n : 0;
        const fill = theme.sequential(share);
        const cx = vx + labW + cw * i;
        marks.push({
          type: 'rect', x: cx, y: vy, width: cw - 2, height: 44, fill, role: 'cell',
          datum: { lines: [`verdict ${verdict}, draft ${heads[i]}${p.run ? ` · run ${p.run}` : ''}`, `${fmtCount(k)} turns (${fmtPct(n ? share : null)} of the ${verdict} verdicts)`, `n = ${fmtCount(n)} ${verdict} verdicts`] },
        });
        marks.push({ type: 'text', x: cx + (cw - 2) / 2, y: vy + 16, text: fmtCount(k), fontSize: fs + 1, weight: 'bold', anchor: 'middle', baseline: 'middle', fill: textOn(fill) });
        marks.push({ type: 'text', x: cx + (cw - 2) / 2, y: vy + 32, text: n ? fmtPct(share, 0) : '–', fontSize: fs - 1, anchor: 'middle', baseline: 'middle', fill: textOn(fill) });
      });
      vy += 46;
    }
    marks.push({ type: 'text', x: vx + labW - 6, y: top + 2 * fs + 6, text: 'verdict ↓', fontSize: fs, anchor: 'end', baseline: 'middle', fill: theme.mutedText });
    y = Math.max(routeBottom, vy) + 16;
  }
  return scene(ctx, y, title, marks);
}
