// The estimator's figures on hand-made results: loss curves, the embeddings maps side by side and stacked,
// and the calibration figure's empty state.
import { describe, expect, it } from 'vitest';
import type { CalibrationResult, EmbeddingsResult } from '../../analysisResults.ts';
import type { Mark, Scene, TextMark } from '../scene.ts';
import { textWidth } from '../text.ts';
import { chartTheme } from '../theme.ts';
import { calibrationLayout } from './calibration.ts';
import { embeddingsLayout, tierColor } from './embeddings.ts';
import { lossCurvesScene } from './lossCurves.ts';

const flat = (ms: Mark[]): Mark[] => ms.flatMap((m) => (m.type === 'group' ? flat(m.marks) : [m]));
const ctx = (width: number, theme: 'light' | 'dark' = 'light') => ({ theme: chartTheme(theme), width, modelColor: () => '#0072B2' });

function insideScene(scene: Scene): void {
  for (const m of flat(scene.marks)) {
    if (m.type === 'circle') {
      expect(m.cx - m.r).toBeGreaterThanOrEqual(0);
      expect(m.cx + m.r).toBeLessThanOrEqual(scene.width);
      expect(m.cy + m.r).toBeLessThanOrEqual(scene.height);
    }
    if (m.type === 'text' && (m.anchor ?? 'start') === 'start') expect(m.x + textWidth(m.text, m.fontSize)).toBeLessThanOrEqual(scene.width + 1);
  }
}

const EMBEDDINGS: EmbeddingsResult = {
  estimator: { id: 3, name: 'est', source: 'database' },
  note: null,
  seed: 0,
  models: {
    perplexity: 1.67,
    kl: 0.1,
    points: [
      { model: 'gpt-5', tier: 'premium', x: 1, y: 1, turns: 40, price_in_per_m: 1.25, price_out_per_m: 10 },
      { model: 'kimi-k2', tier: 'mid', x: -1, y: 0.5, turns: 12, price_in_per_m: 0.39, price_out_per_m: 1.9 },
      { model: 'gpt-oss-120b', tier: 'budget', x: 0, y: -1.2, turns: 0, price_in_per_m: 0.09, price_out_per_m: 0.36 },
      { model: 'mystery', tier: null, x: 0.3, y: 0.2, turns: 2, price_in_per_m: null, price_out_per_m: null },
    ],
  },
  histories: {
    color: 'outcome',
    sketched: 500,
    perplexity: 30,
    kl: 1,
    points: [
      { episode: 'e1', episode_id: 11, run: 'r', turn: 0, model: 'gpt-5', outcome: 1, success: true, x: -1, y: -1 },
      { episode: 'e2', episode_id: 12, run: 'r', turn: 4, model: 'kimi-k2', outcome: null, success: null, x: 1.5, y: 0.5 },
    ],
  },
};

describe('estimator figures', () => {
  it('loss curves: a point per epoch in each panel, the best epoch marked, the constant predictor drawn', () => {
    const epochs = [1, 2, 3].map((epoch) => ({ epoch, trainLoss: 0.1 / epoch, valMae: [0.2, 0.15, 0.16][epoch - 1]!, bestEpoch: 2 }));
    const scene = lossCurvesScene(epochs, chartTheme('dark'), 640, { maxEpochs: 10, baselineMae: 0.22 });
    const marks = flat(scene.marks);
    expect(marks.filter((m) => m.role === 'point')).toHaveLength(6);
    expect(marks.filter((m) => m.role === 'best-epoch')).toHaveLength(2);
    expect(marks.filter((m) => m.role === 'baseline')).toHaveLength(1);
    const best = marks.filter((m) => m.role === 'point' && m.datum?.lines[0] === 'epoch 2 (best so far: kept)');
    expect(best).toHaveLength(2);
    expect(lossCurvesScene([], chartTheme('light'), 400).marks.some((m) => m.role === 'point')).toBe(false);
  });

  it('embeddings: models by tier with links to their episodes, histories by outcome opening their turn, side by side or stacked', () => {
    for (const width of [980, 420]) {
      for (const theme of ['light', 'dark'] as const) {
        const scene = embeddingsLayout(EMBEDDINGS, ctx(width, theme));
        insideScene(scene);
        const marks = flat(scene.marks);
        const models = marks.filter((m) => m.role === 'model-point');
        expect(models.map((m) => m.fill)).toEqual(['premium', 'mid', 'budget', null].map((t) => tierColor(t, chartTheme(theme))));
        expect(models[0]!.datum?.link).toEqual({ kind: 'episodes', models: ['gpt-5'], label: 'episodes with turns on gpt-5' });
        expect(models[0]!.datum?.lines).toContain('n = 40 turns logged on it in the selected runs');
        const histories = marks.filter((m) => m.role === 'history-point');
        expect(histories.map((m) => m.datum?.link)).toEqual([{ kind: 'turn', episodeId: 11, turn: 0 }, { kind: 'turn', episodeId: 12, turn: 4 }]);
        expect(histories[1]!.fill).toBe(chartTheme(theme).muted);
        // The unknown tier appears in the legend because one model has none.
        expect(marks.some((m) => m.type === 'text' && m.text === 'unknown')).toBe(true);
      }
    }
    const side = flat(embeddingsLayout(EMBEDDINGS, ctx(980)).marks).filter((m) => m.role === 'frame') as Extract<Mark, { type: 'rect' }>[];
    expect(side[0]!.y).toBe(side[1]!.y);
    const stacked = flat(embeddingsLayout(EMBEDDINGS, ctx(420)).marks).filter((m) => m.role === 'frame') as Extract<Mark, { type: 'rect' }>[];
    expect(stacked[1]!.y).toBeGreaterThan(stacked[0]!.y + stacked[0]!.height);
  });

  it('embeddings and calibration say what to do when there is nothing to draw', () => {
    const empty: EmbeddingsResult = {
      ...EMBEDDINGS,
      estimator: null,
      note: 'No estimator to take model embeddings from: train one (routelens train --db x.db --out model.onnx). No turn history of the selected runs is sketched yet; scoring writes the sketches: routelens score --db x.db',
      models: { perplexity: null, kl: null, points: [] },
      histories: { color: 'model', sketched: 0, perplexity: null, kl: null, points: [] },
    };
    const scene = embeddingsLayout(empty, ctx(720));
    insideScene(scene);
    const notes = flat(scene.marks).filter((m): m is TextMark => m.type === 'text' && m.role === 'empty').map((m) => m.text).join(' ');
    expect(notes).toContain('routelens score --db x.db');
    const none: CalibrationResult = { estimator: null, note: 'No estimator has scored the selected runs.', overall: { n: 0, mae: null, spearman: null, bins: [] }, runs: [] };
    const cal = calibrationLayout(none, ctx(720));
    expect(flat(cal.marks).some((m) => m.type === 'text' && m.text === 'No estimator has scored the selected runs.')).toBe(true);
  });
});
