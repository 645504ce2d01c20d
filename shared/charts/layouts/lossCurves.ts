/**
 * Training curves of the estimator (issue 5: "progress with loss curves in the UI"): training MSE and
 * validation MAE per epoch, in two panels side by side (different units), the best epoch (the weights kept)
 * marked in both. Drawn live from a training job's epochs and from a model card's history alike.
 */
import { max, min, scaleLinear } from 'd3';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, panelTitle } from '../axes.ts';
import type { ChartTheme } from '../theme.ts';
import type { Mark, Scene } from '../scene.ts';

export interface EpochPoint {
  epoch: number;
  trainLoss: number;
  valMae: number;
  bestEpoch: number;
}

export function lossCurvesScene(epochs: readonly EpochPoint[], theme: ChartTheme, width: number, options: { maxEpochs?: number; baselineMae?: number | null } = {}): Scene {
  const fs = theme.fontSize;
  const height = 190;
  const marks: Mark[] = [];
  const gap = 28;
  const panelW = (width - 24 - gap) / 2;
  const top = 8;
  const plotTop = top + fs + 10;
  const bottom = height - bottomAxisHeight({ theme, label: 'x' }) - 2;
  const lastEpoch = Math.max(1, options.maxEpochs ?? 0, max(epochs, (e) => e.epoch) ?? 1);
  const best = epochs.at(-1)?.bestEpoch ?? null;
  const series = [
    { key: 'trainLoss' as const, title: 'training MSE (loss)', label: 'MSE', color: theme.text },
    { key: 'valMae' as const, title: 'validation MAE', label: 'MAE', color: '#0072B2' },
  ];
  series.forEach((s, i) => {
    const x0 = 12 + i * (panelW + gap);
    const values = epochs.map((e) => e[s.key]);
    if (s.key === 'valMae' && options.baselineMae != null) values.push(options.baselineMae);
    const lo = Math.min(0, min(values) ?? 0);
    const hi = max(values) ?? 1;
    const y = scaleLinear().domain([lo, hi > lo ? hi : lo + 1]).nice(4).range([bottom, plotTop]);
    const yOpts = { theme, format: (v: number) => (Math.abs(v) < 0.01 && v !== 0 ? v.toExponential(0) : v.toFixed(3)), ticks: 4 };
    const left = x0 + leftAxisWidth(y, yOpts);
    const x = scaleLinear().domain([1, Math.max(2, lastEpoch)]).range([left, x0 + panelW]);
    marks.push(panelTitle(s.title, left, top, x0 + panelW - left, theme));
    marks.push(...leftAxis(y, left, { ...yOpts, grid: x0 + panelW - left }));
    marks.push(...bottomAxis(x, bottom, { theme, label: 'epoch', ticks: Math.min(lastEpoch, 6), format: (v) => (Number.isInteger(v) ? String(v) : '') }));
    if (s.key === 'valMae' && options.baselineMae != null) {
      marks.push({ type: 'line', x1: left, x2: x0 + panelW, y1: y(options.baselineMae), y2: y(options.baselineMae), stroke: theme.reference, strokeWidth: 1, dash: '4 3', role: 'baseline' });
      marks.push({ type: 'text', x: left + 4, y: y(options.baselineMae) - 4, text: 'constant predictor', fontSize: fs - 1, anchor: 'start', fill: theme.mutedText, role: 'note' });
    }
    if (best !== null && epochs.length > 0) {
      marks.push({ type: 'line', x1: x(best), x2: x(best), y1: plotTop, y2: bottom, stroke: theme.status.ok, strokeWidth: 1, dash: '3 3', role: 'best-epoch' });
    }
    const d = epochs.map((e, k) => `${k ? 'L' : 'M'}${x(e.epoch)},${y(e[s.key])}`).join('');
    if (d) marks.push({ type: 'path', d, stroke: s.color, strokeWidth: 1.8, role: 'curve' });
    for (const e of epochs) {
      marks.push({
        type: 'circle', cx: x(e.epoch), cy: y(e[s.key]), r: e.epoch === best ? 4 : 2.6, fill: e.epoch === best ? theme.status.ok : s.color, role: 'point',
        datum: { lines: [`epoch ${e.epoch}${e.epoch === best ? ' (best so far: kept)' : ''}`, `training MSE ${e.trainLoss.toFixed(5)}`, `validation MAE ${e.valMae.toFixed(5)}`] },
      });
    }
  });
  return { width, height, background: theme.background, fontFamily: theme.fontFamily, title: 'Training MSE and validation MAE per epoch', marks };
}
